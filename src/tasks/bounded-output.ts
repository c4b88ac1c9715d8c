/** Keeps the head and tail of a long text and says how much was cut in between. */
export function boundText(text: string, max: number): { text: string; cut: number } {
  if (text.length <= max) return { text, cut: 0 };
  const head = Math.ceil(max * 0.4);
  const tail = max - head;
  const cut = text.length - head - tail;
  return { text: `${text.slice(0, head).trimEnd()}\n…[${cut} chars cut]…\n${text.slice(text.length - tail).trimStart()}`, cut };
}

/** Streaming variant: accumulates deltas but never holds more than head + tail. */
export class HeadTailBuffer {
  private head = "";
  private tail = "";
  private total = 0;
  constructor(private readonly headMax: number, private readonly tailMax: number) {}

  push(s: string): void {
    this.total += s.length;
    if (this.head.length < this.headMax) {
      const room = this.headMax - this.head.length;
      this.head += s.slice(0, room);
      s = s.slice(room);
    }
    if (s) this.tail = (this.tail + s).slice(-this.tailMax);
  }

  get length(): number {
    return this.total;
  }

  toString(): string {
    const cut = this.total - this.head.length - this.tail.length;
    return cut > 0 ? `${this.head}\n…[${cut} chars cut]…\n${this.tail}` : this.head + this.tail;
  }
}
