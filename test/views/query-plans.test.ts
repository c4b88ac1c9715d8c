// Cost flat in history: every statement the per-call and per-turn paths, start-up recovery, health and retention run
// reads through an index (SQLite's own EXPLAIN QUERY PLAN), so none reads in proportion to stored tasks. The statements
// are the real ones, captured while the real code runs over a populated state.
import { beforeAll, describe, expect, it } from "vitest";
import type { Database, SqlValue, Statement } from "../../platform/types.ts";
import { getPlatform } from "../../platform/index.ts";
import { openStateDatabase } from "../../src/store/open.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { Repo } from "../../src/store/repo.ts";
import { redactor } from "../../src/policy/redact.ts";
import { dueTasks } from "../../src/store/compaction.ts";
import { activity } from "../../src/views/activity.ts";
import { buildResult } from "../../src/views/evidence.ts";
import { inspect, INSPECT_KINDS } from "../../src/views/inspect.ts";
import { compactDue } from "../../src/tasks/retention.ts";

type Captured = { sql: string; args: SqlValue[] };
const captured: Captured[] = [];

/** The database as the code sees it, noting every statement run and its arguments. */
function recording(db: Database): Database {
  const wrap = (sql: string, s: Statement): Statement => ({
    run: (...a) => (captured.push({ sql, args: a }), s.run(...a)),
    get: (...a) => (captured.push({ sql, args: a }), s.get(...a)),
    all: (...a) => (captured.push({ sql, args: a }), s.all(...a)),
  });
  return { exec: (sql) => db.exec(sql), prepare: (sql) => wrap(sql, db.prepare(sql)), transaction: (fn) => db.transaction(fn), close: () => db.close() };
}

// Walking an index in order with a LIMIT, or a partial index that holds only rare rows (UNKNOWN outcomes, failures,
// tasks not yet compacted), reads no more rows as history grows.
const BOUNDED_INDEX_SCAN = /USING (COVERING )?INDEX (tasks_updated|tasks_unknown|tasks_failure|tasks_uncompacted)\b/;

let raw: Database;
let repo: Repo;
const TASK = "t_0000000042";

beforeAll(async () => {
  const store = await openStateDatabase(await getPlatform(), ":memory:", MIGRATIONS);
  raw = store.db;
  repo = new Repo(recording(raw), redactor);
  // Enough history that the planner's choice is the one a large state gets (ANALYZE is never run by the bridge).
  raw.transaction(() => {
    for (let i = 0; i < 2000; i++) {
      const id = `t_${String(i).padStart(10, "0")}`;
      repo.insertTask({ id, project_id: "p", profile_id: "default", prompt: "go", relay: false, model: null, effort: null, state: "running" });
      repo.updateTask(id, { thread_id: `th_${i}`, turn_id: `tu_${i}`, state: i % 7 === 0 ? "failed" : "completed", failure: i % 7 === 0 ? { code: "unknown", sentence: "x", retryable: false } : null });
      repo.appendEvents(id, [{ turn_id: `tu_${i}`, kind: "turn_started", data: {} }, { turn_id: `tu_${i}`, kind: "message", item_id: "m", data: { text: "hi" } }]);
      repo.upsertItem({ task_id: id, item_id: "c", turn_id: `tu_${i}`, type: "commandExecution", status: "completed", data: { command: "ls", output: "a" } });
      repo.insertInteraction({ id: `r_${i}`, task_id: id, kind: "command", method: "item/commandExecution/requestApproval", rpc_id: i, connection_id: "c1", thread_id: `th_${i}`, turn_id: `tu_${i}`, item_id: "c", state: "resolved", params: {} });
    }
  });
  captured.length = 0;
});

describe("query plans", () => {
  it("the hot statements never scan tasks, events, items, interactions or cursors", () => {
    const t = repo.task(TASK)!;
    // What a turn, a wait, a status, a result, an inspect, health, recovery and retention run.
    repo.taskByTurn("tu_42");
    repo.taskByThread("th_42");
    repo.tasksInStates(["starting", "running", "waiting_for_approval", "waiting_for_tool"]);
    repo.tasksWithUnknown();
    repo.interactionsInStates(["pending"]);
    repo.interactionsInStates(["pending", "uncertain"]);
    repo.interactionsByConnection("c1", ["pending", "submitted", "uncertain"]);
    repo.interactions(TASK, ["pending"]);
    repo.pendingKinds(TASK);
    repo.lastFailure();
    repo.recentTasks(20);
    repo.recentThreads(200);
    repo.events(TASK, 0, 100);
    repo.events(TASK, 0, 100, ["message"]);
    repo.turnIds(TASK);
    repo.items(TASK, "commandExecution");
    repo.cursors.follow("conn", TASK);
    repo.cursors.followed("conn", ["completed", "failed"], 10);
    repo.cursors.floor(TASK, 1);
    repo.prepareNewTurn(TASK);
    repo.appendEvents(TASK, [{ turn_id: "tu_42", kind: "message_delta", item_id: "m2", data: { text: "x" } }]);
    repo.dropStreamedChunks(TASK, "m2", repo.task(TASK)!.last_seq);
    repo.dropItemText(TASK, "m");
    activity(repo, t);
    buildResult(repo, TASK, null);
    for (const kind of INSPECT_KINDS) {
      try {
        inspect(repo, { task_id: TASK, kind, item_id: kind === "command_output" ? "c" : undefined });
      } catch {
        // a kind that needs another item_id: its statements ran up to the refusal
      }
    }
    dueTasks(repo.db, new Date().toISOString(), 20);
    compactDue(repo, 0, 5);

    const offenders: string[] = [];
    const seen = new Set<string>();
    for (const c of captured) {
      if (seen.has(c.sql) || /^\s*(INSERT|PRAGMA)/i.test(c.sql)) continue;
      seen.add(c.sql);
      const plan = raw.prepare(`EXPLAIN QUERY PLAN ${c.sql}`).all(...c.args).map((r) => String(r.detail));
      for (const step of plan) {
        if (/^SCAN (tasks|events|items|interactions|cursors)\b/.test(step) && !BOUNDED_INDEX_SCAN.test(step)) offenders.push(`${step}  ←  ${c.sql.replace(/\s+/g, " ").slice(0, 160)}`);
      }
    }
    expect(seen.size).toBeGreaterThan(30);
    expect(offenders).toEqual([]);
  });
});
