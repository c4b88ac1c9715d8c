// Streamable HTTP sessions in-process (a bridge on throwaway state, no Codex needed): a request without a valid
// session is refused, idle sessions are closed and freed, the number of live sessions is capped, and malformed
// JSON-RPC gets the JSON-RPC error it deserves (not the SDK's -32700 for everything, and no batches).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { poll } from "../support/poll.ts";
import { getPlatform } from "../../platform/index.ts";
import { assembleBridge, type Bridge } from "../../src/app/assemble.ts";
import { parseHttpArgs } from "../../src/cli/http-options.ts";
import { startHttpServer, type HttpBridgeServer } from "../../src/cli/serve-http.ts";
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, SessionRegistry } from "../../src/mcp/transport/http-sessions.ts";
import { connectHttpClient, INIT_REQUEST, rawPost } from "../support/http-bridge.ts";

let bridge: Bridge | null = null;
let served: HttpBridgeServer | null = null;
let dir: string | null = null;
const logs: string[] = [];

afterEach(async () => {
  await served?.close();
  served = null;
  await bridge?.close();
  bridge = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
  logs.length = 0;
});

async function serve(limits: { sessionIdleMs?: number; maxSessions?: number } = {}): Promise<HttpBridgeServer> {
  dir = mkdtempSync(join(tmpdir(), "codex-bridge-sessions-"));
  writeFileSync(join(dir, "config.toml"), "");
  const env = { CODEX_BRIDGE_STATE: ":memory:", CODEX_BRIDGE_CONFIG: join(dir, "config.toml"), CODEX_BIN: join(dir, "no-codex") };
  bridge = await assembleBridge(await getPlatform(), { env, cwd: dir, log: () => {} });
  served = await startHttpServer(bridge, {
    host: "127.0.0.1",
    bindAddress: "127.0.0.1",
    port: 0,
    allowNonLoopback: false,
    tokenFile: null,
    token: null,
    log: (_level, event, fields) => logs.push(`${event} ${JSON.stringify(fields)}`),
    ...limits,
  });
  return served;
}

type Json = Record<string, any>;

/** The JSON-RPC message in a JSON or single-event SSE body. */
function message(text: string): Json {
  const data = text.startsWith("data:") || text.includes("\ndata:") ? /^data: (.*)$/m.exec(text)![1]! : text;
  return JSON.parse(data) as Json;
}

async function initialize(s: HttpBridgeServer, id = 1): Promise<string> {
  const r = await rawPost(s.port, {}, { ...INIT_REQUEST, id });
  expect(r.status, r.text).toBe(200);
  const sid = r.headers["mcp-session-id"];
  expect(typeof sid).toBe("string");
  return sid as string;
}

const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });
const withSession = (sid: string) => ({ "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18" });


