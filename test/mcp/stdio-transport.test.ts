// The bounded stdio transport in-process, over PassThrough streams with a real McpServer behind it: line framing,
// the line limit (an over-long line is discarded as it streams and answered), and JSON-RPC errors for bad lines.
import { PassThrough } from "node:stream";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it } from "vitest";
import { TopLevelIdScanner } from "../../src/mcp/transport/json-id-scanner.ts";
import { checkInbound, checkInboundText } from "../../src/mcp/transport/jsonrpc-inbound.ts";
import { BoundedStdioServerTransport, MAX_STDIN_LINE_BYTES } from "../../src/mcp/transport/stdio.ts";
import { formatEvent } from "../../src/log.ts";

type Reply = { jsonrpc: string; id: string | number | null; result?: unknown; error?: { code: number; message: string } };

interface Rig {
  stdin: PassThrough;
  transport: BoundedStdioServerTransport;
  replies: Reply[];
  /** Every stdout line, raw: each must be JSON. */
  lines: string[];
  logs: string[];
  next(count?: number): Promise<Reply[]>;
}

const rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) await r.transport.close();
});

async function rig(maxLineBytes?: number): Promise<Rig> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const logs: string[] = [];
  const transport = new BoundedStdioServerTransport(stdin, stdout, { maxLineBytes, log: (level, event, fields) => logs.push(formatEvent(new Date(0), level, event, fields)) });
  const server = new McpServer({ name: "t", version: "1" }, { capabilities: { tools: {} } });
  server.registerTool("echo", { description: "echo" }, async () => ({ content: [{ type: "text", text: "hi" }] }));
  await server.connect(transport);
  const replies: Reply[] = [];
  const lines: string[] = [];
  let buf = "";
  stdout.setEncoding("utf8").on("data", (d: string) => {
    buf += d;
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      lines.push(line);
      replies.push(JSON.parse(line) as Reply);
    }
  });
  let seen = 0;
  const r: Rig = {
    stdin,
    transport,
    replies,
    lines,
    logs,
    async next(count = 1) {
      const until = Date.now() + 5000;
      while (replies.length < seen + count) {
        if (Date.now() > until) throw new Error(`expected ${count} more replies, have ${replies.length - seen}: ${JSON.stringify(replies.slice(seen))}`);
        await new Promise((res) => setTimeout(res, 5));
      }
      const out = replies.slice(seen, seen + count);
      seen += count;
      return out;
    },
  };
  rigs.push(r);
  return r;
}

const ping = (id: number | string) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }) + "\n";

describe("BoundedStdioServerTransport framing", () => {
  it("answers lines split across chunks, several lines per chunk, and CRLF endings, one JSON object per line", async () => {
    const r = await rig();
    const text = ping(1) + ping("two").replace("\n", "\r\n") + ping(3);
    for (let i = 0; i < text.length; i += 7) r.stdin.write(text.slice(i, i + 7));
    const got = await r.next(3);
    expect(got.map((g) => g.id)).toEqual([1, "two", 3]);
    expect(got.every((g) => g.result !== undefined)).toBe(true);
    expect(r.lines.every((l) => !l.includes("\n"))).toBe(true);
  });

  it("ignores blank lines", async () => {
    const r = await rig();
    r.stdin.write("\n  \n\r\n" + ping(4));
    expect((await r.next())[0]!.id).toBe(4);
    expect(r.replies).toHaveLength(1);
  });

  it("uses a 16 MiB limit by default", () => {
    expect(MAX_STDIN_LINE_BYTES).toBe(16 * 1024 * 1024);
    expect(new BoundedStdioServerTransport(new PassThrough(), new PassThrough()).maxLineBytes).toBe(MAX_STDIN_LINE_BYTES);
  });
});

