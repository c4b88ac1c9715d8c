// runtime = "shared" against the REAL shared app-server (`codex app-server daemon`) in an isolated CODEX_HOME: the
// bridge attaches to it instead of spawning, a second raw client (standing in for the person's own Codex) sees the
// task's thread and events and can answer its approvals, and the server's loss and return are handled like a crash.
// The daemon is Unix-only; one daemon serves the whole file (its first start installs a copy of Codex: ~20 s).
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { resultText, startHarness, type Harness } from "../../src/selftest/harness.ts";
import { poll } from "../support/poll.ts";
import { alive, daemonCommand, daemonPid, RawSocketClient, stopDaemonCompletely, updaterPid, type DaemonStatus, type RpcMessage } from "../support/shared-codex.ts";
import { nextRequest, sc, settled, startTask, waitUntil } from "../support/task-waits.ts";

// Linux: the check that no second app-server runs reads /proc (the daemon itself also runs on macOS).
const unix = process.platform === "linux";
let h: Harness;
let home: string;
let codexBin: string;
const raws: RawSocketClient[] = [];
const updaters = new Set<number>();

/** Processes running an app-server (not the daemon's updater) on this home: the daemon's, and any the bridge spawned. */
function appServersOn(codexHome: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0");
      if (!cmd.includes("app-server") || cmd.includes("daemon")) continue;
      const env = readFileSync(`/proc/${d}/environ`, "utf8").split("\0");
      if (env.includes(`CODEX_HOME=${codexHome}`) || cmd[0]!.startsWith(codexHome)) out.push(Number(d));
    } catch {
      /* gone or not ours */
    }
  }
  return out;
}

async function raw(name: string): Promise<RawSocketClient> {
  const c = await RawSocketClient.connect(h.bridge.runtimes.default.sharedServer!.socket, name);
  raws.push(c);
  return c;
}

/** A task whose model request is out and never answered: the turn runs until the server goes away. */
async function hangingTask(prompt: string): Promise<string> {
  h.provider!.enqueue({ kind: "hang" });
  const requestsBefore = h.provider!.requests.length;
  const taskId = await startTask(h, prompt);
  // Once the model request is out, so the hang is not left queued for the recovery turn.
  await h.provider!.waitForRequests(requestsBefore + 1, 30_000);
  return taskId;
}

/** codex_send on a connection_lost task starts a recovery turn, which completes with `text`. */
async function recoveryTurn(taskId: string, message: string, text: string): Promise<void> {
  h.provider!.enqueue({ kind: "output", items: [{ type: "message", text }] });
  const sent = sc(await h.call("codex_send", { task_id: taskId, message }));
  expect(sent.action).toBe("recovery_turn");
  expect((await settled(h, taskId)).at(-1)!.state).toBe("completed");
  expect(sc(await h.call("codex_result", { task_id: taskId })).final_message).toBe(text);
}

/**
 * The person starts the server again as they would: once more when Codex's own start gave up first ("failed to
 * connect … Connection refused": its check of the new server can time out on a loaded machine; seen in a test run).
 */
async function personStarts(): Promise<{ answer: DaemonStatus; retried: boolean }> {
  const env = h.env as Record<string, string>;
  try {
    return { answer: await daemonCommand(codexBin, env, "start"), retried: false };
  } catch {
    await new Promise((r) => setTimeout(r, 2_000));
    return { answer: await daemonCommand(codexBin, env, "start"), retried: true };
  }
}

const turnDone = (threadId: string) => (m: RpcMessage) => m.method === "turn/completed" && m.params?.threadId === threadId;

