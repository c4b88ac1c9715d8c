// Adopting a native thread with codex_start thread_id against the real app-server: a thread Codex cannot resume is a
// tool error that says so and why, not a success for a task that already failed; the attempt stays on record.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { resultText, startHarness, type Harness } from "../../src/selftest/harness.ts";
import { sc, settled, startTask } from "../support/task-waits.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
});
afterAll(async () => {
  await h?.close();
});

describe("codex_start with thread_id", () => {
  for (const threadId of ["019a0000-0000-7000-8000-000000000000", "not-a-thread"]) {
    it(`refuses ${threadId} with an error naming thread_id and Codex's reason, and records the failed attempt`, async () => {
      const before = h.bridge.repo.recentTasks(100).length;
      const r = await h.call("codex_start", { project_id: "demo", prompt: "continue", thread_id: threadId });
      const text = resultText(r);
      expect(r.isError, text).toBe(true);
      expect(text).toContain(`thread_id: Codex could not resume thread "${threadId}"`);
      expect(text).toMatch(/thread\/resume failed: .+/);
      expect(text).toMatch(/codex_threads/);
      const tasks = h.bridge.repo.recentTasks(100);
      expect(tasks).toHaveLength(before + 1);
      const recorded = tasks[0]!;
      expect(text).toContain(recorded.id);
      const status = sc(await h.call("codex_status", { task_id: recorded.id }));
      expect(status.state).toBe("failed");
      expect(h.provider!.requests).toHaveLength(0);
    });
  }

  it("adopts a thread Codex knows", async () => {
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "first" }] }, { kind: "output", items: [{ type: "message", text: "second" }] });
    const first = await startTask(h, "start a thread");
    await settled(h, first);
    const threadId = sc(await h.call("codex_status", { task_id: first })).thread_id as string;
    const r = await h.call("codex_start", { project_id: "demo", prompt: "continue", thread_id: threadId });
    expect(r.isError, resultText(r)).toBeFalsy();
    expect((await settled(h, sc(r).task_id)).at(-1)!.state).toBe("completed");
  });
});