describe("BoundedStdioServerTransport line limit", () => {
  it("refuses an over-long request with its id (found as it streams), then keeps serving", async () => {
    const r = await rig(1024);
    // The id comes last, after the oversized params, and the line arrives in small pieces.
    const big = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"s":"${"x\\\"y".repeat(600)}","id":99}},"id":"req-7"}\n`;
    for (let i = 0; i < big.length; i += 100) r.stdin.write(big.slice(i, i + 100));
    const [refused] = await r.next();
    expect(refused).toMatchObject({ jsonrpc: "2.0", id: "req-7", error: { code: -32600 } });
    expect(refused!.error!.message).toMatch(/over the limit of 1024 bytes/);
    r.stdin.write(ping(5));
    expect((await r.next())[0]).toMatchObject({ id: 5, result: {} });
    expect(r.logs.join("\n")).toMatch(/warn mcp_input_refused id=req-7 code=-32600 answered=true bytes=\d+/);
  });

  it("answers id null when the over-long line has no usable id, and names the limit in MiB", async () => {
    const r = await rig(2 * 1024 * 1024);
    r.stdin.write("z".repeat(2 * 1024 * 1024 + 1) + "\n");
    r.stdin.write(`{"jsonrpc":"2.0","id":1.5,"method":"ping","params":{"p":"${"q".repeat(2 * 1024 * 1024)}"}}\n`);
    const got = await r.next(2);
    expect(got.map((g) => g.id)).toEqual([null, 1.5]);
    for (const g of got) {
      expect(g).toMatchObject({ error: { code: -32600 } });
      expect(g.error!.message).toMatch(/2 MiB/);
    }
    r.stdin.write(ping(6));
    expect((await r.next())[0]).toMatchObject({ id: 6, result: {} });
  });

  it("accepts a line of exactly the limit and refuses one byte more", async () => {
    const r = await rig(200);
    const exact = (n: number) => {
      const base = `{"jsonrpc":"2.0","id":8,"method":"ping","params":{"_meta":{},"pad":""}}`;
      return base.replace('"pad":""', `"pad":"${"p".repeat(n - base.length)}"`);
    };
    r.stdin.write(exact(200) + "\n");
    expect((await r.next())[0]).toMatchObject({ id: 8, result: {} });
    r.stdin.write(exact(201) + "\n");
    expect((await r.next())[0]).toMatchObject({ id: 8, error: { code: -32600 } });
  });

  it("never buffers more than the limit plus one chunk of an over-long line", async () => {
    const r = await rig(64 * 1024);
    const internals = r.transport as unknown as { size: number; chunks: Buffer[] };
    let peak = 0;
    for (let i = 0; i < 200; i++) {
      r.stdin.write("w".repeat(16 * 1024));
      await new Promise((res) => setImmediate(res));
      peak = Math.max(peak, internals.size);
    }
    expect(peak).toBeLessThanOrEqual(64 * 1024);
    expect(internals.chunks).toEqual([]);
    r.stdin.write("\n" + ping(9));
    const got = await r.next(2);
    expect(got[0]).toMatchObject({ id: null, error: { code: -32600 } });
    expect(got[0]!.error!.message).toContain(`${200 * 16 * 1024} bytes`);
    expect(got[1]).toMatchObject({ id: 9, result: {} });
  });
});

