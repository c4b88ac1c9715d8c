// Task lifecycle against the REAL app-server: streaming, steer, cancel, crash recovery, bridge restart, UNKNOWN, redaction.
import { execFileSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { assembleBridge } from "../../src/app/assemble.ts";
import { resultText, startHarness, type Harness } from "../../src/selftest/harness.ts";
import { userTexts } from "../../src/selftest/mock-provider/index.ts";
import { poll } from "../support/poll.ts";
import { olderThanPinnedCodex } from "../support/real-codex.ts";
import { sc, settled, type S } from "../support/task-waits.ts";

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

function pgrep(pattern: string): string {
  try {
    return execFileSync("pgrep", ["-f", pattern], { encoding: "utf8" }).trim();
  } catch {
    return "";
  }
}

const olderThanPinned = olderThanPinnedCodex();

describe("task lifecycle on the real Codex", () => {
  it("a 5,000-delta stream arrives whole, in far fewer stored chunks, which go once the message is complete", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    const text = Array.from({ length: 5000 }, (_, i) => `w${i}`).join(" ");
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text, deltas: 5000 }] });
    const id = sc(await h.call("codex_start", { project_id: "demo", prompt: "stream" })).task_id;
    const raw = await settled(h, id, { mode: "raw" });
    expect(raw.at(-1)!.state).toBe("completed");
    // A raw waiter sees the chunks stored while the message streams, in order: the start of the text.
    const deltas = raw.flatMap((a) => (a.events ?? []).filter((e: S) => e.kind === "message_delta"));
    expect(text.startsWith(deltas.map((e: S) => e.data.text).join(""))).toBe(true);
    expect(deltas.length).toBeLessThan(1000);
    // Complete, the message is stored once: the answer, not its chunks as well.
    const result = sc(await h.call("codex_result", { task_id: id }));
    expect(result.final_message).toBe(text);
    const stored = sc(await h.call("codex_inspect", { task_id: id, kind: "raw_event", limit: 100 }));
    expect((stored.items as S[]).filter((e) => e.kind === "message_delta")).toEqual([]);
  });

  it.skipIf(olderThanPinned)("codex_wait wakes when a message arrives, long before its timeout (skipped on a Codex older than the pinned one: it steers only after the current answer)", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.enqueue({ kind: "hang", partialText: "" });
    const id = sc(await h.call("codex_start", { project_id: "demo", prompt: "hang" })).task_id;
    const first = sc(await h.call("codex_wait", { task_id: id, timeout_seconds: 1 }));
    // No news yet: only the state and what it is doing; the automatic cursor stays where it was.
    expect(first).toEqual({ state: "running", ran_s: expect.any(Number) });
    // A steer re-issues the model request; the new answer has a commentary message then a command.
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "working on it" }, { type: "exec", cmd: "sleep 1; echo x" }] }, { kind: "output", items: [{ type: "message", text: "done" }] });
    const waiting = h.call("codex_wait", { task_id: id, timeout_seconds: 60 });
    await h.call("codex_send", { task_id: id, message: "please continue" });
    const t0 = Date.now();
    const woke = sc(await waiting);
    expect(woke.messages).toContain("working on it");
    // Woken by the message, not by the 60 s timeout (generous bound: the sleep in the command alone is 1 s).
    expect(Date.now() - t0).toBeLessThan(30_000);
    await settled(h, id);
  });

  it.skipIf(olderThanPinned)("steering mid-stream reaches the model within the same turn (skipped on a Codex older than the pinned one: it steers only after the current answer)", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.enqueue({ kind: "hang", partialText: "thinking about" }, { kind: "output", items: [{ type: "message", text: "steered answer" }] });
    const start = sc(await h.call("codex_start", { project_id: "demo", prompt: "original request" }));
    await h.provider!.waitForRequests(1, 20_000);
    const sent = await h.call("codex_send", { task_id: start.task_id, message: "STEER: use tabs" });
    expect(sc(sent).action).toBe("steered");
    const answers = await settled(h, start.task_id);
    expect(answers.at(-1)!.state).toBe("completed");
    const last = h.provider!.requests.at(-1)!;
    expect(userTexts(last).join("\n")).toContain("STEER: use tabs");
    const status = sc(await h.call("codex_status", { task_id: start.task_id }));
    expect(status.turn_id).toBe(start.turn_id);
    expect(sc(await h.call("codex_result", { task_id: start.task_id })).final_message).toBe("steered answer");
  });

  it("cancel during a long command ends interrupted and the command's process is gone", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    const secs = 300 + Math.floor(Math.random() * 600);
    const pattern = `^sleep ${secs}$`;
    h.provider!.enqueue({ kind: "output", items: [{ type: "exec", cmd: `sleep ${secs}`, yieldTimeMs: 250 }] }, { kind: "hang" });
    const id = sc(await h.call("codex_start", { project_id: "demo", prompt: "sleep" })).task_id;
    await poll(() => pgrep(pattern), { timeoutMs: 20_000, what: `the command "sleep ${secs}" to start` });
    const r = await h.call("codex_cancel", { task_id: id, reason: "too slow" });
    expect(r.isError, resultText(r)).toBeFalsy();
    expect(sc(r).state).toBe("interrupted");
    await poll(() => pgrep(pattern) === "", { timeoutMs: 5000, what: () => `the command "sleep ${secs}" to end (pids: ${pgrep(pattern)})` });
  });

  it("app-server death gives connection_lost; codex_send completes a recovery turn on the same thread", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.enqueue({ kind: "hang" });
    const start = sc(await h.call("codex_start", { project_id: "demo", prompt: "first" }));
    await h.provider!.waitForRequests(1, 20_000);
    h.bridge.runtimes.default.current!.kill("SIGKILL");
    const lost = await settled(h, start.task_id);
    expect(lost.at(-1)!.state).toBe("connection_lost");
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "recovered" }] });
    const sent = sc(await h.call("codex_send", { task_id: start.task_id, message: "continue after the crash" }));
    expect(sent.action).toBe("recovery_turn");
    expect(sent.thread_id).toBe(start.thread_id);
    const after = await settled(h, start.task_id);
    expect(after.at(-1)!.state).toBe("completed");
    expect(sc(await h.call("codex_result", { task_id: start.task_id })).final_message).toBe("recovered");
  });

  it("a restarted bridge shows the same tasks and events", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "persisted answer" }] });
    const id = sc(await h.call("codex_start", { project_id: "demo", prompt: "persist me" })).task_id;
    await settled(h, id);
    const before = h.bridge.repo.events(id, 0, 1000).length;
    await h.bridge.close();
    const again = await assembleBridge(await getPlatform(), { env: h.env, cwd: h.root, log: () => {} });
    try {
      const t = again.repo.task(id)!;
      expect(t.state).toBe("completed");
      expect(t.final_message).toBe("persisted answer");
      expect(again.repo.events(id, 0, 1000).length).toBe(before);
    } finally {
      await again.close();
    }
    h.bridge.close = async () => {};
  });

  it("a turn/start that is never acknowledged is UNKNOWN and not sent twice", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    await h.bridge.close();
    const log = join(h.root, "fake.log");
    const wrapper = join(h.root, "fake-codex");
    writeFileSync(wrapper, `#!/bin/sh\nexec "${join(process.cwd(), "node_modules", ".bin", "bun")}" "${join(process.cwd(), "test", "support", "fake-app-server.ts")}"\n`);
    chmodSync(wrapper, 0o755);
    const b = await assembleBridge(await getPlatform(), {
      env: { ...h.env, CODEX_BIN: wrapper, FAKE_MODE: "no-turn-ack", FAKE_LOG: log, CODEX_BRIDGE_ACK_TIMEOUT_MS: "400" },
      cwd: h.root,
      log: () => {},
    });
    try {
      const t = await b.domain.start({ project_id: "demo", prompt: "never acked" });
      expect(t.state).toBe("unknown");
      expect(t.unknown?.method).toBe("turn/start");
      const answer = await b.service.wait({ task_id: t.id, timeout_seconds: 1 }, { connectionKey: "test" });
      expect(answer.tasks[0]!.delta_summary?.unresolved?.join(" ")).toMatch(/turn\/start outcome UNKNOWN/);
      await expect(b.domain.send({ task_id: t.id, message: "again" })).rejects.toThrow(/UNKNOWN/);
      await new Promise((r) => setTimeout(r, 300));
      const sentTurns = readFileSync(log, "utf8").split("\n").filter((l) => l.includes('"turn/start"'));
      expect(sentTurns).toHaveLength(1);
    } finally {
      await b.close();
    }
    h.bridge.close = async () => {};
  });

  it("secrets in command output never reach SQLite or a tool result", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    const secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    h.provider!.enqueue({ kind: "output", items: [{ type: "exec", cmd: `echo token=${secret}` }] }, { kind: "output", items: [{ type: "message", text: `I saw ${secret}` }] });
    const id = sc(await h.call("codex_start", { project_id: "demo", prompt: "leak" })).task_id;
    const waits = await settled(h, id, { mode: "raw" });
    const result = await h.call("codex_result", { task_id: id });
    const output = await h.call("codex_inspect", { task_id: id, kind: "commands" });
    const seen = JSON.stringify([waits, result, output]);
    expect(seen).not.toContain(secret);
    expect(seen).toContain("REDACTED");
    const db = readFileSync(join(h.root, "state.sqlite3"));
    expect(db.includes(Buffer.from(secret))).toBe(false);
  });
});