describe("serve --http sessions", () => {
  it("refuses a non-initialize POST without a session id (absent or empty) with 400, and an unknown id with 404", async () => {
    const s = await serve();
    const none = await rawPost(s.port, {}, list(7));
    expect(none.status).toBe(400);
    expect(message(none.text)).toMatchObject({ id: 7, error: { code: -32000 } });
    expect(message(none.text).error.message).toMatch(/Mcp-Session-Id header is required/);
    const empty = await rawPost(s.port, { "mcp-session-id": "" }, list(8));
    expect(empty.status).toBe(400);
    const unknown = await rawPost(s.port, withSession("0b7c0e0e-0000-4000-8000-000000000000"), list(9));
    expect(unknown.status).toBe(404);
    expect(s.sessionCount()).toBe(0);

    const sid = await initialize(s);
    const ok = await rawPost(s.port, withSession(sid), list(10));
    expect(ok.status).toBe(200);
    expect(message(ok.text).result.tools.map((t: { name: string }) => t.name)).toContain("codex_status");
  });

  it("closes sessions idle past the timeout and frees them (the count drops to zero; their ids get 404)", async () => {
    // Long enough that 40 initializes on a loaded machine all finish before the first one counts as idle.
    const s = await serve({ sessionIdleMs: 8000 });
    const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => initialize(s, i + 1)));
    expect(new Set(ids).size).toBe(40);
    expect(s.sessionCount()).toBe(40);
    await poll(() => s.sessionCount() === 0, { timeoutMs: 25_000, what: () => `idle sessions to close (still ${s.sessionCount()})` });
    const stale = await rawPost(s.port, withSession(ids[0]!), list(1));
    expect(stale.status).toBe(404);
    expect(logs.join("\n")).toMatch(/http_sessions_closed \{"sessions":\d+/);
  });

  it("keeps a session that is used, or has a request open, past the idle timeout", async () => {
    const s = await serve({ sessionIdleMs: 500 });
    const used = await initialize(s, 1);
    const streaming = await initialize(s, 2);
    // A GET stream held open is a connected client, not an idle one.
    const get = request({ host: "127.0.0.1", port: s.port, path: "/mcp", method: "GET", headers: { accept: "text/event-stream", ...withSession(streaming) } });
    const opened = new Promise<number>((resolve) => get.on("response", (res) => resolve(res.statusCode ?? 0)));
    get.on("error", () => {});
    get.end();
    expect(await opened).toBe(200);
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setTimeout(r, 200));
      expect((await rawPost(s.port, withSession(used), list(10 + i))).status).toBe(200);
    }
    expect(s.sessionCount()).toBe(2);
    get.destroy();
    // Once the stream closed and nobody uses either, both go.
    await poll(() => s.sessionCount() === 0, { timeoutMs: 5000, what: () => `both sessions to close (still ${s.sessionCount()})` });
  });

  it("at the cap, a new client is served by closing the least recently used idle session", async () => {
    const s = await serve({ maxSessions: 3 });
    const ids = [await initialize(s, 1), await initialize(s, 2), await initialize(s, 3)];
    // The first is used again, so the second is now the one used longest ago.
    expect((await rawPost(s.port, withSession(ids[0]!), list(4))).status).toBe(200);
    const fourth = await initialize(s, 5);
    expect(s.sessionCount()).toBe(3);
    expect((await rawPost(s.port, withSession(ids[1]!), list(6))).status).toBe(404);
    for (const live of [ids[0]!, ids[2]!, fourth]) expect((await rawPost(s.port, withSession(live), list(7))).status).toBe(200);
    expect(logs.join("\n")).toMatch(/http_session_evicted \{"sessions":3/);
  });

  it("never closes a session with a request in flight: when all are busy, one initialize more gets 503 with a JSON-RPC error", async () => {
    const s = await serve({ maxSessions: 2 });
    const ids = [await initialize(s, 1), await initialize(s, 2)];
    // A GET stream held open is a request in flight.
    const streams = ids.map((sid) => {
      const get = request({ host: "127.0.0.1", port: s.port, path: "/mcp", method: "GET", headers: { accept: "text/event-stream", ...withSession(sid) } });
      const opened = new Promise<number>((resolve) => get.on("response", (res) => resolve(res.statusCode ?? 0)));
      get.on("error", () => {});
      get.end();
      return { get, opened };
    });
    for (const x of streams) expect(await x.opened).toBe(200);
    const refused = await rawPost(s.port, {}, { ...INIT_REQUEST, id: 3 });
    expect(refused.status).toBe(503);
    expect(refused.headers["retry-after"]).toBeTruthy();
    const body = message(refused.text);
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 3, error: { code: -32000 } });
    expect(body.error.message).toMatch(/2 MCP sessions are open.*every one has a request in flight/);
    for (const sid of ids) expect((await rawPost(s.port, withSession(sid), list(4))).status).toBe(200);
    // Once one stream ends, that session is idle again and makes room.
    streams[0]!.get.destroy();
    await poll(async () => (await rawPost(s.port, {}, { ...INIT_REQUEST, id: 5 })).status === 200, { timeoutMs: 5000, what: "an initialize to be served once a stream closed" });
    streams[1]!.get.destroy();
  });

  it("300 clients that never close their sessions do not lock out the 301st (default cap of 100)", async () => {
    const s = await serve();
    for (let i = 1; i <= 300; i++) await initialize(s, i);
    expect(s.sessionCount()).toBe(DEFAULT_MAX_SESSIONS);
    const c = await connectHttpClient(s.url);
    expect((await c.client.listTools()).tools.length).toBeGreaterThan(5);
    await c.close();
  }, 120_000);

  it("answers a fractional numeric id with exactly that id, in a session and in the initialize itself", async () => {
    const s = await serve();
    const init = await rawPost(s.port, {}, { ...INIT_REQUEST, id: 0.5 });
    expect(init.status, init.text).toBe(200);
    expect(message(init.text)).toMatchObject({ id: 0.5, result: { serverInfo: { name: "codex-bridge" } } });
    const sid = init.headers["mcp-session-id"] as string;
    for (const [id, method] of [[1.5, "ping"], [2.25, "tools/list"], [100000000000000000000, "ping"]] as const) {
      const r = await rawPost(s.port, withSession(sid), { jsonrpc: "2.0", id, method });
      expect(r.status, r.text).toBe(200);
      const m = message(r.text);
      expect(m.id, r.text).toBe(id);
      expect(m.result, r.text).toBeDefined();
    }
  });

  it("an SDK client still connects, lists tools and closes its session", async () => {
    const s = await serve();
    const c = await connectHttpClient(s.url);
    expect((await c.client.listTools()).tools.length).toBeGreaterThan(5);
    expect(s.sessionCount()).toBe(1);
    await c.transport.terminateSession();
    await c.close();
    await poll(() => s.sessionCount() === 0, { timeoutMs: 2000, what: () => `sessions to close (still ${s.sessionCount()})` });
  });
});