describe("BoundedStdioServerTransport numeric ids the SDK cannot carry", () => {
  it("answers a fractional id (and an integer beyond 2^53) with exactly that id, for ping, tools/list and tools/call", async () => {
    const r = await rig();
    r.stdin.write(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}\n`);
    r.stdin.write(`{"jsonrpc":"2.0","id":-0.25,"method":"tools/list"}\n`);
    r.stdin.write(`{"jsonrpc":"2.0","id":2.5,"method":"tools/call","params":{"name":"echo","arguments":{}}}\n`);
    r.stdin.write(`{"jsonrpc":"2.0","id":100000000000000000000,"method":"ping"}\n`);
    r.stdin.write(ping(7));
    const got = await r.next(5);
    expect(got.map((g) => g.id).sort((a, b) => Number(a) - Number(b))).toEqual([-0.25, 1.5, 2.5, 7, 1e20]);
    expect(got.every((g) => g.result !== undefined && g.error === undefined)).toBe(true);
    expect(r.lines[0]).toBe(`{"result":{},"jsonrpc":"2.0","id":1.5}`);
  });
});

describe("BoundedStdioServerTransport malformed JSON-RPC", () => {
  it("answers each malformed request with the JSON-RPC error and the id when it is valid", async () => {
    const r = await rig();
    const cases: [string, number, string | number | null][] = [
      ["this is not json", -32700, null],
      [`{"jsonrpc":"2.0","id":1,"method":"ping"`, -32700, null],
      [`{"jsonrpc":"1.0","id":1,"method":"ping"}`, -32600, 1],
      [`{"id":"a","method":"ping"}`, -32600, "a"],
      [`{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, null],
      [`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, -32600, null],
      [`{"jsonrpc":"2.0","id":2,"method":7}`, -32600, 2],
      [`{"jsonrpc":"2.0","id":3}`, -32600, 3],
      [`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":"str"}`, -32602, 4],
      [`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":[1,2]}`, -32602, 5],
      [`{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":"nope"}}`, -32602, 6],
      [`[{"jsonrpc":"2.0","id":7,"method":"ping"}]`, -32600, null],
      [`[]`, -32600, null],
      [`42`, -32600, null],
      [`"ping"`, -32600, null],
      [`null`, -32600, null],
      [`{}`, -32600, null],
    ];
    for (const [line] of cases) r.stdin.write(line + "\n");
    const got = await r.next(cases.length);
    got.forEach((g, i) => {
      const [line, code, id] = cases[i]!;
      expect(g, line).toMatchObject({ jsonrpc: "2.0", id, error: { code } });
      expect(g.result, line).toBeUndefined();
    });
    // Still serving.
    r.stdin.write(ping(10));
    expect((await r.next())[0]).toMatchObject({ id: 10, result: {} });
  });

  it("writes nothing for a malformed notification or response, and still answers the next request", async () => {
    const r = await rig();
    for (const line of [
      `{"jsonrpc":"2.0","method":"notifications/initialized","params":"str"}`,
      `{"jsonrpc":"1.0","method":"notifications/initialized"}`,
      `{"method":"notifications/cancelled"}`,
      `{"jsonrpc":"2.0","id":3,"result":"not an object"}`,
      `{"jsonrpc":"2.0","error":{"code":"x"}}`,
    ]) {
      r.stdin.write(line + "\n");
    }
    r.stdin.write(ping(11));
    const [only] = await r.next();
    expect(only).toMatchObject({ id: 11, result: {} });
    await new Promise((res) => setTimeout(res, 50));
    expect(r.replies).toHaveLength(1);
    expect(r.logs.filter((l) => l.includes("answered=false"))).toHaveLength(5);
  });

  it("accepts a request with unknown extra top-level members (dropped, not refused)", async () => {
    const r = await rig();
    r.stdin.write(`{"jsonrpc":"2.0","id":12,"method":"ping","trace":"abc"}\n`);
    expect((await r.next())[0]).toMatchObject({ id: 12, result: {} });
  });
});

describe("checkInbound", () => {
  it("passes valid requests, notifications and responses through unchanged", () => {
    for (const m of [
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
      { jsonrpc: "2.0", id: "x", method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 3, result: {} },
      { jsonrpc: "2.0", id: 4, error: { code: -1, message: "no" } },
    ]) {
      expect(checkInbound(m), JSON.stringify(m)).toEqual({ ok: true, message: m });
    }
  });

  it("marks malformed notifications and responses as not to be answered, everything else as answerable", () => {
    expect(checkInbound({ jsonrpc: "2.0", method: "notifications/x", params: 1 })).toMatchObject({ ok: false, code: -32602, answerable: false });
    expect(checkInbound({ jsonrpc: "2.0", id: 1, result: 5 })).toMatchObject({ ok: false, id: 1, answerable: false });
    expect(checkInbound({ jsonrpc: "2.0", id: 1, method: "x", params: 1 })).toMatchObject({ ok: false, id: 1, code: -32602, answerable: true });
    expect(checkInboundText("{")).toMatchObject({ ok: false, id: null, code: -32700, answerable: true });
  });
});

describe("TopLevelIdScanner", () => {
  const scan = (text: string, piece = text.length) => {
    const s = new TopLevelIdScanner();
    const bytes = Buffer.from(text, "utf8");
    for (let i = 0; i < bytes.length; i += piece) s.feed(bytes.subarray(i, i + piece));
    return s.id();
  };

  it("finds the top-level id wherever it is, in any split, ignoring nested ids and ids inside strings", () => {
    const text = `{"params":{"id":"nested","s":"\\"id\\": 5 {[","arr":[{"id":6}]}, "jsonrpc":"2.0" , "id" : "top-\\u00e9ü" ,"method":"x"}`;
    for (const piece of [1, 2, 3, 7, 1000]) expect(scan(text, piece), `piece ${piece}`).toBe("top-éü");
    expect(scan(`{"id":42,"method":"x"}`)).toBe(42);
    expect(scan(`  {"method":"x","id":-3}`)).toBe(-3);
    expect(scan(`{"id":1,"id":2}`)).toBe(2);
    // MCP's RequestId is any JSON number: a fraction is an id too.
    expect(scan(`{"id":1.5}`)).toBe(1.5);
  });

  it("finds no id in non-objects, invalid ids, or a line cut off inside the id", () => {
    expect(scan(`[{"id":1}]`)).toBeNull();
    expect(scan(`{"id":true}`)).toBeNull();
    expect(scan(`{"id":null}`)).toBeNull();
    expect(scan(`{"id":{"a":1}}`)).toBeNull();
    expect(scan(`{"method":"x","id":12`)).toBeNull();
    expect(scan(`{"i\\u0064":7}`)).toBe(7);
    expect(scan(`garbage`)).toBeNull();
  });
});

describe("large answers", () => {
  it("a multi-MiB message and the small one after it each arrive as exactly one line, in order", async () => {
    const stdout = new PassThrough({ highWaterMark: 1024 });
    const transport = new BoundedStdioServerTransport(new PassThrough(), stdout);
    const big = { jsonrpc: "2.0" as const, id: 1, result: { blob: "A".repeat(3 * 1024 * 1024) } };
    const small = { jsonrpc: "2.0" as const, id: 2, result: {} };
    let out = "";
    stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    await transport.send(big);
    await transport.send(small);
    expect(out).toBe(JSON.stringify(big) + "\n" + JSON.stringify(small) + "\n");
  });
});