describe("threads stay loaded and restarts settle what was in flight", () => {
  it("continuing a task on the same app-server never resumes the thread again", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    const client = h.bridge.runtimes.default;
    const methods: string[] = [];
    const c = await client.ensure();
    const request = c.request.bind(c);
    c.request = ((method: string, params?: unknown, opts?: { timeoutMs?: number }) => {
      methods.push(method);
      return request(method, params, opts);
    }) as typeof c.request;
    h.provider!.enqueue(
      { kind: "output", items: [{ type: "message", text: "one" }] },
      { kind: "output", items: [{ type: "message", text: "two" }] },
      { kind: "output", items: [{ type: "message", text: "three" }] },
    );
    const id = sc(await h.call("codex_start", { project_id: "demo", prompt: "turn 1" })).task_id;
    await settled(h, id);
    for (const msg of ["turn 2", "turn 3"]) {
      expect(sc(await h.call("codex_send", { task_id: id, message: msg })).action).toBe("new_turn");
      await settled(h, id);
    }
    expect(methods.filter((m) => m === "turn/start")).toHaveLength(3);
    expect(methods).not.toContain("thread/resume");
    expect(sc(await h.call("codex_result", { task_id: id })).final_message).toBe("three");
  });

  it("after a bridge restart, a request left pending is stale and an answer in flight is uncertain", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "untrusted" });
    h.provider!.enqueue({ kind: "output", items: [{ type: "exec", cmd: "echo a > a.txt" }] });
    const id = sc(await h.call("codex_start", { project_id: "demo", prompt: "ask" })).task_id;
    const requestId: string = await poll(async () => sc(await h!.call("codex_wait", { task_id: id, timeout_seconds: 5 })).requests?.[0]?.request_id, {
      timeoutMs: 20_000,
      what: "the command approval request",
    });
    // A second interaction, recorded as written but never confirmed, stands for an answer cut off by the crash.
    const repo = h.bridge.repo;
    const pending = repo.interaction(requestId)!;
    repo.insertInteraction({ ...pending, id: "r_00000000ff", rpc_id: 99, state: "submitted" });
    await h.bridge.close();
    const again = await assembleBridge(await getPlatform(), { env: h.env, cwd: h.root, log: () => {} });
    try {
      expect(again.repo.task(id)!.state).toBe("connection_lost");
      expect(again.repo.interaction(requestId)!.state).toBe("stale");
      expect(again.repo.interaction("r_00000000ff")!.state).toBe("uncertain");
      await expect(again.domain.respond({ task_id: id, request_id: requestId, action: "accept" })).rejects.toThrow(/stale/);
    } finally {
      await again.close();
    }
    h.bridge.close = async () => {};
  });
});
