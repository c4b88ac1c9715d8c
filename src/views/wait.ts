// codex_wait: the bounded long-poll over one or several tasks. It returns at the first news from any of them
// (a message, a request, a failure, the turn's end); routine progress is gathered for the next answer, and a wait
// with no news answers with one line of what each task is doing now.
import { BridgeError } from "../bridge-error.ts";
import type { EventRow } from "../store/rows.ts";
import { SETTLED_STATES } from "../store/rows.ts";
import { personDecides } from "../policy/answerer.ts";
import type { BridgeAlert } from "../tasks/alerts.ts";
import { StoreError } from "../store/errors.ts";
import type { ViewReads } from "./reads.ts";
import { activity, activityLine } from "./activity.ts";
import { buildDelta, isNews, isRoutine, MAX_EVENTS_PER_WAIT, ROUTINE_BATCH, type TaskDelta, type WaitMode } from "./wait-delta.ts";
import { decodeCursors, type Cursor } from "./wait-cursor.ts";
import type { WaitGuard } from "./wait-guard.ts";

/** How many tasks one wait may cover, with task_ids or without any id. */
export const MAX_WAIT_TASKS = 20;
const STEP_MS = 5000;
const ALERT_HOLD_MS = 3000;
const COALESCE_MS = 300;

export interface WaitInput {
  task_id?: string;
  task_ids?: string[];
  cursor?: string;
  timeout_seconds?: number;
  mode?: WaitMode;
}

export interface WaitContext {
  connectionKey: string;
  /** Called while the wait holds, with the one-line "what it is doing now" of the tasks. */
  onProgress?: (elapsedMs: number, totalMs: number, line: string) => void;
  signal?: AbortSignal;
  /** Defers moving the automatic cursors until the answer was really delivered; without it they move at once. */
  commitWhenDelivered?: (commit: () => void) => void;
  /** What this connection's transport allows one call to hold; without it, the profile's wait and the bridge maximum. */
  hold?: { defaultSeconds: number; maxSeconds: number };
}

export interface WaitAnswer {
  /** True when the caller named no single task_id: every item is labelled with its task. */
  multi: boolean;
  tasks: TaskDelta[];
  /** Conditions of the whole bridge (a full disk, a silent app-server) with what to do; absent when there are none. */
  alerts?: BridgeAlert[];
  /** Set when the asked timeout_seconds was above the limit: the one sentence saying it was shortened. */
  clamped?: string;
}

interface Watched {
  id: string;
  from: Cursor;
  explicit: boolean;
  lost: boolean;
  news: boolean;
  /** Settled and nothing unread: in a wait over several tasks it no longer holds the wait. */
  done: boolean;
  routine: number;
  /** What was read so far: events only ever append, so each pass reads just what arrived since the last one. */
  seen: number;
  count: number;
  eventNews: boolean;
}

function selectTasks(reads: ViewReads, input: WaitInput, connectionKey: string): string[] {
  const named = [...new Set([...(input.task_id ? [input.task_id] : []), ...(input.task_ids ?? [])])];
  if (named.length > MAX_WAIT_TASKS) throw new BridgeError(`task_ids names ${named.length} tasks; at most ${MAX_WAIT_TASKS}`, "task_ids");
  if (named.length === 0 && input.task_ids !== undefined) throw new BridgeError("task_ids is empty; name at least one task, or omit it to wait on every active task of this connection", "task_ids");
  for (const id of named) reads.task(id);
  if (named.length) return named;
  const followed = reads.rows.cursors.followed(connectionKey, [...SETTLED_STATES], MAX_WAIT_TASKS);
  if (!followed.length) throw new BridgeError("no active task on this connection; pass task_id or task_ids (codex_status lists recent tasks)", "task_ids");
  return followed;
}

/**
 * How long this wait may hold: what was asked (else the transport's or the profiles' default), never above the limit
 * (the transport's, else max_wait_seconds: 55 s by default, under the hosts' ~60 s tool-call limits). A larger ask is
 * shortened and said so.
 */
