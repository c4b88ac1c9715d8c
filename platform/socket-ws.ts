// A client connection to Codex's shared app-server on its Unix control socket. The socket speaks HTTP/1.1 upgraded to
// WebSocket (RFC 6455), one JSON-RPC message per text frame (docs/SHARED-APP-SERVER-FACTS.md). It is presented as a
// ChildHandle whose stdout carries one message per line, so the JSONL client above needs no second code path;
// "killing" it only drops this connection: the shared server is never signalled from here.
import { createHash, randomBytes } from "node:crypto";
import { createConnection, type Socket } from "node:net";
import type { ChildExit, ChildHandle } from "./types.ts";

const WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const MAX_HANDSHAKE_BYTES = 16 * 1024;

export interface SocketConnectOptions {
  /** Refuse a single message larger than this (the connection is then closed): default 64 MiB. */
  maxMessageBytes?: number;
  /** Give up the connect + upgrade after this long: default 5 s. */
  timeoutMs?: number;
}

export class SocketConnectError extends Error {
  constructor(
    readonly socketPath: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "SocketConnectError";
  }
}

/** Connects to `socketPath`, completes the WebSocket upgrade and resolves with the open connection. */
export function connectSocketWebSocket(socketPath: string, opts: SocketConnectOptions = {}): Promise<ChildHandle> {
  return new Promise<ChildHandle>((resolve, reject) => {
    const socket = createConnection({ path: socketPath });
    const key = randomBytes(16).toString("base64");
    const expectAccept = createHash("sha1").update(key + WS_GUID).digest("base64");
    let head = Buffer.alloc(0);
    let done = false;
    const fail = (code: string, message: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      reject(new SocketConnectError(socketPath, code, message));
    };
    const timer = setTimeout(() => fail("ETIMEDOUT", `no WebSocket upgrade from ${socketPath} within ${opts.timeoutMs ?? 5000} ms`), opts.timeoutMs ?? 5000);
    socket.on("error", (err: NodeJS.ErrnoException) => fail(err.code ?? "ESOCKET", `cannot connect to ${socketPath}: ${err.message}`));
    socket.on("close", () => fail("ECLOSED", `${socketPath} closed the connection during the WebSocket upgrade`));
    socket.on("connect", () => {
      socket.write(
        "GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
          `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        if (head.length > MAX_HANDSHAKE_BYTES) fail("EPROTO", `${socketPath} sent no HTTP upgrade answer`);
        return;
      }
      const lines = head.subarray(0, end).toString("latin1").split("\r\n");
      const status = lines[0] ?? "";
      const accept = lines.find((l) => /^sec-websocket-accept:/i.test(l))?.replace(/^[^:]*:\s*/, "");
      if (!/^HTTP\/1\.1 101\b/.test(status)) return fail("EPROTO", `${socketPath} refused the WebSocket upgrade: ${status}`);
      if (accept !== expectAccept) return fail("EPROTO", `${socketPath} answered the upgrade with a wrong Sec-WebSocket-Accept`);
      done = true;
      clearTimeout(timer);
      socket.removeListener("data", onData);
      socket.removeAllListeners("close");
      socket.removeAllListeners("error");
      resolve(new SocketWsHandle(socket, head.subarray(end + 4), opts.maxMessageBytes ?? 64 * 1024 * 1024));
    };
    socket.on("data", onData);
  });
}

/** One text frame from the client: FIN set, masked as RFC 6455 requires of clients. */
export function encodeClientFrame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const header = len < 126 ? Buffer.alloc(2) : len < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  header[0] = 0x80 | opcode;
  if (len < 126) header[1] = 0x80 | len;
  else if (len < 65536) {
    header[1] = 0x80 | 126;
    header.writeUInt16BE(len, 2);
  } else {
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(len), 2);
  }
  const mask = randomBytes(4);
  const body = Buffer.alloc(len);
  for (let i = 0; i < len; i++) body[i] = payload[i]! ^ mask[i & 3]!;
  return Buffer.concat([header, mask, body]);
}

class SocketWsHandle implements ChildHandle {
  readonly pid = 0;
  readonly exited: Promise<ChildExit>;
  private resolveExit!: (e: ChildExit) => void;
  private exitInfo: ChildExit | null = null;
  private readonly stdoutCbs: Array<(chunk: string) => void> = [];
  private readonly exitCbs: Array<(e: ChildExit) => void> = [];
  private buf: Buffer;
  private fragments: Buffer[] = [];
  private fragmentBytes = 0;
  private closing = false;
  /** Set when this side ended the connection: its end is then no loss of the server. */
  private closedByUs = false;
  /** Messages that arrived before anyone listened (the bytes right after the upgrade answer). */
  private early: string[] = [];

  constructor(
    private readonly socket: Socket,
    rest: Buffer,
    private readonly maxMessageBytes: number,
  ) {
    this.exited = new Promise((r) => (this.resolveExit = r));
    this.buf = rest;
    socket.on("data", (chunk: Buffer) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
      this.parse();
    });
    socket.on("error", () => {});
    // The connection's end is this handle's "exit": code 0 when we closed it, null when the server went away.
    socket.on("close", () => this.settle(this.closedByUs ? { code: 0, signal: null } : { code: null, signal: "ECONNRESET" }));
    queueMicrotask(() => this.parse());
  }

  write(data: string): Promise<void> {
    if (this.exitInfo || this.closing || this.socket.destroyed) return Promise.reject(new Error("the app-server socket is closed"));
    // The caller writes JSONL: every line is one message.
    const frames = data.split("\n").filter((l) => l.length > 0).map((l) => encodeClientFrame(0x1, Buffer.from(l, "utf8")));
    return new Promise((resolve, reject) => {
      this.socket.write(Buffer.concat(frames), (err) => (err ? reject(new Error(`cannot write to the app-server socket: ${err.message}`)) : resolve()));
    });
  }

  endStdin(): void {
    if (this.closing || this.socket.destroyed) return;
    this.closing = true;
    this.closedByUs = true;
    try {
      this.socket.write(encodeClientFrame(0x8, Buffer.from([0x03, 0xe8])));
      this.socket.end();
    } catch {
      this.socket.destroy();
    }
  }

  onStdout(cb: (chunk: string) => void): void {
    this.stdoutCbs.push(cb);
    if (this.early.length) for (const m of this.early.splice(0)) cb(m);
  }

  onStderr(): void {
    // A socket has no stderr: the shared server's log is its own.
  }

  onExit(cb: (e: ChildExit) => void): void {
    if (this.exitInfo) {
      const e = this.exitInfo;
      queueMicrotask(() => cb(e));
    } else this.exitCbs.push(cb);
  }

  /** Drops this connection only. */
  killTree(): void {
    this.closing = true;
    this.closedByUs = true;
    this.socket.destroy();
  }

  private settle(e: ChildExit): void {
    if (this.exitInfo) return;
    this.exitInfo = e;
    this.resolveExit(e);
    for (const cb of this.exitCbs.splice(0)) cb(e);
  }

  private emit(text: string): void {
    const line = text + "\n";
    if (this.stdoutCbs.length === 0) this.early.push(line);
    else for (const cb of this.stdoutCbs) cb(line);
  }

  private parse(): void {
    for (;;) {
      const b = this.buf;
      if (b.length < 2) return;
      const fin = (b[0]! & 0x80) !== 0;
      const opcode = b[0]! & 0x0f;
      const masked = (b[1]! & 0x80) !== 0;
      let len = b[1]! & 0x7f;
      let off = 2;
      if (len === 126) {
        if (b.length < 4) return;
        len = b.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (b.length < 10) return;
        const big = b.readBigUInt64BE(2);
        if (big > BigInt(this.maxMessageBytes)) return this.protocolError();
        len = Number(big);
        off = 10;
      }
      if (len > this.maxMessageBytes) return this.protocolError();
      const maskKey = masked ? b.subarray(off, off + 4) : null;
      if (masked) off += 4;
      if (b.length < off + len) return;
      const payload = Buffer.from(b.subarray(off, off + len));
      if (maskKey) for (let i = 0; i < payload.length; i++) payload[i] = payload[i]! ^ maskKey[i & 3]!;
      this.buf = b.subarray(off + len);
      if (opcode === 0x8) {
        this.closing = true;
        this.socket.end();
        return;
      }
      if (opcode === 0x9) {
        if (!this.socket.destroyed) this.socket.write(encodeClientFrame(0xa, payload));
        continue;
      }
      if (opcode === 0xa) continue;
      if (opcode === 0x1 || opcode === 0x2 || opcode === 0x0) {
        this.fragmentBytes += payload.length;
        if (this.fragmentBytes > this.maxMessageBytes) return this.protocolError();
        this.fragments.push(payload);
        if (!fin) continue;
        const whole = this.fragments.length === 1 ? this.fragments[0]! : Buffer.concat(this.fragments);
        this.fragments = [];
        this.fragmentBytes = 0;
        this.emit(whole.toString("utf8"));
      }
    }
  }

  private protocolError(): void {
    // An oversized or malformed frame: this connection cannot be trusted any further.
    this.socket.destroy();
  }
}
