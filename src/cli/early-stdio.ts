// `serve` on stdio before anything heavy is loaded: stdin is read from the first moment, a plain MCP initialize on the
// first line is answered as soon as the bridge knows it will start (config read, state database locked), and every
// byte read is handed on unchanged to the real transport once it exists.
import { PassThrough, type Readable, type Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { initializeAnswer, type InitializeAnswer } from "../mcp/transport/initialize-answer.ts";
import type { EventLog } from "../log.ts";

// A first line longer than this is no plain initialize; it goes the normal way.
const SNIFF_MAX_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

export interface EarlyStdio {
  /** Everything read from stdin, in order, ending when stdin ends; what the MCP transport reads instead of stdin. */
  readonly input: Readable;
  /** The bridge will start: the early answer may go out (now, or when the first line arrives). */
  open(): void;
  /** Resolves once the first line was read (and answered if it could be), stdin ended, or `graceMs` passed. */
  firstLine(graceMs: number): Promise<void>;
  /**
   * Makes the transport skip the SDK's own answer to the initialize answered early (the request is still replayed to
   * the SDK, so its session state is exactly as without the fast path). Returns the transport.
   */
  adopt<T extends Transport>(transport: T, log: EventLog): T;
  /** Stops reading stdin (when serve ends without serving), so the reader keeps nothing alive. */
  release(): void;
}

export function startEarlyStdio(version: string, stdin: Readable = process.stdin, stdout: Writable = process.stdout): EarlyStdio {
  const input = new PassThrough();
  const head: Buffer[] = [];
  let headBytes = 0;
  let answer: InitializeAnswer | null = null;
  let opened = false;
  // Set once the early answer is written; only then may the SDK's duplicate be skipped.
  let answered: InitializeAnswer | null = null;
  let sniffed!: () => void;
  const firstLineSeen = new Promise<void>((resolve) => (sniffed = resolve));
  const writeAnswer = () => {
    if (!opened || !answer || answered) return;
    answered = answer;
    stdout.write(answer.line);
  };

  const sniff = (data: Buffer | string) => {
    const chunk = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    const nl = chunk.indexOf(NEWLINE);
    head.push(nl === -1 ? chunk : chunk.subarray(0, nl));
    headBytes += nl === -1 ? chunk.length : nl;
    if (nl === -1 && headBytes <= SNIFF_MAX_BYTES) return;
    stdin.off("data", sniff);
    if (nl !== -1) answer = initializeAnswer(Buffer.concat(head).toString("utf8").replace(/\r$/, ""), version);
    head.length = 0;
    writeAnswer();
    sniffed();
  };
  // Registered before the pipe, so the answer can go out before the line is even handed on.
  stdin.on("data", sniff);
  stdin.pipe(input);
  stdin.on("error", (err) => input.destroy(err));
  stdin.on("close", () => {
    if (!input.writableEnded) input.end();
  });
  stdin.once("end", () => sniffed());

  return {
    input,
    open() {
      opened = true;
      writeAnswer();
    },
    firstLine(graceMs) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      return Promise.race([firstLineSeen, grace]).finally(() => clearTimeout(timer));
    },
    adopt(transport, log) {
      // From here on the SDK answers; a first line sniffed later than this is its business alone.
      stdin.off("data", sniff);
      const early = answered;
      if (!early) return transport;
      const send = transport.send.bind(transport);
      let skipped = false;
      transport.send = async (message, options) => {
        if (!skipped && "id" in message && message.id === early.id && ("result" in message || "error" in message)) {
          skipped = true;
          const line = JSON.stringify(message) + "\n";
          if (line !== early.line) log("warn", "early_initialize_differs", { sdk_chars: line.length, early_chars: early.line.length });
          return;
        }
        return send(message, options);
      };
      return transport;
    },
    release() {
      stdin.off("data", sniff);
      stdin.unpipe(input);
      stdin.pause();
      stdin.destroy();
    },
  };
}
