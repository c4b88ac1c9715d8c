// Retention: a finished task older than retention_days loses what no reader of an old task is promised (streamed and
// raw events, command output, message text past what a transcript page shows); its final answer, evidence, request
// ledger and checkpoint stay, and it records what went so it can say so. Live, pending, UNKNOWN and recently finished
// tasks are never touched. Runs by itself in small steps when no turn is running, and on demand (codex-bridge prune).
import type { EventLog } from "../log.ts";
import type { Repo } from "../store/repo.ts";
import type { CompactionRecord, TaskState } from "../store/rows.ts";
import {
  autoVacuumMode,
  dueTasks,
  longTexts,
  markCompacted,
  packFinalMessage,
  releaseFreePages,
  removeCommandOutput,
  removeRawEvents,
  repackTaskRows,
  rewriteData,
} from "../store/compaction.ts";
import { boundText } from "./bounded-output.ts";

/** codex_inspect shows at most this much of one message in a transcript page, so an old task keeps no more. */
export const KEPT_MESSAGE_CHARS = 8_000;
/** Tasks compacted per step: one short transaction, a few milliseconds, so no tool call waits on it noticeably. */
export const STEP_TASKS = 20;
/** A step stops taking more tasks after this long. */
const STEP_BUDGET_MS = 10;
/** Free pages handed back to the file system per step (2 MiB at 4 KiB pages). */
const VACUUM_STEP_PAGES = 512;
/** A pause between steps, so whatever arrived meanwhile (a tool call, an app-server event) is served first. */
const STEP_GAP_MS = 20;
const FIRST_RUN_MS = 2 * 60_000;
const RUN_EVERY_MS = 15 * 60_000;
const ACTIVE: TaskState[] = ["starting", "running", "waiting_for_approval", "waiting_for_tool"];
const DAY_MS = 86_400_000;

export interface CompactionTotals {
  tasks: number;
  events: number;
  outputs: number;
  texts: number;
}

export const noTotals = (): CompactionTotals => ({ tasks: 0, events: 0, outputs: 0, texts: 0 });

/** Bounds a stored message text (JSON data with a `text` field) to what a transcript page shows; null when within. */
function boundedData(data: string): string | null {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(data) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof parsed.text !== "string" || parsed.text.length <= KEPT_MESSAGE_CHARS) return null;
  return JSON.stringify({ ...parsed, text: boundText(parsed.text, KEPT_MESSAGE_CHARS).text });
}

/** Compacts one finished task in one transaction; returns what it removed. */
export function compactTask(repo: Repo, taskId: string, retentionDays: number, at = new Date()): CompactionTotals {
  return repo.tx(() => {
    const t = repo.task(taskId);
    if (!t) return noTotals();
    const db = repo.db;
    const events = removeRawEvents(db, taskId);
    const outputs = removeCommandOutput(db, taskId);
    let texts = 0;
    for (const long of longTexts(db, taskId, KEPT_MESSAGE_CHARS)) {
      const data = boundedData(long.data);
      if (data === null) continue;
      rewriteData(db, taskId, long.table, long.key, data);
      texts++;
    }
    if (events > 0 || texts > 0) repackTaskRows(db, "events", taskId);
    if (outputs > 0 || texts > 0) repackTaskRows(db, "items", taskId);
    packFinalMessage(db, taskId);
    const prior = t.compaction;
    const record: CompactionRecord = {
      at: at.toISOString(),
      retention_days: retentionDays,
      through_seq: t.last_seq,
      events_removed: (prior?.events_removed ?? 0) + events,
      outputs_removed: (prior?.outputs_removed ?? 0) + outputs,
    };
    markCompacted(db, taskId, record);
    return { tasks: 1, events, outputs, texts };
  });
}

/**
 * One bounded step: compacts up to `limit` of the oldest due tasks, stopping early once `budgetMs` have gone (a task
 * with a long answer to deflate takes milliseconds; the step must not hold a tool call for long).
 */
export function compactDue(repo: Repo, olderThanDays: number, limit = STEP_TASKS, now = new Date(), budgetMs = Number.POSITIVE_INFINITY): CompactionTotals {
  const cutoff = new Date(now.getTime() - olderThanDays * DAY_MS).toISOString();
  const totals = noTotals();
  const started = performance.now();
  // One commit for the step: the tasks' own transactions join it.
  repo.tx(() => {
    for (const id of dueTasks(repo.db, cutoff, limit)) {
      if (totals.tasks > 0 && performance.now() - started >= budgetMs) break;
      const r = compactTask(repo, id, olderThanDays, now);
      totals.tasks += r.tasks;
      totals.events += r.events;
      totals.outputs += r.outputs;
      totals.texts += r.texts;
    }
  });
  return totals;
}

/** One bounded step of handing free pages back; returns whether pages remain (false when the file is not incremental). */
export function releaseStep(repo: Repo, pages = VACUUM_STEP_PAGES): boolean {
  if (autoVacuumMode(repo.db) !== 2) return false;
  return releaseFreePages(repo.db, pages) > 0;
}

export interface RunnerTiming {
  /** After start-up, before the first round. */
  firstMs: number;
  /** Between rounds. */
  everyMs: number;
  /** Between the steps of a round. */
  gapMs: number;
}

/** The automatic side: every so often, when no turn runs, compacts due tasks and shrinks the file, step by step. */
export class RetentionRunner {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private run = noTotals();

  constructor(
    private readonly repo: Repo,
    private readonly retentionDays: number,
    private readonly log: EventLog,
    private readonly timing: RunnerTiming = { firstMs: FIRST_RUN_MS, everyMs: RUN_EVERY_MS, gapMs: STEP_GAP_MS },
  ) {}

  start(): void {
    if (this.retentionDays <= 0) return; // retention_days = 0 keeps everything
    this.schedule(this.timing.firstMs);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.step(), ms);
    this.timer.unref?.();
  }

  private quiet(): boolean {
    return this.repo.tasksInStates(ACTIVE).length === 0;
  }

  /** One step, then the next one soon while there is work and the bridge stays quiet; else the next round later. */
  private step(): void {
    this.timer = null;
    try {
      if (!this.quiet()) return this.finishRound();
      const r = compactDue(this.repo, this.retentionDays, STEP_TASKS, new Date(), STEP_BUDGET_MS);
      this.run.tasks += r.tasks;
      this.run.events += r.events;
      this.run.outputs += r.outputs;
      this.run.texts += r.texts;
      if (r.tasks > 0 || releaseStep(this.repo)) return this.schedule(this.timing.gapMs);
      this.finishRound();
    } catch (err) {
      // A failed step (a busy or full disk) is tried again next round; nothing was half-done (one transaction each).
      this.log("warn", "retention_step_failed", { error: err instanceof Error ? err.name : "unknown", code: (err as { code?: string }).code ?? "none" });
      this.finishRound();
    }
  }

  private finishRound(): void {
    if (this.run.tasks > 0) {
      this.log("info", "retention_compacted", { tasks: this.run.tasks, events: this.run.events, outputs: this.run.outputs, retention_days: this.retentionDays });
    }
    this.run = noTotals();
    this.schedule(this.timing.everyMs);
  }
}
