// The automatic side of retention: rounds of small steps that compact due tasks only while no turn runs, and leave
// recent, UNKNOWN and open-request tasks whole; retention_days = 0 keeps everything.
import { afterEach, describe, expect, it } from "vitest";
import { memoryRepo } from "../support/memory-repo.ts";
import { RetentionRunner, STEP_TASKS } from "../../src/tasks/retention.ts";
import type { Repo } from "../../src/store/repo.ts";
import { poll } from "../support/poll.ts";
import { statSync } from "node:fs";
import { join } from "node:path";
import { getPlatform } from "../../platform/index.ts";
import { openStateDatabase } from "../../src/store/open.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { Repo as StateRepo } from "../../src/store/repo.ts";
import { redactor } from "../../src/policy/redact.ts";
import { tempDir } from "../support/temp-dir.ts";

const DAY = 86_400_000;
const FAST = { firstMs: 0, everyMs: 30, gapMs: 0 };
let runner: RetentionRunner | undefined;
afterEach(() => runner?.stop());

function finished(repo: Repo, id: string, daysAgo: number): void {
  repo.insertTask({ id, project_id: "p", profile_id: "default", prompt: "go", relay: false, model: null, effort: null, state: "running" });
  repo.appendEvents(id, [
    { turn_id: "tu", kind: "turn_started", data: {} },
    { turn_id: "tu", kind: "command_started", item_id: "c", data: { command: "ls" } },
    { turn_id: "tu", kind: "turn_completed", data: { status: "completed" } },
  ]);
  repo.upsertItem({ task_id: id, item_id: "c", turn_id: "tu", type: "commandExecution", status: "completed", data: { command: "ls", exit_code: 0, output: "a\nb\n" } });
  repo.updateTask(id, { state: "completed", turn_id: "tu", final_message: "done" });
  repo.db.prepare(`UPDATE tasks SET updated_at = ? WHERE id = ?`).run(new Date(Date.now() - daysAgo * DAY).toISOString(), id);
}

const compacted = (repo: Repo) => Number(repo.db.prepare(`SELECT COUNT(*) AS n FROM tasks WHERE compacted_at IS NOT NULL`).get()?.n);

describe("the retention runner", () => {
  it("compacts every due task in steps, only while no turn runs, and nothing recent, UNKNOWN or with an open request", async () => {
    const { repo } = await memoryRepo("t_live000000", "running");
    const due = STEP_TASKS * 2 + 3; // more than one step's worth
    for (let i = 0; i < due; i++) finished(repo, `t_old${String(i).padStart(7, "0")}`, 10);
    finished(repo, "t_recent0000", 2);
    finished(repo, "t_unknown000", 30);
    repo.updateTask("t_unknown000", { state: "unknown", unknown: { method: "turn/start", rpc_id: 1, detail: "timed out", at: "x" } });
    repo.db.prepare(`UPDATE tasks SET updated_at = ? WHERE id = 't_unknown000'`).run(new Date(Date.now() - 30 * DAY).toISOString());
    finished(repo, "t_asking0000", 30);
    repo.insertInteraction({ id: "r_1", task_id: "t_asking0000", kind: "command", method: "m", rpc_id: 1, connection_id: "c", thread_id: null, turn_id: "tu", item_id: "c", state: "pending", params: {} });

    runner = new RetentionRunner(repo, 7, () => {}, FAST);
    runner.start();
    // A turn runs (t_live000000): a few rounds pass and nothing is touched.
    await new Promise((r) => setTimeout(r, 150));
    expect(compacted(repo)).toBe(0);
    repo.updateTask("t_live000000", { state: "completed" });
    await poll(() => compacted(repo) === due, { timeoutMs: 10_000, what: "every due task compacted" });
    await new Promise((r) => setTimeout(r, 100));
    expect(compacted(repo)).toBe(due);
    const whole = (id: string) => repo.db.prepare(`SELECT compacted_at FROM tasks WHERE id = ?`).get(id)?.compacted_at;
    for (const id of ["t_recent0000", "t_unknown000", "t_asking0000", "t_live000000"]) expect(whole(id), id).toBeNull();
    // What went: raw events and the output; the answer and the command stay.
    const old = repo.task("t_old0000000")!;
    expect(repo.events(old.id, 0, 10).map((e) => e.kind)).toEqual(["turn_completed"]);
    expect(repo.item(old.id, "c")!.data).toEqual({ command: "ls", exit_code: 0, output_removed: true });
    expect(old.final_message).toBe("done");
    expect(old.compaction).toMatchObject({ retention_days: 7, events_removed: 2, outputs_removed: 1, through_seq: 3 });
  });

  it("retention_days = 0 keeps every task whole", async () => {
    const { repo } = await memoryRepo("t_done000000", "completed");
    finished(repo, "t_old0000000", 400);
    runner = new RetentionRunner(repo, 0, () => {}, FAST);
    runner.start();
    await new Promise((r) => setTimeout(r, 150));
    expect(compacted(repo)).toBe(0);
  });

  it("on a state file, hands the freed pages back: the file shrinks by itself", async () => {
    const store = await openStateDatabase(await getPlatform(), join(tempDir("retention-file-"), "state.sqlite3"), MIGRATIONS);
    try {
      const repo = new StateRepo(store.db, redactor);
      const big = "build output line\n".repeat(2000);
      repo.tx(() => {
        for (let i = 0; i < 60; i++) {
          const id = `t_big${String(i).padStart(7, "0")}`;
          finished(repo, id, 10);
          for (let c = 0; c < 4; c++) repo.upsertItem({ task_id: id, item_id: `o${c}`, turn_id: "tu", type: "commandExecution", status: "completed", data: { command: "make", exit_code: 0, output: big } });
        }
      });
      const fileSize = () => {
        store.db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").all();
        return statSync(store.path).size;
      };
      const before = fileSize();
      runner = new RetentionRunner(repo, 7, () => {}, FAST);
      runner.start();
      await poll(() => compacted(repo) === 60 && Number(store.db.prepare("PRAGMA freelist_count").get()?.freelist_count) === 0, {
        timeoutMs: 20_000,
        what: "every task compacted and every free page handed back",
      });
      runner.stop();
      // Four 36 KB outputs per task went; the file keeps a small part of what it was.
      expect(fileSize()).toBeLessThan(before / 4);
    } finally {
      store.close();
    }
  });
});
