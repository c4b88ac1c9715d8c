// The tunnel emulator's own tests, against a tiny SDK server that can sleep, report progress and misbehave.
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  TunnelDeadlineError,
  TunnelEmulator,
  TunnelFatalError,
  type JsonRpcResponse,
  type TunnelEmulatorOptions,
} from "../support/tunnel-emulator.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const BUN = path.join(ROOT, "node_modules", ".bin", "bun");
const FIXTURE = path.join(ROOT, "test", "support", "emulator-fixture-server.ts");

const started: TunnelEmulator[] = [];

async function startFixture(flags: string[] = [], opts: TunnelEmulatorOptions = {}): Promise<TunnelEmulator> {
  const t = await TunnelEmulator.spawn(BUN, [FIXTURE, ...flags], { cwd: ROOT, deadlineMs: 10_000, ...opts });
  started.push(t);
  return t;
}

afterEach(async () => {
  for (const t of started.splice(0)) {
    const report = await t.stop();
    // Only children these tests started, by pid, and only when the emulator (which never SIGKILLs) gave up.
    if (!report.exited && t.pid > 0) process.kill(t.pid, "SIGKILL");
  }
});

function toolText(res: JsonRpcResponse): Record<string, unknown> {
  if (!("result" in res)) throw new Error(`error response: ${JSON.stringify(res)}`);
  const result = res.result as { content: { type: string; text: string }[] };
  return JSON.parse(result.content[0].text) as Record<string, unknown>;
}

function call(name: string, args: Record<string, unknown>) {
  return { name, arguments: args };
}

