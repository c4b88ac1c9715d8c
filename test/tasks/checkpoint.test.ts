// The supervisory checkpoint: keyed by native thread or task, goal and constraints set once, state with its previous
// value, every limit named, and copies of prompts, messages, answers or command output refused.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { redactor } from "../../src/policy/redact.ts";
import { getPlatform } from "../../platform/index.ts";
import { BridgeError } from "../../src/bridge-error.ts";
import { migrate } from "../../src/store/migrate.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { openStateDatabase, type OpenedStore } from "../../src/store/open.ts";
import { Repo } from "../../src/store/repo.ts";
import { checkpoint, CHECKPOINT_FIELD_MAX_CHARS, CHECKPOINT_MAX_CHARS } from "../../src/tasks/checkpoint.ts";

let store: OpenedStore;
let repo: Repo;
const TASK = "t_00000000aa";
const BARE = "t_00000000bb";
const THREAD = "019a0000-0000-7000-8000-000000000001";
const PROMPT = "Refactor the billing module so that every invoice total is computed from line items in integer cents, never floats; keep the public API of billing.ts unchanged and add tests for rounding of discounts.";
const FINAL = "I moved the invoice arithmetic into integer cents across billing.ts and its helpers, added eleven rounding tests for discounts and taxes, and the public API is unchanged; npm test passes locally with all suites green.";
const OUTPUT = " PASS  test/billing.test.ts (11 tests) 23ms\n PASS  test/tax.test.ts (4 tests) 9ms\n Test Files  2 passed (2)\n      Tests  15 passed (15)\n   Start at  10:02:11\n   Duration  1.21s (transform 300ms, setup 0ms, collect 400ms, tests 32ms)";

beforeEach(async () => {
  store = await openStateDatabase(await getPlatform(), ":memory:", MIGRATIONS);
  repo = new Repo(store.db, redactor);
  repo.insertTask({ id: TASK, project_id: "p", profile_id: "default", prompt: PROMPT, relay: false, model: null, effort: null, state: "completed" });
  repo.updateTask(TASK, { thread_id: THREAD, turn_id: "turn-1", final_message: FINAL });
  repo.upsertItem({ task_id: TASK, item_id: "call_1", turn_id: "turn-1", type: "commandExecution", status: "completed", data: { command: "npm test", output: OUTPUT } });
  repo.insertTask({ id: BARE, project_id: "p", profile_id: "default", prompt: "x", relay: false, model: null, effort: null, state: "failed" });
});
afterEach(() => store.close());

