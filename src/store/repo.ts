// Every query on the state database: tasks, events, interactions, items, context and checkpoints (cursors and
// generations in cursors.ts).
import type { Database, SqlValue } from "../../platform/types.ts";
import type { EventRow, Failure, InteractionRow, InteractionState, ItemRow, TaskRow, TaskState } from "./rows.ts";
import { StorageCondition } from "./storage-condition.ts";
import { CursorStore } from "./cursors.ts";
import { reopenForRetention, unpackText } from "./compaction.ts";
import { insertRows } from "./batch-insert.ts";
import { FullEventPage } from "./event-pages.ts";
import { asFailure, json, num, toEvent, toInteraction, toItem, toTask } from "./row-read.ts";

const now = () => new Date().toISOString();

const ITEM_UPSERT = ` ON CONFLICT(task_id, item_id) DO UPDATE SET turn_id = excluded.turn_id, type = excluded.type,
  status = excluded.status, data = excluded.data, updated_at = excluded.updated_at`;

/** Task columns that hold text from outside (the supervisor, Codex) rather than ids and states. */
const FREE_TEXT_COLUMNS: ReadonlySet<string> = new Set(["final_message", "model", "effort"]);

export interface NewEvent {
  turn_id: string | null;
  kind: string;
  item_id?: string | null;
  data: Record<string, unknown>;
}

/**
 * What every free-text and JSON value passes through before it is written (the composition root hands in the
 * redactor), so no secret reaches a page or the WAL, whichever code path stored it.
 */
export interface Scrubber {
  redactText(s: string): string;
  redactValue(v: unknown): unknown;
}

/** All SQL the bridge needs, in one place. Every write that matters happens before it is acknowledged. */
export class Repo {
  readonly cursors: CursorStore;
  private txDepth = 0;
  private rollbackHooks: (() => void)[] = [];
  private readonly fullPage = new FullEventPage();

  constructor(
    readonly db: Database,
    private readonly scrub: Scrubber,
    /** What is wrong with the file now (a full disk, damage), as the guarded database found it. */
    readonly condition: StorageCondition = new StorageCondition(),
  ) {
    this.cursors = new CursorStore(db);
  }

  /** A string column's value, redacted (null stays null). */
  private text(v: string | null): string | null {
    return v === null ? null : this.scrub.redactText(v);
  }

  /** A JSON column's value, redacted and serialized. */
  private json(v: unknown): string {
    return JSON.stringify(this.scrub.redactValue(v));
  }

  tx<T>(fn: () => T): T {
    const outer = this.txDepth === 0;
    this.txDepth++;
    try {
      const r = this.db.transaction(fn);
      if (outer) this.rollbackHooks = [];
      return r;
    } catch (err) {
      // What was taken out of memory for this transaction goes back, so a failed write (a full disk) loses nothing.
      if (outer) for (const undo of this.rollbackHooks.splice(0).reverse()) undo();
      throw err;
    } finally {
      this.txDepth--;
    }
  }

  /** Runs `undo` if the transaction being written rolls back (outside one: never). */
  onRollback(undo: () => void): void {
    if (this.txDepth > 0) this.rollbackHooks.push(undo);
  }

