// test:scale history cost: the same bridge on an empty state and on one with 100,000 stored tasks (SCALE_QUICK: 5,000),
// same run: ready-to-list-tools, a new task start → completed and a second turn, as medians and ratios (targets: ≤ 1.5×,
// ≤ 1.2×, ≤ 1.2×; printed, never asserted: timing on a shared machine is no test). Then `codex-bridge prune` on the
// large state frees what it reports.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import type { Platform } from "../../platform/types.ts";
import { startHarness, type Harness } from "../../src/selftest/harness.ts";
import { runCli } from "../cli/run-cli.ts";
import { sc, settled } from "../support/task-waits.ts";
import { tempDir } from "../support/temp-dir.ts";
import { runTask, TASK_KINDS } from "./growth-support.ts";
import { buildHistory, fileBytes, median, openTimedBridge, type TimedBridge } from "./history-support.ts";

const QUICK = process.env.SCALE_QUICK === "1";
const TASKS = QUICK ? 5_000 : 100_000;
const ROUNDS = QUICK ? 3 : 5;

let platform: Platform;
let h: Harness;
let dir: string;
let large: string;
beforeAll(async () => {
  platform = await getPlatform();
  h = await startHarness(platform, { mockProvider: true, approvalPolicy: "never" });
  dir = tempDir("history-cost-");
  large = join(dir, "large.sqlite3");
});
afterAll(async () => {
  await h?.close();
});

/** Start → completed of a new one-message task, then of a second turn on it, in ms. */
async function timedTurns(b: TimedBridge): Promise<{ newTask: number; secondTurn: number }> {
  h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "first", phase: "final_answer" }] });
  const t0 = performance.now();
  const id = String(sc(await b.call("codex_start", { project_id: "demo", prompt: "timed" })).task_id);
  expect((await settled(b, id)).at(-1)!.state).toBe("completed");
  const newTask = performance.now() - t0;
  h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "second", phase: "final_answer" }] });
  const t1 = performance.now();
  await b.call("codex_send", { task_id: id, message: "again" });
  expect((await settled(b, id)).at(-1)!.state).toBe("completed");
  return { newTask, secondTurn: performance.now() - t1 };
}

describe(`cost with ${TASKS.toLocaleString("en")} stored tasks`, () => {
  it("builds the large state from real tasks", async () => {
    const templates: string[] = [];
    for (const kind of TASK_KINDS) templates.push(await runTask(h, kind, `template-${kind}`));
    const t0 = performance.now();
    await buildHistory(platform, large, h.bridge.store.path, templates, TASKS);
    console.log(`built ${TASKS} tasks (${(fileBytes(large) / 1024 / 1024).toFixed(0)} MiB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  });

  it("prints ready, new task and second turn on the empty and the large state, and their ratios", async () => {
    const empty = join(dir, "empty.sqlite3");
    const runs: Record<"empty" | "large", { ready: number[]; newTask: number[]; secondTurn: number[] }> = {
      empty: { ready: [], newTask: [], secondTurn: [] },
      large: { ready: [], newTask: [], secondTurn: [] },
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, path] of [["empty", empty], ["large", large]] as const) {
        const b = await openTimedBridge(platform, h.env, path);
        try {
          await timedTurns(b); // warms the app-server and the caches; not counted
          const t = await timedTurns(b);
          runs[name].ready.push(b.readyMs);
          runs[name].newTask.push(t.newTask);
          runs[name].secondTurn.push(t.secondTurn);
        } finally {
          await b.close();
        }
      }
    }
    const row = (what: "ready" | "newTask" | "secondTurn", label: string, target: number) => {
      const e = median(runs.empty[what]);
      const l = median(runs.large[what]);
      return `${label}: ${e.toFixed(1)} ms empty, ${l.toFixed(1)} ms at ${TASKS} tasks: ${(l / e).toFixed(2)}× (target ≤ ${target}×)`;
    };
    console.log(
      [
        `history cost, medians of ${ROUNDS} rounds, same run:`,
        row("ready", "ready-to-list-tools", 1.5),
        row("newTask", "new task start → completed", 1.2),
        row("secondTurn", "second turn", 1.2),
      ].join("\n  "),
    );
    expect(runs.large.newTask).toHaveLength(ROUNDS);
  });

  it("codex-bridge prune on the large state frees what it reports", async () => {
    const env = { ...h.env, CODEX_BRIDGE_STATE: large };
    const dry = await runCli(["prune", "--dry-run", "--json"], { env, killAfterMs: 1_800_000 });
    expect(dry.code, dry.stderr).toBe(0);
    const estimate = JSON.parse(dry.stdout) as { tasks: number; bytes_to_remove: number };
    const before = fileBytes(large);
    const t0 = performance.now();
    const run = await runCli(["prune", "--json"], { env, killAfterMs: 3_000_000 });
    const seconds = (performance.now() - t0) / 1000;
    expect(run.code, run.stderr).toBe(0);
    const r = JSON.parse(run.stdout) as { tasks: number; events: number; outputs: number; bytes_before: number; bytes_after: number; bytes_freed: number; vacuum: string };
    const after = fileBytes(large);
    console.log(
      `prune: ${r.tasks} tasks compacted (dry run said ${estimate.tasks}, about ${(estimate.bytes_to_remove / 1024 / 1024).toFixed(0)} MiB of text), ` +
        `${r.events} events and ${r.outputs} outputs removed; file ${(before / 1024 / 1024).toFixed(0)} → ${(after / 1024 / 1024).toFixed(0)} MiB, ` +
        `reported freed ${(r.bytes_freed / 1024 / 1024).toFixed(0)} MiB, in ${seconds.toFixed(1)} s (vacuum: ${r.vacuum})`,
    );
    // Tasks finished within retention_days (7 of the 365 days the history spans) and the ones the timed runs added stay whole.
    expect(r.tasks).toBe(estimate.tasks);
    expect(r.tasks).toBeGreaterThan(TASKS * 0.95);
    expect(r.bytes_before).toBe(before);
    expect(r.bytes_after).toBe(after);
    expect(r.bytes_freed).toBe(before - after);
    expect(r.bytes_freed).toBeGreaterThan(before * 0.3);
  });
});