describe.skipIf(!unix)("runtime = \"shared\" on the real shared app-server", () => {
  beforeAll(async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "untrusted", extraConfig: 'runtime = "shared"\nstart_shared = true' });
    home = h.env.CODEX_HOME!;
    codexBin = h.bridge.codexBin!;
  }, 60_000);

  afterAll(async () => {
    for (const c of raws) c.close();
    const pid = updaterPid(home);
    if (pid) updaters.add(pid);
    // The daemon first: closing the harness removes the home that holds its pid files.
    await stopDaemonCompletely(codexBin, h.env as Record<string, string>, home);
    for (const p of updaters) if (alive(p)) process.kill(p, "SIGKILL");
    await h?.close();
  }, 120_000);

  it("a task runs through the shared server the bridge started; a second client sees its thread and events; no second app-server", async () => {
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "first answer" }] });
    const taskId = await startTask(h, "hello through the shared server");
    const first = await settled(h, taskId);
    expect(first.at(-1)!.state).toBe("completed");
    const shared = h.bridge.runtimes.default.sharedServer!;
    expect(shared).toMatchObject({ started_by: "bridge", pid: daemonPid(home) });
    expect(h.bridge.runtimes.default.current!.pid).toBeNull();
    expect(appServersOn(home)).toEqual([daemonPid(home)]);
    const healthResult = await h.call("codex_health", {});
    expect(resultText(healthResult)).toContain(`attached to the shared app-server ${shared.socket} (pid ${daemonPid(home)}, started by the bridge)`);
    const health = sc(healthResult);
    expect(health.codex).toMatchObject({ runtime: "shared", server: { socket: shared.socket, started_by: "bridge" }, version: "0.171.0" });

    const threadId = sc(await h.call("codex_status", { task_id: taskId })).thread_id as string;
    const person = await raw("person");
    const resumed = await person.request("thread/resume", { threadId, excludeTurns: true });
    expect(resumed.error).toBeUndefined();
    const turns = await person.request("thread/turns/list", { threadId, itemsView: "full", sortDirection: "asc" });
    expect(JSON.stringify(turns.result)).toContain("first answer");

    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "second answer" }] });
    const sent = sc(await h.call("codex_send", { task_id: taskId, message: "again" }));
    expect(sent.action).toBe("new_turn");
    await person.waitFor(turnDone(threadId), 60_000, "turn/completed on the person's client");
    const seen = person.methods(threadId);
    expect(seen).toEqual(expect.arrayContaining(["turn/started", "item/started", "item/agentMessage/delta", "item/completed", "turn/completed"]));
    expect((await settled(h, taskId)).at(-1)!.state).toBe("completed");
    expect(appServersOn(home)).toEqual([daemonPid(home)]);
  }, 180_000);

  it("an approval answered in the other client is recorded as answered there; the supervisor's later answer is refused", async () => {
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "ready" }] });
    const taskId = await startTask(h, "prepare");
    await settled(h, taskId);
    const threadId = sc(await h.call("codex_status", { task_id: taskId })).thread_id as string;
    const person = await raw("person-approver");
    await person.request("thread/resume", { threadId, excludeTurns: true });

    h.provider!.enqueue({ kind: "output", items: [{ type: "exec", cmd: "echo from-shared > shared.txt" }] }, { kind: "output", items: [{ type: "message", text: "wrote it" }] });
    await h.call("codex_send", { task_id: taskId, message: "write shared.txt" });
    const req = await nextRequest(h, taskId);
    const theirs = await person.waitFor((m) => m.method === "item/commandExecution/requestApproval" && m.params?.threadId === threadId, 60_000, "the approval on the person's client");
    await person.respond(theirs.id!, { decision: "accept" });

    await poll(() => h.bridge.repo.interaction(req.request_id)!.state === "resolved", { timeoutMs: 30_000, what: () => "the bridge's request to settle" });
    expect(h.bridge.repo.interaction(req.request_id)).toMatchObject({ state: "resolved", answered_by: "another_client" });
    const late = await h.call("codex_respond", { task_id: taskId, request_id: req.request_id, action: "decline" });
    expect(late.isError).toBe(true);
    expect(resultText(late)).toMatch(/already settled: it was answered in another Codex client/);
    const done = await settled(h, taskId);
    expect(done.at(-1)!.state).toBe("completed");
    expect(done.at(-1)!.requests ?? []).toEqual([]);
    expect(readFileSync(`${h.projectDir}/shared.txt`, "utf8")).toBe("from-shared\n");
  }, 180_000);

  it("codex_threads lists the person's own threads on the shared server", async () => {
    const person = await raw("person-threads");
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "person's answer" }] });
    const t = await person.request("thread/start", { cwd: h.projectDir });
    const threadId = (t.result!.thread as { id: string }).id;
    await person.request("turn/start", { threadId, input: [{ type: "text", text: "a thread of the person's own", text_elements: [] }] });
    await person.waitFor(turnDone(threadId), 60_000, "the person's turn");
    const list = sc(await h.call("codex_threads", { action: "list", limit: 50 }));
    const mine = (list.threads as Array<{ thread_id: string; task_id?: string; preview: string }>).find((x) => x.thread_id === threadId);
    expect(mine).toMatchObject({ preview: expect.stringContaining("a thread of the person's own") });
    expect(mine!.task_id).toBeUndefined();
  }, 120_000);

  it("the server killed mid-turn gives connection_lost; once the person starts it again the bridge re-attaches and a recovery turn completes", async () => {
    const taskId = await hangingTask("hang until the server dies");
    await waitUntil(h, taskId, (s) => s.state === "running");
    const before = daemonPid(home)!;
    updaters.add(updaterPid(home)!);
    process.kill(before, "SIGKILL");
    const lost = await settled(h, taskId);
    expect(lost.at(-1)!.state).toBe("connection_lost");

    // The person brings it back; the bridge attaches to that one on next use (it does not start its own).
    const { answer: back, retried } = await personStarts();
    // After a start that gave up, the server it launched may be up by the second try: still the person's start.
    expect(retried ? ["started", "alreadyRunning"] : ["started"]).toContain(back.status);
    updaters.add(updaterPid(home)!);
    await recoveryTurn(taskId, "continue", "recovered");
    expect(daemonPid(home)).toBe(back.pid);
    expect(h.bridge.runtimes.default.sharedServer).toMatchObject({ started_by: "already running", pid: back.pid });
    expect(appServersOn(home)).toEqual([back.pid]);
  }, 240_000);

  it("a stopped shared server is reported as not answering; a forced restart drops only the connection, and once it runs again a recovery turn completes", async () => {
    const taskId = await hangingTask("think until the server is stopped");
    const pid = daemonPid(home)!;
    process.kill(pid, "SIGSTOP");
    try {
      const stoppedAt = Date.now();
      let health = "";
      while (!/has not answered for \d+ s/.test(health) && Date.now() - stoppedAt < 60_000) {
        health = resultText(await h.call("codex_health", {}));
        if (!/has not answered/.test(health)) await new Promise((r) => setTimeout(r, 500));
      }
      expect(health).toMatch(/has not answered for \d+ s/);
      const reportedMs = Date.now() - stoppedAt;
      const forcedAt = Date.now();
      const forced = await h.call("codex_runtime", { action: "restart", force: true });
      const forcedMs = Date.now() - forcedAt;
      // The person's server is not the bridge's to kill: it is still there, stopped, and the call did not hang on it.
      expect(alive(pid)).toBe(true);
      expect(forcedMs, resultText(forced)).toBeLessThan(60_000);
      expect(forced.isError).toBe(true);
      expect(resultText(forced)).toMatch(/dropped the connection to the shared Codex app-server \(pid \d+\), which the bridge never kills.*codex app-server daemon restart/s);
      console.log(`[shared] stopped server reported by codex_health after ${reportedMs} ms; forced restart answered in ${forcedMs} ms: ${resultText(forced).slice(0, 200)}`);
      const lost = await settled(h, taskId);
      expect(lost.at(-1)!.state).toBe("connection_lost");
    } finally {
      process.kill(pid, "SIGCONT");
    }
    await recoveryTurn(taskId, "carry on", "carried on");
    expect(daemonPid(home)).toBe(pid);
    expect(appServersOn(home)).toEqual([pid]);
  }, 240_000);

  it("the bridge exits; the shared server and its threads stay", async () => {
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "kept" }] });
    const taskId = await startTask(h, "keep me");
    await settled(h, taskId);
    const threadId = sc(await h.call("codex_status", { task_id: taskId })).thread_id as string;
    const socket = h.bridge.runtimes.default.sharedServer!.socket;
    const pid = daemonPid(home)!;
    // The bridge alone closes (its MCP client and the home stay for afterAll).
    await h.bridge.close();
    h.bridge.close = async () => {};
    expect(alive(pid)).toBe(true);
    const person = await RawSocketClient.connect(socket, "person-after");
    raws.push(person);
    const loaded = await person.request("thread/loaded/list", {});
    expect(loaded.result!.data).toContain(threadId);
    const turns = await person.request("thread/turns/list", { threadId, itemsView: "full", sortDirection: "asc" });
    expect(JSON.stringify(turns.result)).toContain("kept");
  }, 120_000);
});

describe.skipIf(!unix)("runtime = \"shared\" without a running server", () => {
  it("start_shared = false: the task is refused with how to start the server, and none is started", async () => {
    const lone = await startHarness(await getPlatform(), { mockProvider: true, extraConfig: 'runtime = "shared"' });
    try {
      const r = await lone.call("codex_start", { project_id: "demo", prompt: "nobody listens" });
      expect(sc(r)).toMatchObject({ state: "failed", failure: { code: "shared_server_unavailable", retryable: true } });
      expect(resultText(r)).toMatch(/no shared Codex app-server is running .*codex app-server daemon start.*start_shared = true/s);
      expect(daemonPid(lone.env.CODEX_HOME!)).toBeNull();
      expect(appServersOn(lone.env.CODEX_HOME!)).toEqual([]);
    } finally {
      await lone.close();
    }
  }, 60_000);
});
