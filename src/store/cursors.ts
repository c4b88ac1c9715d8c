// The automatic wait cursors (one per connection and task) and the app-server generations: a managed restart opens a
// new generation, and a cursor taken before it is reported lost instead of silently continuing.
import type { Database } from "../../platform/types.ts";
import type { TaskState } from "./rows.ts";

export interface StoredCursor {
  seq: number;
  generation: number;
}

export class CursorStore {
  constructor(private readonly db: Database) {}

  get(connectionKey: string, taskId: string): StoredCursor | undefined {
    const r = this.db.prepare(`SELECT seq, generation FROM cursors WHERE connection_key = ? AND task_id = ?`).get(connectionKey, taskId);
    return r ? { seq: Number(r.seq), generation: Number(r.generation) } : undefined;
  }

  set(connectionKey: string, taskId: string, c: StoredCursor): void {
    this.db
      .prepare(
        `INSERT INTO cursors (connection_key, task_id, seq, generation) VALUES (?, ?, ?, ?)
         ON CONFLICT(connection_key, task_id) DO UPDATE SET seq = excluded.seq, generation = excluded.generation`,
      )
      .run(connectionKey, taskId, c.seq, c.generation);
  }

  /** The connection follows this task from now on (it started it); an existing cursor is left where it is. */
  follow(connectionKey: string, taskId: string): void {
    this.db
      .prepare(`INSERT OR IGNORE INTO cursors (connection_key, task_id, seq, generation) VALUES (?, ?, 0, ?)`)
      .run(connectionKey, taskId, this.generation());
  }

  /**
   * Tasks this connection follows that are still active, or settled with events it has not read yet; newest first.
   * Only tasks retention has not compacted: read from those (a week or so of tasks), not from every cursor the
   * connection ever had (over stdio that is one connection key for the bridge's whole life).
   */
  followed(connectionKey: string, settled: readonly TaskState[], limit: number): string[] {
    const marks = settled.map(() => "?").join(",");
    return this.db
      .prepare(
        `SELECT t.id FROM tasks t INDEXED BY tasks_uncompacted JOIN cursors c ON c.task_id = t.id AND c.connection_key = ?
         WHERE t.compacted_at IS NULL AND (t.state NOT IN (${marks}) OR t.last_seq > c.seq OR c.generation < ?)
         ORDER BY t.created_at DESC LIMIT ?`,
      )
      .all(connectionKey, ...settled, this.generation(), limit)
      .map((r) => String(r.id));
  }

  /** The current app-server generation: 0 until the first managed restart. */
  generation(): number {
    const r = this.db.prepare(`SELECT MAX(generation) AS g FROM runtime_generations`).get();
    return r && r.g !== null && r.g !== undefined ? Number(r.g) : 0;
  }

  /** Opens the next generation; every event stored from now on belongs to it. */
  beginGeneration(): number {
    const next = this.generation() + 1;
    this.db
      .prepare(`INSERT INTO runtime_generations (generation, started_at, first_event_rowid) SELECT ?, ?, IFNULL(MAX(rowid), 0) + 1 FROM events`)
      .run(next, new Date().toISOString());
    return next;
  }

  /** The last event of a task stored before `generation` began: where a lost cursor is re-anchored. */
  floor(taskId: string, generation: number): number {
    const r = this.db
      .prepare(
        `SELECT IFNULL(MAX(seq), 0) AS s FROM events
         WHERE task_id = ? AND rowid < (SELECT first_event_rowid FROM runtime_generations WHERE generation = ?)`,
      )
      .get(taskId, generation);
    return r ? Number(r.s) : 0;
  }
}