describe("serve --http malformed JSON-RPC", () => {
  it("answers 400 with the JSON-RPC error: -32700 unparseable, -32600 invalid (id echoed when valid), -32602 bad params, batches refused", async () => {
    const s = await serve();
    const sid = await initialize(s);
    const rawText = (text: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; body: Json }>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port: s.port,
            path: "/mcp",
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
          },
          (res) => {
            let t = "";
            res.setEncoding("utf8").on("data", (d: string) => (t += d));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body: message(t) }));
          },
        );
        req.on("error", reject);
        req.end(text);
      });
    const cases: [string, number, string | number | null][] = [
      ["{not json", -32700, null],
      [`{"jsonrpc":"1.0","id":5,"method":"tools/list"}`, -32600, 5],
      [`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`, -32600, null],
      [`{"jsonrpc":"2.0","id":"p","method":"tools/list","params":"str"}`, -32602, "p"],
      [`[{"jsonrpc":"2.0","id":6,"method":"tools/list"}]`, -32600, null],
      [`{"jsonrpc":"2.0","method":"notifications/initialized","params":"str"}`, -32602, null],
    ];
    for (const headers of [{}, withSession(sid)]) {
      for (const [text, code, id] of cases) {
        const r = await rawText(text, headers);
        expect(r.status, text).toBe(400);
        expect(r.body, text).toMatchObject({ jsonrpc: "2.0", id, error: { code } });
      }
    }
    // The session is unharmed.
    const ok = await rawPost(s.port, withSession(sid), list(11));
    expect(ok.status).toBe(200);
  });
});

describe("session limits", () => {
  it("default to 10 minutes idle and 100 sessions, and parse from --session-idle-seconds and --max-sessions", () => {
    expect(DEFAULT_SESSION_IDLE_MS).toBe(10 * 60 * 1000);
    expect(DEFAULT_MAX_SESSIONS).toBe(100);
    expect(parseHttpArgs(["--http", "127.0.0.1:0"])).not.toHaveProperty("sessionIdleMs");
    expect(parseHttpArgs(["--http", "127.0.0.1:0", "--session-idle-seconds", "30", "--max-sessions=5"])).toMatchObject({ sessionIdleMs: 30_000, maxSessions: 5 });
    expect(() => parseHttpArgs(["--http", "127.0.0.1:0", "--session-idle-seconds", "0"])).toThrow(/--session-idle-seconds expects a whole number of at least 1/);
    expect(() => parseHttpArgs(["--http", "127.0.0.1:0", "--max-sessions", "lots"])).toThrow(/--max-sessions expects/);
  });

  it("SessionRegistry: reserve counts pending initializes, sweep skips busy sessions", async () => {
    let now = 0;
    const closed: string[] = [];
    const reg = new SessionRegistry<{ close(): Promise<void> }>({ idleMs: 100, maxSessions: 2 }, () => now);
    const mk = (id: string) => ({ close: async () => void closed.push(id) });
    const r1 = reg.reserve()!;
    const r2 = reg.reserve()!;
    expect(reg.reserve()).toBeNull();
    reg.add("a", mk("a"));
    r1();
    r2();
    reg.add("b", mk("b"));
    const lease = reg.use("b")!;
    now = 500;
    expect(reg.sweep()).toBe(1);
    expect(reg.has("a")).toBe(false);
    expect(reg.has("b")).toBe(true);
    lease.done();
    now = 550;
    expect(reg.sweep()).toBe(0);
    now = 700;
    expect(reg.sweep()).toBe(1);
    await new Promise((r) => setTimeout(r, 0));
    expect(closed).toEqual(["a", "b"]);
  });
});
