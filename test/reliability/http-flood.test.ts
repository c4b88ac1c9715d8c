// Reliability: `serve --http` under a flood of sessions and slow connections. At the cap the least recently used idle
// session makes room (503 only while every session is busy), idle ones are reclaimed (their ids answer 404 and the capacity comes back), bad Host/Origin/size/session requests
// are refused and counted, memory stays bounded, and a normal client is served while hundreds of slow sockets hang on.
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { prepareBridge, type BridgeSetup } from "../support/bridge-process.ts";
import { INIT_REQUEST, rawPost, startHttpBridge, type HttpBridge } from "../support/http-bridge.ts";
import { killQuietly, recordFigures, scale } from "../support/reliability.ts";

let setup: BridgeSetup | null = null;
let bridge: HttpBridge | null = null;
const sockets: Socket[] = [];
afterAll(async () => {
  for (const s of sockets) s.destroy();
  killQuietly(bridge?.pid);
  await setup?.cleanup();
});

const INITIALIZES = scale(1_000, 200);
const SLOW_SOCKETS = scale(200, 60);
const MAX_SESSIONS = 100;
const IDLE_SECONDS = 8;

const rssMb = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
};
const withSession = (sid: string) => ({ "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18" });
const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });

/** Runs `jobs` with at most `width` at a time. */
async function pool<T>(jobs: (() => Promise<T>)[], width: number): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]!();
    }
  }));
  return out;
}

describe("reliability: HTTP flood", () => {
  it(`${INITIALIZES} initializes and ${SLOW_SOCKETS} slow connections: memory bounded, sessions reclaimed, refusals counted`, async () => {
    setup = await prepareBridge();
    const b = await startHttpBridge(setup.env, ["--http", "127.0.0.1:0", "--session-idle-seconds", String(IDLE_SECONDS), "--max-sessions", String(MAX_SESSIONS)]);
    bridge = b;
    const first = await rawPost(b.port, {}, INIT_REQUEST);
    expect(first.status).toBe(200);
    const baseline = rssMb(b.pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(b.pid))), 100);

    // The flood.
    const floodStart = Date.now();
    const statuses = await pool(Array.from({ length: INITIALIZES }, (_, i) => async () => {
      const r = await rawPost(b.port, {}, { ...INIT_REQUEST, id: i + 2 }).catch(() => null);
      return { status: r?.status ?? 0, sid: r?.headers["mcp-session-id"] as string | undefined };
    }), 25);
    const floodMs = Date.now() - floodStart;
    const accepted = statuses.filter((s) => s.status === 200);
    const busy = statuses.filter((s) => s.status === 503).length;
    const other = statuses.length - accepted.length - busy;
    const afterFlood = rssMb(b.pid);

    // Reclaimed: the newest sessions are live now; once idle past the timeout their ids are gone and new ones are
    // accepted again.
    const sample = accepted.slice(-20).map((s) => s.sid!);
    const liveNow = (await Promise.all(sample.map((sid, j) => rawPost(b.port, withSession(sid), list(j)).then((r) => r.status)))).filter((c) => c === 200).length;
    // Touching them would keep them alive: wait out the idle timeout and a sweep, then ask once.
    const waitStart = Date.now();
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000 + 3000));
    const gone = (await Promise.all(sample.map((sid, j) => rawPost(b.port, withSession(sid), list(j)).then((r) => r.status)))).filter((c) => c === 404).length;
    const reclaimedMs = gone === sample.length ? Date.now() - waitStart : -1;
    const fresh = await rawPost(b.port, {}, INIT_REQUEST);
    const afterReclaim = rssMb(b.pid);

    // Refused on purpose.
    const refusals = [
      await rawPost(b.port, { host: "evil.example:80" }, INIT_REQUEST),
      await rawPost(b.port, { origin: "https://evil.example" }, INIT_REQUEST),
      await rawPost(b.port, {}, list(1)),
      await rawPost(b.port, { "mcp-session-id": "" }, list(2)),
      await rawPost(b.port, withSession("00000000-0000-4000-8000-000000000000"), list(3)),
      await rawPost(b.port, {}, { jsonrpc: "2.0", id: 4, method: "initialize", params: { pad: "x".repeat(50 * 1024 * 1024) } }).catch(() => ({ status: 413, text: "connection cut", headers: {} })),
    ].map((r) => r.status);

    // Slow connections: half send a request head one byte a second, half connect and say nothing.
    for (let i = 0; i < SLOW_SOCKETS; i++) {
      const s = connect(b.port, "127.0.0.1");
      s.on("error", () => {});
      sockets.push(s);
      if (i % 2 === 0) s.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${b.port}\r\n`);
    }
    const drip = setInterval(() => sockets.forEach((s, i) => i % 2 === 0 && !s.destroyed && s.write("X")), 1000);
    await new Promise((r) => setTimeout(r, 1500));
    const during: number[] = [];
    let servedDuring = 0;
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      const init = await rawPost(b.port, {}, INIT_REQUEST);
      const sid = init.headers["mcp-session-id"] as string | undefined;
      const tools = sid ? await rawPost(b.port, withSession(sid), list(9)) : { status: 0 };
      during.push(Date.now() - started);
      if (init.status === 200 && tools.status === 200) servedDuring++;
    }
    clearInterval(drip);
    for (const s of sockets.splice(0)) s.destroy();
    clearInterval(sampler);
    const end = rssMb(b.pid);

    const stopped = await b.stop(5_000);
    bridge = null;
    recordFigures("http flood", {
      initializes: INITIALIZES,
      accepted: accepted.length,
      "flood ms": floodMs,
      "refused busy (503)": busy,
      "newest sessions live after the flood": `${liveNow} of ${sample.length}`,
      "other answers": other,
      "sessions reclaimed within ms": reclaimedMs,
      "idle sweeps logged": (b.stderr().match(/closed \d+ idle session/g) ?? []).length,
      "refused bad requests": refusals.filter((s) => s >= 400).length,
      "slow sockets": SLOW_SOCKETS,
      "served during slow sockets": `${servedDuring} of 5 (max ${Math.max(...during)} ms)`,
      "RSS MB baseline/peak/after flood/after reclaim/end": `${baseline}/${peak}/${afterFlood}/${afterReclaim}/${end}`,
      "stopped on SIGTERM": stopped.killed ? "no (killed)" : `exit ${stopped.code}`,
      hangs: 5 - servedDuring,
    });
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.length + busy).toBe(INITIALIZES);
    expect(liveNow).toBe(sample.length);
    expect(reclaimedMs).toBeGreaterThanOrEqual(0);
    expect(fresh.status).toBe(200);
    expect(refusals).toEqual([403, 403, 400, 400, 404, 413]);
    expect(servedDuring).toBe(5);
    expect(peak - baseline, `RSS grew from ${baseline} to ${peak} MB`).toBeLessThan(200);
    expect(stopped.killed).toBe(false);
  });
});
