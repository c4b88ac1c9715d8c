// codex_wait and codex_runtime on the REAL Codex (loopback mock model): an idle wait costs under 100 characters, its
// progress notifications say what the task is doing, one wait follows several tasks, a second automatic wait on the
// same task is refused, and a managed restart opens a new generation in which older cursors are reported lost.
import { afterEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { resultText, startHarness, type Harness } from "../../src/selftest/harness.ts";
import { sc, settled, startTask, type S } from "../support/task-waits.ts";

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** Characters a supervisor reads from one result: its text and its structured content. */
const read = (r: { content: unknown; structuredContent?: unknown }) => resultText(r as Parameters<typeof resultText>[0]).length + JSON.stringify(r.structuredContent ?? {}).length;

describe("idle waits", () => {
  it("a wait with no news is at most 100 characters, thinking or running a command, and its progress says the same", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    const gate = `${h.root}/gate`;
    h.provider!.enqueue(
      { kind: "output", items: [{ type: "exec", cmd: `while [ ! -f '${gate}' ]; do sleep 0.1; done; echo released`, yieldTimeMs: 30_000 }] },
      { kind: "output", items: [{ type: "message", text: "done" }] },
    );
    const id = await startTask(h, "wait on the gate");
    // The first answer carries the command's start (routine, so not before the timeout); then nothing new happens.
    let idle: S | null = null;
    let size = 0;
    for (let i = 0; i < 10 && !idle; i++) {
      const r = await h.call("codex_wait", { task_id: id, timeout_seconds: 1 });
      const s = sc(r);
      if (s.command) {
        idle = s;
        size = read(r);
        expect(resultText(r)).toMatch(/^running \d+s: \$ while \[ ! -f '\/…$/);
      }
    }
    expect(idle, "no wait reported the running command").not.toBeNull();
    expect(Object.keys(idle!).sort()).toEqual(["command", "ran_s", "state"]);
    expect(size).toBeLessThanOrEqual(100);

    const progress: string[] = [];
    const r = await h.client.callTool({ name: "codex_wait", arguments: { task_id: id, timeout_seconds: 6 } }, undefined, {
      onprogress: (p) => progress.push(String(p.message)),
      timeout: 30_000,
    });
    expect(read(r as Parameters<typeof read>[0])).toBeLessThanOrEqual(100);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatch(/^running \d+s: \$ while \[ ! -f '\/…$/);

    const { writeFileSync } = await import("node:fs");
    writeFileSync(gate, "open");
    const answers = await settled(h, id);
    expect(answers.flatMap((a) => a.delta_summary?.commands ?? [])).toEqual([expect.stringMatching(/echo released → 0$/)]);
  });

  it("while Codex is thinking, the idle answer says so in a few dozen characters", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.enqueue({ kind: "hang" });
    const id = await startTask(h, "think");
    await h.provider!.waitForRequests(1, 20_000);
    const r = await h.call("codex_wait", { task_id: id, timeout_seconds: 1 });
    expect(resultText(r)).toMatch(/^running \d+s, thinking$/);
    expect(sc(r)).toEqual({ state: "running", ran_s: expect.any(Number) });
    expect(read(r)).toBeLessThanOrEqual(100);
    await h.call("codex_cancel", { task_id: id });
  });
});

describe("one wait for several tasks", () => {
  it("without an id it follows the tasks this connection started, returns at the first news, and labels it", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.enqueue({ kind: "hang" });
    const quiet = await startTask(h, "stay quiet");
    await h.provider!.waitForRequests(1, 20_000);
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "second task speaks", deltas: 3 }, { type: "exec", cmd: "true" }] }, { kind: "output", items: [{ type: "message", text: "second done" }] });
    const talker = await startTask(h, "speak");
    const seen: S[] = [];
    for (let i = 0; i < 20 && !seen.some((t) => t.task_id === talker && t.state === "completed"); i++) {
      const s = sc(await h.call("codex_wait", { timeout_seconds: 5 }));
      seen.push(...(s.tasks ?? []));
    }
    const talked = seen.filter((t) => t.task_id === talker);
    expect(talked.flatMap((t) => t.messages ?? [])).toEqual(["second task speaks"]);
    expect(talked.at(-1)!.state).toBe("completed");
    expect(talked.at(-1)!.delta_summary.next).toEqual(["codex_result"]);
    expect(seen.filter((t) => t.task_id === quiet)).toEqual([]);

    // The quiet one alone now: one line, naming it.
    const idle = await h.call("codex_wait", { task_ids: [quiet, talker], timeout_seconds: 1 });
    expect(resultText(idle)).toBe(`no news: ${quiet} running; ${talker} completed`);
    expect(sc(idle)).toEqual({ running: 1, completed: 1 });
    await h.call("codex_cancel", { task_id: quiet });
  });

  it("refuses a second concurrent automatic wait on the same task, and answers the first", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.enqueue({ kind: "hang" });
    const id = await startTask(h, "hang");
    await h.provider!.waitForRequests(1, 20_000);
    const first = h.call("codex_wait", { task_id: id, timeout_seconds: 3 });
    let second = await h.call("codex_wait", { task_id: id, timeout_seconds: 1 });
    // The first call may not have reached the bridge yet; it has once a second one is refused.
    for (let i = 0; i < 20 && !second.isError; i++) second = await h.call("codex_wait", { task_id: id, timeout_seconds: 1 });
    expect(second.isError).toBe(true);
    expect(resultText(second)).toMatch(new RegExp(`another codex_wait on ${id} is still running on this connection`));
    expect((await first).isError).toBeFalsy();
    await h.call("codex_cancel", { task_id: id });
  });
});

