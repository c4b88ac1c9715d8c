/**
 * Splits a byte stream into lines. A line longer than the cap is dropped whole (and reported) instead of
 * growing the buffer without bound: one runaway message must not take the bridge's memory with it.
 */
export class LineSplitter {
  private buf = "";
  private discarding = false;

  constructor(
    private readonly maxLineChars: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversize: (approxChars: number) => void,
  ) {}

  push(chunk: string): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf("\n", start);
      if (nl === -1) break;
      const piece = chunk.slice(start, nl);
      start = nl + 1;
      if (this.discarding) {
        this.discarding = false;
        this.buf = "";
        continue;
      }
      const line = this.buf + piece;
      this.buf = "";
      if (line.length > this.maxLineChars) this.onOversize(line.length);
      // A JSON-RPC line opens with `{`; only anything else needs the full blank-line test.
      else if (line.charCodeAt(0) === 0x7b || line.trim() !== "") this.onLine(line);
    }
    const rest = chunk.slice(start);
    if (this.discarding) return;
    if (this.buf.length + rest.length > this.maxLineChars) {
      this.onOversize(this.buf.length + rest.length);
      this.buf = "";
      this.discarding = true;
      return;
    }
    this.buf += rest;
  }
}
