// The stdio transport `serve` uses instead of the SDK's StdioServerTransport: same wire format (one JSON object per
// line), but an explicit line limit and a JSON-RPC error for every malformed line, so no input can wedge the bridge.
import process from "node:process";
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { TopLevelIdScanner } from "./json-id-scanner.ts";
import { checkInboundText, errorReply, INVALID_REQUEST, type JsonRpcErrorReply } from "./jsonrpc-inbound.ts";
import type { EventLog } from "../../log.ts";

/**
 * The longest stdin line (one JSON-RPC message, newline excluded) the bridge accepts: 16 MiB. Generous for any
 * prompt or tool result sent in, above the SDK's 10 MiB default; a longer line is discarded as it streams (at most
 * this much is ever buffered) and answered with -32600, and the bridge keeps serving.
 */
export const MAX_STDIN_LINE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;
const SEPARATE_NEWLINE_CHARS = 64 * 1024;

export interface BoundedStdioOptions {
  /** Default MAX_STDIN_LINE_BYTES. */
  maxLineBytes?: number;
  /** Where to say what was refused (stderr in `serve`); stdout belongs to MCP. */
  log?: EventLog;
}

const mib = (n: number) => (n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`);

export class BoundedStdioServerTransport implements Transport {
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  onmessage?: Transport["onmessage"];

  readonly maxLineBytes: number;
  private started = false;
  private closed = false;
  /** The current line so far, when it is still within the limit. */
  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while an over-long line is being discarded; it still looks for the line's id. */
  private discarding: { scanner: TopLevelIdScanner; bytes: number } | null = null;
  /** Requests in flight under a surrogate id (jsonrpc-inbound.ts IdAlias): surrogate → the client's own id. */
  private readonly aliases = new Map<string, number>();

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly opts: BoundedStdioOptions = {},
  ) {
    this.maxLineBytes = opts.maxLineBytes ?? MAX_STDIN_LINE_BYTES;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("BoundedStdioServerTransport already started (Server.connect calls start itself)");
    this.started = true;
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onStdinError);
  }

  /** Exactly what the SDK's stdio transport writes: the JSON and a newline; resolves once stdout took it. */
  send(message: JSONRPCMessage): Promise<void> {
    if ("id" in message && typeof message.id === "string" && !("method" in message)) {
      const original = this.aliases.get(message.id);
      if (original !== undefined) {
        this.aliases.delete(message.id);
        return this.writeLine({ ...message, id: original });
      }
    }
    return this.writeLine(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onStdinError);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.chunks = [];
    this.size = 0;
    this.discarding = null;
    this.onclose?.();
  }

  private writeLine(message: JSONRPCMessage | JsonRpcErrorReply): Promise<void> {
    const json = JSON.stringify(message);
    return new Promise((resolve) => {
      // A large answer (an artifact chunk) and its newline go out as two writes: joining them copies megabytes.
      let flushed: boolean;
      if (json.length > SEPARATE_NEWLINE_CHARS) {
        const body = this.stdout.write(json);
        flushed = this.stdout.write("\n") && body;
      } else flushed = this.stdout.write(json + "\n");
      if (flushed) resolve();
      else this.stdout.once("drain", resolve);
    });
  }

  private readonly onStdinError = (error: Error) => {
    this.onerror?.(error);
  };

  private readonly onData = (data: Buffer | string) => {
    let buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    while (buf.length > 0 && !this.closed) {
      const nl = buf.indexOf(NEWLINE);
      const part = nl === -1 ? buf : buf.subarray(0, nl);
      if (this.discarding) {
        this.discarding.scanner.feed(part);
        this.discarding.bytes += part.length;
      } else if (this.size + part.length > this.maxLineBytes) {
        // From here on the line is only scanned for its id, never kept.
        const scanner = new TopLevelIdScanner();
        for (const c of this.chunks) scanner.feed(c);
        scanner.feed(part);
        this.discarding = { scanner, bytes: this.size + part.length };
        this.chunks = [];
        this.size = 0;
      } else if (part.length > 0) {
        this.chunks.push(part);
        this.size += part.length;
      }
      if (nl === -1) return;
      buf = buf.subarray(nl + 1);
      this.endOfLine();
    }
  };

  private endOfLine(): void {
    if (this.discarding) {
      const { scanner, bytes } = this.discarding;
      this.discarding = null;
      this.refuse(
        scanner.id(),
        INVALID_REQUEST,
        `Request too large: a stdin line of ${bytes} bytes is over the limit of ${this.maxLineBytes} bytes (${mib(this.maxLineBytes)}); it was discarded`,
        true,
        bytes,
      );
      return;
    }
    const line = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    this.chunks = [];
    this.size = 0;
    const text = line.toString("utf8").replace(/\r$/, "");
    if (text.trim() === "") return;
    const checked = checkInboundText(text);
    if (!checked.ok) {
      this.refuse(checked.id, checked.code, checked.message, checked.answerable);
      return;
    }
    if (checked.alias) this.aliases.set(checked.alias.surrogate, checked.alias.original);
    try {
      this.onmessage?.(checked.message);
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private refuse(id: RequestId | null, code: number, message: string, answer: boolean, bytes?: number): void {
    // Logged by code only: the message can quote the offending input.
    this.opts.log?.("warn", "mcp_input_refused", { id: id === null ? null : String(id), code, answered: answer, bytes });
    this.onerror?.(new Error(message));
    if (answer) void this.writeLine(errorReply(id, code, message));
  }
}
