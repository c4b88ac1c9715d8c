// Between the app-server and SQLite: per-task ingest state, events written in batches, and the waiters to wake.
import type { NewEvent, Repo } from "../store/repo.ts";
import type { HeldWrites } from "./held-writes.ts";
import { TaskIngest } from "./ingest.ts";
import { SETTLED_STATES, type FailureCode, type TaskRow } from "../store/rows.ts";

interface LiveTask {
  ingest: TaskIngest;
  buffer: NewEvent[];
  items: Parameters<Repo["upsertItem"]>[0][];
  flushTimer: ReturnType<typeof setTimeout> | null;
  diff: string | null;
  /** Why the bridge itself asked Codex to interrupt the current turn (a supervisor's cancel, an unreachable provider). */
  stopReason: FailureCode | null;
  /** Codex's "waiting for network" reports in the current turn. */
  unreachableReports: number;
  /** The seq of the first stored chunk of each message still streaming: where its chunks are, once it completes. */
  chunksFrom: Map<string, number>;
}

/**
 * Between the app-server and SQLite: per-task ingest state, buffered events written in batches (a 5,000-delta stream
 * must not cost 5,000 commits), and the waiters woken when something was stored.
 */
export class TaskEvents {
  private readonly live = new Map<string, LiveTask>();
  private readonly waiters = new Map<string, Set<() => void>>();
  // Followers of every task (the person's watch, the notifier): told which task changed, after it was stored.
  private readonly everyTask = new Set<(taskId: string) => void>();

  constructor(
    private readonly repo: Repo,
    /** Where writes the app-server's events need go: held (not lost) while the disk refuses them. */
    readonly writes: HeldWrites,
  ) {}

  /** The in-memory ingest state of a task, created on first use. */
  state(taskId: string): LiveTask {
    let l = this.live.get(taskId);
    if (!l) {
      const t = this.repo.task(taskId);
      l = { ingest: new TaskIngest(t?.turn_id ?? null), buffer: [], items: [], flushTimer: null, diff: null, stopReason: null, unreachableReports: 0, chunksFrom: new Map() };
      this.live.set(taskId, l);
    }
    return l;
  }

  /** Forgets the in-memory state of a task (its connection is gone, or a new turn starts on a new one). */
  forget(taskId: string): void {
    const l = this.live.get(taskId);
    if (l?.flushTimer) clearTimeout(l.flushTimer);
    this.live.delete(taskId);
  }

  scheduleFlush(taskId: string, ms: number): void {
    const l = this.state(taskId);
    if (l.flushTimer) return;
    l.flushTimer = setTimeout(() => {
      l.flushTimer = null;
      this.flush(taskId);
    }, ms);
  }

  /** Stores what every task has buffered, so no flush is left pending when the store closes. */
  flushAll(): void {
    for (const taskId of [...this.live.keys()]) this.flush(taskId);
  }

  /** Stores what is buffered; `final` (the connection is gone) also stores a line Codex was still streaming. */
  flush(taskId: string, final = false): void {
    const l = this.live.get(taskId);
    if (!l) return;
    if (l.flushTimer) {
      clearTimeout(l.flushTimer);
      l.flushTimer = null;
    }
    if (l.buffer.length === 0 && l.items.length === 0 && !l.ingest.hasPendingDeltas() && !final) return;
    this.writes.run("events", () => {
      this.repo.tx(() => this.flushInside(taskId, final));
      this.wake(taskId);
    });
  }

  /** Writes what is buffered; the caller holds the transaction. */
  flushInside(taskId: string, final = false): void {
    const l = this.live.get(taskId);
    if (!l) return;
    // Pending deltas are always newer than anything buffered.
    const events = [...l.buffer, ...l.ingest.drainDeltas(final)];
    l.buffer = [];
    const items = l.items;
    l.items = [];
    this.repo.onRollback(() => {
      l.buffer = [...events, ...l.buffer];
      l.items = [...items, ...l.items];
    });
    this.repo.upsertItems(items);
    if (events.length) {
      const last = this.repo.appendEvents(taskId, events);
      events.forEach((e, k) => {
        if (e.kind === "message_delta" && e.item_id && !l.chunksFrom.has(e.item_id)) l.chunksFrom.set(e.item_id, last - events.length + 1 + k);
      });
    }
    // Stored once: a completed message's streamed chunks (found by seq, never by a scan of the task's events), and the
    // text of an item whose message event now shows it.
    for (const i of items) {
      if (i.type !== "agentMessage" || i.status !== "completed") continue;
      const from = l.chunksFrom.get(i.item_id);
      if (from !== undefined) this.repo.dropStreamedChunks(taskId, i.item_id, from);
      l.chunksFrom.delete(i.item_id);
    }
    for (const e of events) if (e.kind === "message" && e.item_id) this.repo.dropItemText(taskId, e.item_id);
  }

  appendNow(taskId: string, events: NewEvent[]): void {
    this.flush(taskId);
    this.repo.appendEvents(taskId, events);
    this.wake(taskId);
  }

  addWaiter(taskId: string, fn: () => void): () => void {
    let set = this.waiters.get(taskId);
    if (!set) this.waiters.set(taskId, (set = new Set()));
    set.add(fn);
    return () => set!.delete(fn);
  }

  /** Wakes every waiter: a condition of the whole bridge (a full disk, a silent app-server) began or ended. */
  wakeAll(): void {
    for (const set of [...this.waiters.values()]) for (const fn of [...set]) fn();
  }

  /** Calls fn with a task's id whenever something of that task was stored; returns the way to stop. */
  addAnyWaiter(fn: (taskId: string) => void): () => void {
    this.everyTask.add(fn);
    return () => this.everyTask.delete(fn);
  }

  wake(taskId: string): void {
    for (const fn of [...(this.waiters.get(taskId) ?? [])]) fn();
    for (const fn of [...this.everyTask]) fn(taskId);
  }

  /** Resolves true once the task is settled, false after ms. */
  waitForSettled(taskId: string, ms: number): Promise<boolean> {
    return this.waitFor(taskId, (t) => SETTLED_STATES.has(t.state), ms);
  }

  /** Resolves true once `done` holds for the task after a wake, false after ms. */
  waitFor(taskId: string, done: (t: TaskRow) => boolean, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const finish = (v: boolean) => {
        clearTimeout(timer);
        off();
        resolve(v);
      };
      const timer = setTimeout(() => finish(false), ms);
      const off = this.addWaiter(taskId, () => {
        const t = this.repo.task(taskId);
        if (t && done(t)) finish(true);
      });
    });
  }
}
