// The WebSocket-over-Unix-socket client the shared runtime uses, against a minimal server that speaks RFC 6455 the way
// Codex's control socket does (101 upgrade, unmasked server frames), plus the cases Codex may send and the real
// server in test/integration/shared-runtime does not produce on demand: fragmentation, ping, long frames, close.
import { createHash } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectSocketWebSocket } from "../../platform/socket-ws.ts";
import { poll } from "../support/poll.ts";
import { tempDir } from "../support/temp-dir.ts";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

function serverFrame(opcode: number, payload: Buffer, fin = true): Buffer {
  const len = payload.length;
  const head = len < 126 ? Buffer.from([(fin ? 0x80 : 0) | opcode, len]) : len < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  if (len >= 126 && len < 65536) {
    head[0] = (fin ? 0x80 : 0) | opcode;
    head[1] = 126;
    head.writeUInt16BE(len, 2);
  } else if (len >= 65536) {
    head[0] = (fin ? 0x80 : 0) | opcode;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(len), 2);
  }
  return Buffer.concat([head, payload]);
}

/** Decodes the client's frames (which must be masked) as they arrive. */
function clientFrames(sock: Socket, onFrame: (opcode: number, payload: Buffer, masked: boolean) => void): void {
  let buf = Buffer.alloc(0);
  sock.on("data", (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      if (buf.length < 2) return;
      const masked = (buf[1]! & 0x80) !== 0;
      let len = buf[1]! & 0x7f;
      let off = 2;
      if (len === 126) [len, off] = [buf.readUInt16BE(2), 4];
      else if (len === 127) [len, off] = [Number(buf.readBigUInt64BE(2)), 10];
      const key = masked ? buf.subarray(off, off + 4) : null;
      if (masked) off += 4;
      if (buf.length < off + len) return;
      const p = Buffer.from(buf.subarray(off, off + len));
      if (key) for (let i = 0; i < p.length; i++) p[i] = p[i]! ^ key[i & 3]!;
      buf = buf.subarray(off + len);
      onFrame(0, p, masked);
    }
  });
}

let server: Server | null = null;
afterEach(() => {
  server?.close();
  server = null;
});

async function listen(onUpgraded: (sock: Socket) => void, answer?: (key: string) => string): Promise<string> {
  const path = join(tempDir("ws-sock-"), "s.sock");
  server = createServer((sock) => {
    let head = "";
    const onData = (d: Buffer): void => {
      head += d.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      sock.removeListener("data", onData);
      const key = /sec-websocket-key: (.*)\r\n/i.exec(head)![1]!;
      const accept = createHash("sha1").update(key + GUID).digest("base64");
      sock.write(answer ? answer(key) : `HTTP/1.1 101 Switching Protocols\r\nconnection: Upgrade\r\nupgrade: websocket\r\nsec-websocket-accept: ${accept}\r\n\r\n`);
      onUpgraded(sock);
    };
    sock.on("data", onData);
  });
  await new Promise<void>((r) => server!.listen(path, r));
  return path;
}

// Deno asks for --allow-net to open a Unix socket, which its test run here does not grant (see the README's shared runtime).
const isDeno = (globalThis as { Deno?: unknown }).Deno !== undefined;

describe.skipIf(isDeno)("connectSocketWebSocket", () => {
  it("sends masked text frames, one per line, and hands back whole messages (fragmented, long, after a ping) one per line", async () => {
    const got: string[] = [];
    const pongs: string[] = [];
    let allMasked = true;
    const long = JSON.stringify({ method: "item/agentMessage/delta", params: { delta: "x".repeat(70_000) } });
    const path = await listen((sock) => {
      clientFrames(sock, (_op, p, masked) => {
        allMasked &&= masked;
        const text = p.toString("utf8");
        if (text.startsWith("{")) got.push(text);
        else pongs.push(text);
        if (got.length === 2 && text.startsWith("{")) {
          // Answer: a message in three fragments, a ping, a 70 kB message (64-bit length), all in one write.
          sock.write(
            Buffer.concat([
              serverFrame(0x1, Buffer.from('{"id":1,'), false),
              serverFrame(0x0, Buffer.from('"result":'), false),
              serverFrame(0x0, Buffer.from("{}}"), true),
              serverFrame(0x9, Buffer.from("are-you-there")),
              serverFrame(0x1, Buffer.from(long)),
            ]),
          );
        }
      });
    });
    const h = await connectSocketWebSocket(path);
    let out = "";
    h.onStdout((c) => (out += c));
    await h.write('{"id":1,"method":"initialize"}\n{"method":"initialized"}\n');
    await poll(() => out.split("\n").length === 3, { timeoutMs: 5000, what: "three lines" });
    expect(got).toEqual(['{"id":1,"method":"initialize"}', '{"method":"initialized"}']);
    expect(allMasked).toBe(true);
    expect(out.split("\n").slice(0, 2)).toEqual(['{"id":1,"result":{}}', long]);
    await poll(() => pongs.length > 0, { timeoutMs: 5000, what: "the pong" });
    expect(pongs).toEqual(["are-you-there"]);
    h.endStdin();
    expect(await h.exited).toEqual({ code: 0, signal: null });
  });

  it("reports the server going away as an exit that is not ours, and refuses writes after it", async () => {
    const path = await listen((sock) => setTimeout(() => sock.destroy(), 20));
    const h = await connectSocketWebSocket(path);
    expect(await h.exited).toEqual({ code: null, signal: "ECONNRESET" });
    await expect(h.write("{}\n")).rejects.toThrow(/closed/);
  });

  it("refuses a socket that does not upgrade, and a missing socket with its errno", async () => {
    const path = await listen(() => {}, () => "HTTP/1.1 400 Bad Request\r\n\r\n");
    await expect(connectSocketWebSocket(path)).rejects.toThrow(/refused the WebSocket upgrade: HTTP\/1.1 400/);
    await expect(connectSocketWebSocket(path + ".missing")).rejects.toMatchObject({ code: "ENOENT" });
  });
});