  insertTask(t: Pick<TaskRow, "id" | "project_id" | "profile_id" | "prompt" | "relay" | "model" | "effort" | "state">): TaskRow {
    const at = now();
    this.db
      .prepare(
        `INSERT INTO tasks (id, project_id, profile_id, state, relay, prompt, model, effort, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(t.id, t.project_id, t.profile_id, t.state, t.relay ? 1 : 0, this.text(t.prompt), this.text(t.model), this.text(t.effort), at, at);
    return this.task(t.id)!;
  }

  task(id: string): TaskRow | undefined {
    const r = this.db.prepare(`SELECT * FROM tasks WHERE id = ?`).get(id);
    return r ? toTask(r) : undefined;
  }

  taskByThread(threadId: string): TaskRow | undefined {
    const r = this.db.prepare(`SELECT * FROM tasks WHERE thread_id = ? ORDER BY created_at DESC LIMIT 1`).get(threadId);
    return r ? toTask(r) : undefined;
  }

  /** The threads of the most recently updated tasks: ids only, so a start-up never reads their answers. */
  recentThreads(limit: number): { id: string; thread_id: string }[] {
    return this.db
      .prepare(`SELECT id, thread_id FROM tasks WHERE thread_id IS NOT NULL ORDER BY updated_at DESC LIMIT ?`)
      .all(limit)
      .map((r) => ({ id: String(r.id), thread_id: String(r.thread_id) }));
  }

  recentTasks(limit: number): TaskRow[] {
    return this.db.prepare(`SELECT * FROM tasks ORDER BY updated_at DESC LIMIT ?`).all(limit).map(toTask);
  }

  /** The most recently updated task that carries a failure: what codex_health reports as the last one. */
  lastFailure(): (Failure & { task_id: string; at: string }) | null {
    const r = this.db.prepare(`SELECT id, error_json, updated_at FROM tasks WHERE error_json IS NOT NULL ORDER BY updated_at DESC LIMIT 1`).get();
    const f = r ? asFailure(json<Record<string, unknown> | null>(r.error_json, null)) : null;
    return r && f ? { task_id: String(r.id), ...f, at: String(r.updated_at) } : null;
  }

  tasksInStates(states: TaskState[]): TaskRow[] {
    const marks = states.map(() => "?").join(",");
    return this.db.prepare(`SELECT * FROM tasks WHERE state IN (${marks})`).all(...states).map(toTask);
  }

  /** Tasks with a timed-out mutating request not yet resolved by evidence. */
  tasksWithUnknown(): TaskRow[] {
    return this.db.prepare(`SELECT * FROM tasks WHERE unknown_json IS NOT NULL`).all().map(toTask);
  }

  /** The turn ids seen on a task's events, most recent last (at most `limit`). */
  turnIds(taskId: string, limit = 1000): string[] {
    return this.db
      .prepare(`SELECT turn_id, MAX(seq) AS last FROM events WHERE task_id = ? AND turn_id IS NOT NULL GROUP BY turn_id ORDER BY last DESC LIMIT ?`)
      .all(taskId, limit)
      .map((r) => String(r.turn_id))
      .reverse();
  }

  /** Another task whose current turn is this one, if any. */
  taskByTurn(turnId: string): TaskRow | undefined {
    const r = this.db.prepare(`SELECT * FROM tasks WHERE turn_id = ? LIMIT 1`).get(turnId);
    return r ? toTask(r) : undefined;
  }

  updateTask(
    id: string,
    patch: Partial<Pick<TaskRow, "thread_id" | "turn_id" | "state" | "final_message" | "failure" | "unknown" | "connection_id" | "turn_count" | "model" | "effort">>,
  ): void {
    const cols: string[] = [];
    const vals: SqlValue[] = [];
    for (const [k, v] of Object.entries(patch)) {
      if (k === "failure") {
        cols.push("error_json = ?");
        vals.push(v === null ? null : this.json(v));
      } else if (k === "unknown") {
        cols.push("unknown_json = ?");
        vals.push(v === null ? null : this.json(v));
      } else if (FREE_TEXT_COLUMNS.has(k)) {
        cols.push(`${k} = ?`);
        vals.push(this.text(v as string | null));
      } else {
        cols.push(`${k} = ?`);
        vals.push(v as SqlValue);
      }
    }
    cols.push("updated_at = ?");
    vals.push(now());
    this.db.prepare(`UPDATE tasks SET ${cols.join(", ")} WHERE id = ?`).run(...vals, id);
  }

  /** Appends events with consecutive per-task sequence numbers; returns the last seq. */
  appendEvents(taskId: string, events: NewEvent[]): number {
    if (events.length === 0) return this.task(taskId)?.last_seq ?? 0;
    const row = this.db.prepare(`SELECT last_seq FROM tasks WHERE id = ?`).get(taskId);
    let seq = num(row?.last_seq);
    const at = now();
    const rows = events.map((e): SqlValue[] => [taskId, ++seq, e.turn_id, e.kind, e.item_id ?? null, at, this.json(e.data)]);
    insertRows(this.db, `INSERT INTO events (task_id, seq, turn_id, kind, item_id, at, data)`, "", 7, rows);
    this.db.prepare(`UPDATE tasks SET last_seq = ?, updated_at = ? WHERE id = ?`).run(seq, at, taskId);
    return seq;
  }

  events(taskId: string, afterSeq: number, limit: number, kinds?: string[]): EventRow[] {
    if (kinds && kinds.length > 0) {
      const marks = kinds.map(() => "?").join(",");
      return this.db
        .prepare(`SELECT * FROM events WHERE task_id = ? AND seq > ? AND kind IN (${marks}) ORDER BY seq LIMIT ?`)
        .all(taskId, afterSeq, ...kinds, limit)
        .map(toEvent);
    }
    const load = () => this.db.prepare(`SELECT * FROM events WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?`).all(taskId, afterSeq, limit);
    const rows = this.fullPage.read(taskId, afterSeq, limit, this.txDepth === 0, load);
    return rows.map(toEvent);
  }

  event(taskId: string, seq: number): EventRow | undefined {
    const r = this.db.prepare(`SELECT * FROM events WHERE task_id = ? AND seq = ?`).get(taskId, seq);
    return r ? toEvent(r) : undefined;
  }

  upsertItem(i: Omit<ItemRow, "updated_at">): void {
    this.upsertItems([i]);
  }

  /** Upserts as one after another would: an item given twice is written once, in its first place, as last given. */
  upsertItems(items: readonly Omit<ItemRow, "updated_at">[]): void {
    const at = now();
    const last = new Map(items.map((i) => [`${i.task_id}\u0000${i.item_id}`, i]));
    const rows = [...last.values()].map((i): SqlValue[] => [i.task_id, i.item_id, i.turn_id, i.type, i.status, this.json(i.data), at]);
    insertRows(this.db, `INSERT INTO items (task_id, item_id, turn_id, type, status, data, updated_at)`, ITEM_UPSERT, 7, rows);
  }

  item(taskId: string, itemId: string): ItemRow | undefined {
    const r = this.db.prepare(`SELECT * FROM items WHERE task_id = ? AND item_id = ?`).get(taskId, itemId);
    return r ? toItem(r) : undefined;
  }

  items(taskId: string, type?: string): ItemRow[] {
    const rows = type
      ? this.db.prepare(`SELECT * FROM items WHERE task_id = ? AND type = ? ORDER BY rowid`).all(taskId, type)
      : this.db.prepare(`SELECT * FROM items WHERE task_id = ? ORDER BY rowid`).all(taskId);
    return rows.map(toItem);
  }

  /**
   * A message is stored once: its streamed chunks go once its complete text is stored (the item), and a completed
   * item's text goes once the message event that shows it holds it. The final answer lives in tasks.final_message
   * until the next turn starts, when prepareNewTurn moves it into its item.
   */
  dropStreamedChunks(taskId: string, itemId: string, fromSeq: number): void {
    this.db.prepare(`DELETE FROM events WHERE task_id = ? AND seq >= ? AND item_id = ? AND kind = 'message_delta'`).run(taskId, fromSeq, itemId);
  }

  dropItemText(taskId: string, itemId: string): void {
    this.db
      .prepare(`UPDATE items SET data = json_remove(data, '$.text') WHERE task_id = ? AND item_id = ? AND type = 'agentMessage' AND json_valid(data)`)
      .run(taskId, itemId);
  }

  /**
   * Before a new turn clears the final answer: the answer the task held moves into its turn's final item, and a
   * compacted task is whole again from here on (retention looks at it again once this turn is old).
   */
  prepareNewTurn(taskId: string): void {
    reopenForRetention(this.db, taskId);
    const t = this.db.prepare(`SELECT turn_id, final_message FROM tasks WHERE id = ?`).get(taskId);
    const answer = unpackText(t?.final_message);
    if (!t || answer === null || t.turn_id === null) return;
    this.db
      .prepare(
        `UPDATE items SET data = json_set(data, '$.text', ?) WHERE task_id = ? AND turn_id = ? AND type = 'agentMessage'
         AND json_valid(data) AND json_extract(data, '$.final') = 1 AND json_extract(data, '$.text') IS NULL`,
      )
      .run(answer, taskId, String(t.turn_id));
  }

  insertInteraction(i: Omit<InteractionRow, "created_at" | "updated_at" | "response" | "response_hash" | "answered_by" | "note">): void {
    const at = now();
    this.db
      .prepare(
        `INSERT INTO interactions (id, task_id, kind, method, rpc_id, connection_id, thread_id, turn_id, item_id, state, params, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        i.id,
        i.task_id,
        i.kind,
        i.method,
        JSON.stringify(i.rpc_id),
        i.connection_id,
        i.thread_id,
        i.turn_id,
        i.item_id,
        i.state,
        this.json(i.params),
        at,
        at,
      );
  }

  interaction(id: string): InteractionRow | undefined {
    const r = this.db.prepare(`SELECT * FROM interactions WHERE id = ?`).get(id);
    return r ? toInteraction(r) : undefined;
  }

  interactions(taskId: string, states?: InteractionState[]): InteractionRow[] {
    if (states) {
      const marks = states.map(() => "?").join(",");
      return this.db
        .prepare(`SELECT * FROM interactions WHERE task_id = ? AND state IN (${marks}) ORDER BY created_at, rowid`)
        .all(taskId, ...states)
        .map(toInteraction);
    }
    return this.db.prepare(`SELECT * FROM interactions WHERE task_id = ? ORDER BY created_at, rowid`).all(taskId).map(toInteraction);
  }

  /** The kinds of a task's pending requests: all a wait pass or a state refresh needs of them. */
  pendingKinds(taskId: string): string[] {
    return this.db
      .prepare(`SELECT kind FROM interactions WHERE task_id = ? AND state = 'pending'`)
      .all(taskId)
      .map((r) => String(r.kind));
  }

  interactionsByConnection(connectionId: string, states: InteractionState[]): InteractionRow[] {
    const marks = states.map(() => "?").join(",");
    return this.db
      .prepare(`SELECT * FROM interactions WHERE connection_id = ? AND state IN (${marks})`)
      .all(connectionId, ...states)
      .map(toInteraction);
  }

  interactionsInStates(states: InteractionState[]): InteractionRow[] {
    const marks = states.map(() => "?").join(",");
    return this.db.prepare(`SELECT * FROM interactions WHERE state IN (${marks})`).all(...states).map(toInteraction);
  }

  updateInteraction(id: string, patch: { state?: InteractionState; response?: unknown; response_hash?: string; answered_by?: string; note?: string }): void {
    const cols: string[] = [];
    const vals: SqlValue[] = [];
    if (patch.state !== undefined) {
      cols.push("state = ?");
      vals.push(patch.state);
    }
    if (patch.response !== undefined) {
      cols.push("response = ?");
      vals.push(this.json(patch.response));
    }
    if (patch.response_hash !== undefined) {
      cols.push("response_hash = ?");
      vals.push(patch.response_hash);
    }
    if (patch.answered_by !== undefined) {
      cols.push("answered_by = ?");
      vals.push(patch.answered_by);
    }
    if (patch.note !== undefined) {
      cols.push("note = ?");
      vals.push(this.text(patch.note));
    }
    cols.push("updated_at = ?");
    vals.push(now());
    this.db.prepare(`UPDATE interactions SET ${cols.join(", ")} WHERE id = ?`).run(...vals, id);
  }

  setContext(taskId: string, ctx: Record<string, unknown>): void {
    this.db.prepare(`UPDATE tasks SET context_json = ? WHERE id = ?`).run(this.json(ctx), taskId);
  }

  context(taskId: string): Record<string, unknown> | undefined {
    const r = this.db.prepare(`SELECT context_json FROM tasks WHERE id = ?`).get(taskId);
    return r && r.context_json ? json(r.context_json, undefined) : undefined;
  }

  checkpoint(anchor: string): Record<string, unknown> | undefined {
    const r = this.db.prepare(`SELECT data FROM supervisory_checkpoints WHERE anchor = ?`).get(anchor);
    return r ? json(r.data, {}) : undefined;
  }

  setCheckpoint(anchor: string, taskId: string | null, data: Record<string, unknown>): void {
    this.db
      .prepare(
        `INSERT INTO supervisory_checkpoints (anchor, task_id, data, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(anchor) DO UPDATE SET task_id = COALESCE(excluded.task_id, task_id), data = excluded.data, updated_at = excluded.updated_at`,
      )
      .run(anchor, taskId, this.json(data), now());
  }
}