function holdSeconds(reads: ViewReads, ids: string[], input: WaitInput, ctx: WaitContext): { seconds: number; clamped?: string } {
  const max = ctx.hold?.maxSeconds ?? reads.maxWaitSeconds;
  const byProfile = Math.min(...ids.map((id) => reads.profile(reads.rows.task(id)!.profile_id).wait_timeout_seconds));
  const asked = input.timeout_seconds;
  if (asked !== undefined && asked > max) {
    return { seconds: max, clamped: `timeout_seconds ${asked} is above this bridge's ${max} s limit (MCP hosts end a tool call at about 60 s); held ${max} s` };
  }
  return { seconds: Math.min(asked ?? ctx.hold?.defaultSeconds ?? byProfile, max) };
}

/** Where each task's reading starts; a cursor from before a managed app-server restart is lost and re-anchored. */
function startingPoints(reads: ViewReads, ids: string[], input: WaitInput, connectionKey: string): Watched[] {
  const explicit = decodeCursors(input.cursor, ids);
  const generation = reads.rows.cursors.generation();
  return ids.map((id) => {
    const given = explicit.get(id);
    const from = given ?? reads.rows.cursors.get(connectionKey, id) ?? { seq: 0, generation };
    if (from.generation > generation) {
      throw new BridgeError(`cursor of ${id} is from app-server generation ${from.generation}, but this bridge is at generation ${generation}; omit it`, "cursor");
    }
    const lost = from.generation < generation;
    const start = lost ? { seq: reads.rows.cursors.floor(id, generation), generation } : from;
    return { id, from: start, explicit: given !== undefined, lost, news: false, done: false, routine: 0, seen: start.seq, count: 0, eventNews: false };
  });
}

/** Looks at one task now: does it need the supervisor, and how much routine progress has gathered? */
function look(reads: ViewReads, w: Watched, mode: WaitMode, multi: boolean): void {
  reads.sync(w.id);
  const t = reads.rows.task(w.id)!;
  // Events only append, and last_seq moves with them in one commit: an unchanged last_seq means nothing new to read.
  if (w.count < MAX_EVENTS_PER_WAIT && t.last_seq > w.seen) {
    const fresh: EventRow[] = reads.rows.events(w.id, w.seen, MAX_EVENTS_PER_WAIT - w.count);
    if (fresh.length) {
      w.seen = fresh[fresh.length - 1]!.seq;
      w.count += fresh.length;
      w.routine += fresh.filter(isRoutine).length;
      w.eventNews ||= fresh.some((e) => isNews(e, mode));
    }
  }
  const settled = SETTLED_STATES.has(t.state);
  w.done = multi && settled && w.count === 0 && !w.lost;
  w.news = w.lost || (settled && !w.done) || w.count >= MAX_EVENTS_PER_WAIT || w.eventNews || hasOpenRequest(reads, w.id, t.profile_id);
}

/** A pending request the supervisor must answer; one left to the person was reported once and does not keep waits short. */
function hasOpenRequest(reads: ViewReads, taskId: string, profileId: string): boolean {
  const kinds = reads.rows.pendingKinds(taskId);
  if (kinds.length === 0) return false;
  const person = personDecides(reads.profile(profileId).approvals);
  return kinds.some((k) => k === "tool" || !person);
}

export function progressLine(reads: ViewReads, ids: string[]): string {
  const lines = ids.map((id) => {
    const t = reads.rows.task(id)!;
    const line = activityLine(t.state, activity(reads.rows, t));
    return ids.length > 1 ? `${id} ${line}` : line;
  });
  return lines.join("; ");
}

/**
 * Bounded long-poll over one or several tasks. Returns as soon as one of them has something the supervisor must
 * read (or at once when it already has), else after the timeout with what each is doing now.
 */
