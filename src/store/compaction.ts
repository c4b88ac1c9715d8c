// Retention's storage side: which finished tasks are due, and the statements that remove what an old task no longer
// needs (streamed and raw events, command output) while its answer, evidence, ledger and checkpoint stay.
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { Database, SqlValue } from "../../platform/types.ts";
import type { CompactionRecord } from "./rows.ts";

/**
 * Event kinds a compacted task keeps: what codex_result and codex_inspect (transcript, plan, warnings) show of it. Its
 * commands are listed by its items (with exit codes), so the transcript's copies of them go too.
 */
export const KEPT_EVENT_KINDS = ["user_message", "message", "turn_completed", "plan", "warning", "error", "notice", "connection_lost", "unknown", "unknown_resolved"];
/** Finished for good unless continued; UNKNOWN outcomes, live and pending tasks are never compacted. */
const COMPACTABLE_STATES = ["completed", "failed", "interrupted", "connection_lost"];
/** An answer shorter than this is kept as text: deflate would save nothing worth the unreadable column. */
const PACK_MIN_CHARS = 1024;

const marks = (list: readonly unknown[]) => list.map(() => "?").join(",");

const DUE = `compacted_at IS NULL AND updated_at < ? AND state IN (${marks(COMPACTABLE_STATES)}) AND unknown_json IS NULL
  AND NOT EXISTS (SELECT 1 FROM interactions i WHERE i.task_id = tasks.id AND i.state IN ('pending', 'submitted', 'uncertain'))`;

/** Oldest first, at most `limit`: finished tasks last changed before `cutoff` and not compacted yet. */
export function dueTasks(db: Database, cutoff: string, limit: number): string[] {
  return db
    .prepare(`SELECT id FROM tasks INDEXED BY tasks_uncompacted WHERE ${DUE} ORDER BY updated_at LIMIT ?`)
    .all(cutoff, ...COMPACTABLE_STATES, limit)
    .map((r) => String(r.id));
}

/** What compacting every due task would remove (a dry run): tasks, events, command outputs and their bytes. */
export function dueEstimate(db: Database, cutoff: string): { tasks: number; events: number; outputs: number; bytes: number } {
  const args = [cutoff, ...COMPACTABLE_STATES];
  const due = `SELECT id FROM tasks INDEXED BY tasks_uncompacted WHERE ${DUE}`;
  const tasks = Number(db.prepare(`SELECT COUNT(*) AS n FROM (${due})`).get(...args)?.n ?? 0);
  const ev = db
    .prepare(`SELECT COUNT(*) AS n, IFNULL(SUM(LENGTH(data) + 40), 0) AS b FROM events WHERE task_id IN (${due}) AND kind NOT IN (${marks(KEPT_EVENT_KINDS)})`)
    .get(...args, ...KEPT_EVENT_KINDS);
  const out = db
    .prepare(
      `SELECT COUNT(*) AS n, IFNULL(SUM(LENGTH(json_extract(data, '$.output'))), 0) AS b FROM items
       WHERE task_id IN (${due}) AND type = 'commandExecution' AND json_valid(data) AND json_extract(data, '$.output') IS NOT NULL`,
    )
    .get(...args);
  return { tasks, events: Number(ev?.n ?? 0), outputs: Number(out?.n ?? 0), bytes: Number(ev?.b ?? 0) + Number(out?.b ?? 0) };
}

/** Removes the raw events (streamed chunks, starts, item notices, request markers); returns how many. */
export function removeRawEvents(db: Database, taskId: string): number {
  return db.prepare(`DELETE FROM events WHERE task_id = ? AND kind NOT IN (${marks(KEPT_EVENT_KINDS)})`).run(taskId, ...KEPT_EVENT_KINDS).changes;
}

/** Removes stored command output (and the directory); the command, exit code, duration and output length stay. */
export function removeCommandOutput(db: Database, taskId: string): number {
  return db
    .prepare(
      `UPDATE items SET data = json_set(json_remove(data, '$.output', '$.cwd'), '$.output_removed', json('true'))
       WHERE task_id = ? AND type = 'commandExecution' AND json_valid(data) AND json_extract(data, '$.output') IS NOT NULL`,
    )
    .run(taskId).changes;
}