const update = (fields: Record<string, string>, key: { task_id?: string; thread_id?: string } = { task_id: TASK }) => checkpoint(repo, { action: "update", ...key, ...fields });
function refusal(fn: () => unknown): BridgeError {
  try {
    fn();
  } catch (err) {
    if (err instanceof BridgeError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("codex_checkpoint", () => {
  it("is one record per native thread, reachable by task_id or thread_id", () => {
    update({ goal: "billing in integer cents", next_step: "review the rounding tests" });
    const byThread = checkpoint(repo, { action: "read", thread_id: THREAD });
    expect(byThread.anchor).toEqual({ task_id: TASK, thread_id: THREAD });
    expect(byThread.checkpoint).toMatchObject({ goal: "billing in integer cents", next_step: "review the rounding tests" });
    // A thread the bridge never started has its own record.
    update({ goal: "audit an old thread" }, { thread_id: "019a0000-0000-7000-8000-0000000000ff" });
    expect(checkpoint(repo, { action: "read", thread_id: "019a0000-0000-7000-8000-0000000000ff" }).checkpoint.goal).toBe("audit an old thread");
    // A task without a thread is keyed by the task.
    update({ state: "start failed; retry with another profile" }, { task_id: BARE });
    expect(checkpoint(repo, { action: "read", task_id: BARE })).toMatchObject({ anchor: { task_id: BARE }, checkpoint: { state: "start failed; retry with another profile" } });
    expect(refusal(() => checkpoint(repo, { action: "read", task_id: TASK, thread_id: THREAD })).field).toBe("thread_id");
    expect(refusal(() => checkpoint(repo, { action: "read" })).message).toMatch(/task_id or thread_id is required/);
  });

  it("sets the original goal and hard constraints once; repeating them is fine, changing them is refused", () => {
    update({ goal: "billing in integer cents", constraints: "public API unchanged" });
    expect(update({ goal: "billing in integer cents" }).saved).toBe(true);
    const g = refusal(() => update({ goal: "rewrite billing in Rust" }));
    expect(g.field).toBe("goal");
    expect(g.message).toMatch(/set once; it never changes/);
    expect(refusal(() => update({ constraints: "none" })).message).toMatch(/hard constraints/);
    expect(checkpoint(repo, { action: "read", task_id: TASK }).checkpoint.goal).toBe("billing in integer cents");
  });

  it("keeps the previous state, acceptance status, understanding and next step", () => {
    update({ state: "tests written", acceptance_status: "not yet checked" });
    const r = update({ state: "tests pass", current_understanding: "discount rounding was the bug", next_step: "read the diff" });
    expect(r.checkpoint).toMatchObject({
      previous_state: "tests written",
      state: "tests pass",
      acceptance_status: "not yet checked",
      current_understanding: "discount rounding was the bug",
      next_step: "read the diff",
    });
    expect(typeof r.checkpoint.updated_at).toBe("string");
  });

  it("names the per-field and whole-record limits", () => {
    const long = refusal(() => update({ state: "s".repeat(CHECKPOINT_FIELD_MAX_CHARS + 1) }));
    expect(long.field).toBe("state");
    expect(long.message).toContain(`at most ${CHECKPOINT_FIELD_MAX_CHARS}`);
    const near = "n".repeat(CHECKPOINT_FIELD_MAX_CHARS - 10);
    update({ goal: near.replace(/n/g, "g"), constraints: near.replace(/n/g, "c"), state: near.replace(/n/g, "s") });
    const whole = refusal(() => update({ current_understanding: near.replace(/n/g, "u"), next_step: "x".repeat(500) }));
    expect(whole.message).toContain(`at most ${CHECKPOINT_MAX_CHARS}`);
    expect(checkpoint(repo, { action: "read", task_id: TASK }).checkpoint.current_understanding).toBeUndefined();
  });

  it("refuses the prompt, the final answer, command output and transcripts, saying which", () => {
    expect(refusal(() => update({ goal: PROMPT })).message).toMatch(/looks like the task's prompt/);
    expect(refusal(() => update({ state: `Summary: ${FINAL.slice(0, 170)} and more` })).message).toMatch(/looks like Codex's final answer/);
    expect(refusal(() => update({ acceptance_status: OUTPUT.replace(/\n/g, "\n\n") })).message).toMatch(/looks like the output of `npm test`/);
    const transcript = "user: fix it\nassistant: on it\nuser: and the tests\nassistant: done";
    expect(refusal(() => update({ current_understanding: transcript }, { thread_id: "019a0000-0000-7000-8000-0000000000ee" })).message).toMatch(/looks like a transcript/);
    expect(refusal(() => update({ next_step: "Chunk ID: ab12cd\nWall time: 0.0100 seconds\nProcess exited with code 0" })).message).toMatch(/command output/);
    // A short summary that shares a few words is the supervisor's own note.
    expect(update({ state: "integer cents done; eleven rounding tests added; npm test passes" }).saved).toBe(true);
  });

  it("redacts secrets before storing", () => {
    const r = update({ next_step: "use token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 to push" });
    expect(JSON.stringify(r.checkpoint)).not.toContain("ghp_A1b2");
    expect(JSON.stringify(checkpoint(repo, { action: "read", task_id: TASK }).checkpoint)).not.toContain("ghp_A1b2");
  });
});

describe("checkpoint migration", () => {
  it("moves an old task checkpoint to its thread's record", async () => {
    const old = await openStateDatabase(await getPlatform(), ":memory:", MIGRATIONS.slice(0, 2));
    try {
      const r = new Repo(old.db, redactor);
      r.insertTask({ id: TASK, project_id: "p", profile_id: "default", prompt: "go", relay: false, model: null, effort: null, state: "completed" });
      r.updateTask(TASK, { thread_id: THREAD });
      old.db.prepare(`INSERT INTO checkpoints (task_id, data, updated_at) VALUES (?, ?, ?)`).run(TASK, JSON.stringify({ goal: "old goal", state: "old state" }), "2025-01-01T00:00:00.000Z");
      migrate(old.db, MIGRATIONS);
      expect(checkpoint(r, { action: "read", thread_id: THREAD }).checkpoint).toEqual({ goal: "old goal", state: "old state" });
    } finally {
      old.close();
    }
  });
});