export async function waitForTasks(reads: ViewReads, guard: WaitGuard, input: WaitInput, ctx: WaitContext): Promise<WaitAnswer> {
  const mode = input.mode ?? "auto";
  const multi = input.task_id === undefined;
  const ids = selectTasks(reads, input, ctx.connectionKey);
  const hold = holdSeconds(reads, ids, input, ctx);
  const timeoutS = hold.seconds;
  const watched = startingPoints(reads, ids, input, ctx.connectionKey);
  const release = guard.claim(ctx.connectionKey, watched.filter((w) => !w.explicit).map((w) => w.id));
  try {
    const started = Date.now();
    // While a condition of the whole bridge lasts (the disk full, the app-server silent) no task moves until it is dealt
    // with: a wait says it within a few seconds rather than hold for its whole timeout, and returns when it changes.
    const alertsAtStart = alertKey(reads.alerts());
    const deadline = started + Math.min(timeoutS * 1000, alertsAtStart ? ALERT_HOLD_MS : Infinity);
    let timedOut = false;
    let lingered = false;
    let lastLine = "";
    let lastProgress = 0;
    for (;;) {
      for (const w of watched) look(reads, w, mode, multi);
      if (watched.every((w) => w.done)) break;
      if (alertKey(reads.alerts()) !== alertsAtStart) break;
      if (watched.some((w) => w.news)) {
        // Tasks that report at the same moment (a phase ending everywhere) are answered together, not one per call.
        if (!multi || lingered || watched.every((w) => w.news || w.done)) break;
        lingered = true;
        await new Promise((r) => setTimeout(r, COALESCE_MS));
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0 || ctx.signal?.aborted) {
        timedOut = true;
        break;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, STEP_MS));
        const offs = ids.map((id) => reads.addWaiter(id, done));
        const onAbort = () => done();
        ctx.signal?.addEventListener("abort", onAbort);
        function done() {
          clearTimeout(timer);
          for (const off of offs) off();
          ctx.signal?.removeEventListener("abort", onAbort);
          resolve();
        }
      });
      if (ctx.onProgress) {
        // A busy task wakes the loop for every stored event: say something when it changed, or every few seconds.
        const line = progressLine(reads, ids);
        if (line !== lastLine || Date.now() - lastProgress >= STEP_MS) {
          ctx.onProgress(Date.now() - started, timeoutS * 1000, line);
          lastLine = line;
          lastProgress = Date.now();
        }
      }
    }
    const a = answer(reads, watched, { mode, multi, timedOut, connectionKey: ctx.connectionKey, commitWhenDelivered: ctx.commitWhenDelivered });
    return hold.clamped ? { ...a, clamped: hold.clamped } : a;
  } finally {
    release();
  }
}

function answer(
  reads: ViewReads,
  watched: Watched[],
  o: { mode: WaitMode; multi: boolean; timedOut: boolean; connectionKey: string; commitWhenDelivered?: (commit: () => void) => void },
): WaitAnswer {
  const generation = reads.rows.cursors.generation();
  const anyNews = watched.some((w) => w.news);
  const allDone = watched.every((w) => w.done);
  const commits: (() => void)[] = [];
  const tasks: TaskDelta[] = [];
  for (const w of watched) {
    reads.sync(w.id);
    const deliver = w.news || w.routine >= ROUTINE_BATCH || allDone;
    // In an answer with news, a task with nothing to deliver has nothing to say either.
    if (o.multi && !deliver && anyNews) continue;
    const { delta, to } = buildDelta(reads, w.id, { mode: o.mode, from: w.from.seq, generation, deliver, timedOut: o.timedOut && !w.news, explicit: w.explicit, lost: w.lost });
    tasks.push(delta);
    if (!w.explicit && (to.seq !== w.from.seq || w.lost)) commits.push(() => reads.rows.cursors.set(o.connectionKey, w.id, to));
  }
  if (commits.length) {
    // On a full disk the answer still goes out; the cursor stays where it was, so the next wait says it again.
    const commit = () => {
      try {
        reads.rows.tx(() => commits.forEach((c) => c()));
      } catch (err) {
        if (!(err instanceof StoreError)) throw err;
      }
    };
    if (o.commitWhenDelivered) o.commitWhenDelivered(commit);
    else commit();
  }
  const alerts = reads.alerts();
  return { multi: o.multi, tasks, ...(alerts.length ? { alerts } : {}) };
}

const alertKey = (alerts: BridgeAlert[]): string => alerts.map((a) => a.code).join(",");