/** Message texts longer than `max` (message events and earlier turns' answers), to be bounded by the caller. */
export function longTexts(db: Database, taskId: string, max: number): { table: "events" | "items"; key: string | number; data: string }[] {
  const ev = db
    .prepare(`SELECT seq, data FROM events WHERE task_id = ? AND kind IN ('message', 'user_message') AND LENGTH(data) > ?`)
    .all(taskId, max)
    .map((r) => ({ table: "events" as const, key: Number(r.seq), data: String(r.data) }));
  const it = db
    .prepare(`SELECT item_id, data FROM items WHERE task_id = ? AND type = 'agentMessage' AND LENGTH(data) > ?`)
    .all(taskId, max)
    .map((r) => ({ table: "items" as const, key: String(r.item_id), data: String(r.data) }));
  return [...ev, ...it];
}

export function rewriteData(db: Database, taskId: string, table: "events" | "items", key: string | number, data: string): void {
  const where = table === "events" ? "seq = ?" : "item_id = ?";
  db.prepare(`UPDATE ${table} SET data = ? WHERE task_id = ? AND ${where}`).run(data, taskId, key);
}

/** Keeps a long final answer deflated (read back whole by unpackText); a short one stays text. */
export function packFinalMessage(db: Database, taskId: string): void {
  const r = db.prepare(`SELECT final_message FROM tasks WHERE id = ?`).get(taskId);
  const v = r?.final_message;
  if (typeof v !== "string" || v.length < PACK_MIN_CHARS) return;
  db.prepare(`UPDATE tasks SET final_message = ? WHERE id = ?`).run(deflateRawSync(Buffer.from(v, "utf8")), taskId);
}

/** A text column as text, whether it was kept as text or packed by retention. */
export function unpackText(v: SqlValue | undefined): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Uint8Array) return inflateRawSync(v).toString("utf8");
  return String(v);
}

export function markCompacted(db: Database, taskId: string, record: CompactionRecord): void {
  db.prepare(`UPDATE tasks SET compacted_at = ?, compaction_json = ? WHERE id = ?`).run(record.at, JSON.stringify(record), taskId);
}

/** A continued task is whole again from its new turn on: retention looks at it again once that turn is old. */
export function reopenForRetention(db: Database, taskId: string): void {
  db.prepare(`UPDATE tasks SET compacted_at = NULL WHERE id = ? AND compacted_at IS NOT NULL`).run(taskId);
}

/** The file's auto_vacuum mode: 0 none, 1 full, 2 incremental. */
export function autoVacuumMode(db: Database): number {
  return Number(db.prepare("PRAGMA auto_vacuum").get()?.auto_vacuum ?? 0);
}

/** Hands up to `pages` free pages back to the file system (incremental mode only); returns the free pages left. */
export function releaseFreePages(db: Database, pages: number): number {
  db.prepare(`PRAGMA incremental_vacuum(${Math.max(1, Math.floor(pages))})`).all();
  return Number(db.prepare("PRAGMA freelist_count").get()?.freelist_count ?? 0);
}

/**
 * A file from before incremental vacuum rewrites itself once (VACUUM) to get it: the only way SQLite changes the mode
 * of a file that has tables. Needs the database to itself for as long as a copy of it takes.
 */
export function switchToIncrementalVacuum(db: Database): void {
  db.exec("PRAGMA auto_vacuum=INCREMENTAL");
  db.exec("VACUUM");
}

/** Folds the write-ahead log into the file and truncates it, so the file's size is what it holds. */
export function foldLog(db: Database): void {
  db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").all();
}

/**
 * Writes a task's remaining rows again under their own rowids (so their order, and the generation a row belongs to,
 * stay as they were). Shrunk or thinned in place, a task's rows would keep their pages half empty: a command item with
 * its output sits alone on its page. Removed and written back, the rows share pages and the emptied ones become free
 * (and then go back to the file system).
 */
export function repackTaskRows(db: Database, table: "events" | "items", taskId: string): void {
  const columns = table === "events" ? ["task_id", "seq", "turn_id", "kind", "item_id", "at", "data"] : ["task_id", "item_id", "turn_id", "type", "status", "data", "updated_at"];
  const rows = db.prepare(`SELECT rowid AS rid, ${columns.join(", ")} FROM ${table} WHERE task_id = ? ORDER BY rowid`).all(taskId);
  db.prepare(`DELETE FROM ${table} WHERE task_id = ?`).run(taskId);
  const insert = db.prepare(`INSERT INTO ${table} (rowid, ${columns.join(", ")}) VALUES (?, ${columns.map(() => "?").join(", ")})`);
  for (const r of rows) insert.run(r.rid!, ...columns.map((c) => r[c] ?? null));
}