describe("app-server generations", () => {
  it("restart is refused while a request is in flight and reported in status; after it, an old cursor is lost with the re-anchor instruction", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "first", deltas: 2 }, { type: "exec", cmd: "true" }] }, { kind: "output", items: [{ type: "message", text: "first done" }] });
    const id = await startTask(h, "one");
    const early = sc(await h.call("codex_wait", { task_id: id, mode: "raw", timeout_seconds: 20 }));
    const oldCursor = early.next_cursor as string;
    expect(oldCursor).toMatch(new RegExp(`^${id}:\\d+$`));
    await settled(h, id);

    // A request on its way to the app-server (sent, not yet answered) blocks a restart and shows in status.
    const client = await h.bridge.runtimes.default.ensure();
    const inFlight = client.request("model/list", {});
    const status = await h.bridge.service.runtime("status");
    expect(status).toMatchObject({ in_flight: 1, generation: 0 });
    await expect(h.bridge.service.runtime("restart")).rejects.toThrow(/restart refused: .*1 request\(s\) in flight/);
    await inFlight;

    const restarted = sc(await h.call("codex_runtime", { action: "restart" }));
    expect(restarted).toMatchObject({ generation: 1, in_flight: 0 });
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "after the restart" }] });
    expect(sc(await h.call("codex_send", { task_id: id, message: "again" })).action).toBe("new_turn");

    for (const args of [{ task_id: id, cursor: oldCursor }, { task_id: id }]) {
      const r = await h.call("codex_wait", { ...args, timeout_seconds: 20 });
      const s = sc(r);
      expect(s.cursor_lost, JSON.stringify(s)).toBe(true);
      expect(s.reanchor).toMatch(/restarted.*codex_checkpoint read/);
      expect(s.next_cursor).toMatch(new RegExp(`^${id}:g1:\\d+$`));
      expect(resultText(r)).toContain("cursor lost:");
      // Nothing from before the restart is replayed.
      expect(JSON.stringify(s)).not.toContain("first");
    }
    const after = await settled(h, id, { mode: "supervision" });
    expect(after.every((a) => a.cursor_lost === undefined)).toBe(true);
    expect(sc(await h.call("codex_result", { task_id: id })).final_message).toBe("after the restart");
  });
});