describe("TunnelEmulator", () => {
  it("initializes and calls a tool, forwarding the id unchanged", async () => {
    const t = await startFixture();
    const init = await t.initialize();
    expect("result" in init && (init.result as { serverInfo: { name: string } }).serverInfo.name).toBe("emulator-fixture");
    const res = await t.request("tools/call", call("sleep", { ms: 1 }), { id: "conversation-a:7" });
    expect(res.id).toBe("conversation-a:7");
    expect(toolText(res).slept).toBe(1);
    expect(t.written.map((m) => m.method)).toEqual(["initialize", "notifications/initialized", "tools/call"]);
    expect(t.fatal).toBeNull();
  });

  it("writes two requests issued together one at a time", async () => {
    const t = await startFixture();
    await t.initialize();
    const [slow, fast] = await Promise.all([
      t.request("tools/call", call("sleep", { ms: 400 })),
      t.request("tools/call", call("sleep", { ms: 1 })),
    ]);
    // The server never saw two sleeps at once…
    expect(toolText(slow).concurrentAtStart).toBe(1);
    expect(toolText(fast).concurrentAtStart).toBe(1);
    expect(toolText(fast).maxRunning).toBe(1);
    // …because the second was written only after the first was answered.
    const order = t.events
      .filter((e) => (e.type === "write" || e.type === "response") && e.id === slow.id)
      .concat(t.events.filter((e) => (e.type === "write" || e.type === "response") && e.id === fast.id))
      .sort((a, b) => a.seq - b.seq)
      .map((e) => `${e.type}:${String("id" in e ? e.id : "")}`);
    expect(order).toEqual([`write:${slow.id}`, `response:${slow.id}`, `write:${fast.id}`, `response:${fast.id}`]);
  });

  it("retires an id at its deadline, moves on, and discards the late response", async () => {
    const t = await startFixture();
    await t.initialize();
    const slow = t.request("tools/call", call("sleep", { ms: 1500 }), { id: "slow", deadlineMs: 300 });
    const next = t.request("tools/call", call("sleep", { ms: 1 }), { id: "next" });
    await expect(slow).rejects.toBeInstanceOf(TunnelDeadlineError);
    await expect(slow).rejects.toMatchObject({ whileQueued: false, id: "slow" });
    const nextRes = await next;
    expect(toolText(nextRes).slept).toBe(1);
    expect(t.retiredIds).toEqual(["slow"]);
    // The server still finishes the retired call; its answer arrives and is dropped.
    await t.waitFor(() => t.lateResponses.length === 1);
    expect(t.lateResponses[0].id).toBe("slow");
    expect(t.unexpectedResponses).toEqual([]);
    expect(t.fatal).toBeNull();
  });

  it("drops a queued request whose deadline passes before its turn, without writing it", async () => {
    const t = await startFixture();
    await t.initialize();
    const blocker = t.request("tools/call", call("sleep", { ms: 2000 }), { id: "blocker", deadlineMs: 1000 });
    const queued = t.request("tools/call", call("sleep", { ms: 1 }), { id: "queued", deadlineMs: 200 });
    await expect(queued).rejects.toMatchObject({ whileQueued: true, id: "queued" });
    await expect(blocker).rejects.toBeInstanceOf(TunnelDeadlineError);
    expect(t.written.some((m) => m.id === "queued")).toBe(false);
    expect(t.events.some((e) => e.type === "dropped" && e.id === "queued")).toBe(true);
  });

  it("records progress notifications for the request's token", async () => {
    const t = await startFixture();
    await t.initialize();
    const res = await t.request("tools/call", call("progress", { steps: 3 }), { progressToken: "tok-1" });
    expect(toolText(res)).toEqual({ steps: 3, token: "tok-1" });
    const progress = t.notifications.filter((n) => n.method === "notifications/progress");
    expect(progress.map((n) => n.params?.progress)).toEqual([1, 2, 3]);
    expect(progress.every((n) => n.params?.progressToken === "tok-1")).toBe(true);
  });

  it("treats a server→client request (roots/list) as fatal and fails everything queued", async () => {
    const t = await startFixture();
    await t.initialize();
    const bad = t.request("tools/call", call("misbehave", { mode: "roots" }));
    const queued = t.request("tools/call", call("sleep", { ms: 1 }));
    await expect(bad).rejects.toBeInstanceOf(TunnelFatalError);
    await expect(queued).rejects.toBeInstanceOf(TunnelFatalError);
    expect(t.fatal?.reason).toBe("server sent a request: roots/list");
    await expect(t.request("tools/list")).rejects.toBeInstanceOf(TunnelFatalError);
    // The tunnel closed the child's stdin; the SDK server exits on its own.
    await t.exited;
    expect(t.stderr).toContain("fixture: stdin closed");
  });

  it("treats an SDK ping from the server as fatal", async () => {
    const t = await startFixture();
    await t.initialize();
    await expect(t.request("tools/call", call("misbehave", { mode: "ping" }))).rejects.toBeInstanceOf(TunnelFatalError);
    expect(t.fatal?.reason).toBe("server sent a request: ping");
  });

  it("treats a non-JSON stdout line as fatal", async () => {
    const t = await startFixture();
    await t.initialize();
    await expect(t.request("tools/call", call("misbehave", { mode: "garbage" }))).rejects.toBeInstanceOf(
      TunnelFatalError,
    );
    expect(t.fatal).toEqual({ reason: "non-JSON line on stdout", line: "this is not JSON" });
  });

  it("treats stray output before the first request as fatal too", async () => {
    const t = await startFixture(["--garbage-at-start"]);
    await expect(t.initialize()).rejects.toBeInstanceOf(TunnelFatalError);
    expect(t.fatal?.line).toBe("fixture starting up");
  });

  it("treats the child's exit as fatal", async () => {
    const t = await startFixture();
    await t.initialize();
    await expect(t.request("tools/call", call("misbehave", { mode: "exit" }))).rejects.toBeInstanceOf(TunnelFatalError);
    expect(t.fatal?.reason).toMatch(/child (exited|closed stdout)/);
  });

  it("forwards a second initialize mid-session and works without notifications/initialized", async () => {
    const t = await startFixture();
    await t.initialize({ sendInitialized: false });
    expect(toolText(await t.request("tools/call", call("sleep", { ms: 1 }))).slept).toBe(1);
    const again = await t.initialize({ sendInitialized: false });
    expect("result" in again).toBe(true);
    expect(toolText(await t.request("tools/call", call("sleep", { ms: 2 }))).slept).toBe(2);
    expect(t.written.map((m) => m.method)).toEqual(["initialize", "tools/call", "initialize", "tools/call"]);
    expect(t.fatal).toBeNull();
  });

  it("forwards tools/call to a fresh child that never saw initialize (tunnel restart)", async () => {
    const t = await startFixture();
    const res = await t.request("tools/call", call("sleep", { ms: 1 }), { id: 41 });
    expect(res.id).toBe(41);
    expect(toolText(res).slept).toBe(1);
    expect(t.written.map((m) => m.method)).toEqual(["tools/call"]);
  });

  it("stop() closes stdin and the child exits without a signal", async () => {
    const t = await startFixture();
    await t.initialize();
    const report = await t.stop();
    expect(report).toMatchObject({ exited: true, sentSigterm: false, signal: null });
    expect(report.exitMs).not.toBeNull();
  });

  it("stop() sends SIGTERM to a child that outlives stdin EOF", async () => {
    const t = await startFixture(["--linger"], { stopGraceMs: 300 });
    await t.initialize();
    const report = await t.stop();
    expect(report).toMatchObject({ exited: true, sentSigterm: true, signal: "SIGTERM" });
  });

  it("stop() never sends SIGKILL: a child ignoring SIGTERM is reported alive", async () => {
    const t = await startFixture(["--linger", "--ignore-sigterm"], { stopGraceMs: 200, termWaitMs: 500 });
    await t.initialize();
    const report = await t.stop();
    expect(report).toMatchObject({ exited: false, sentSigterm: true, exitMs: null });
    expect(() => process.kill(t.pid, 0)).not.toThrow();
    expect(t.stderr).toContain("fixture: ignoring SIGTERM");
  });
});
