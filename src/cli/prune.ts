// `codex-bridge prune [--older-than DAYS] [--dry-run] [--json]`: compacts the finished tasks older than DAYS (default
// the config's retention_days) now, hands the freed pages back to the file system and reports what it freed.
import { statSync } from "node:fs";
import type { Platform } from "../../platform/types.ts";
import { describeStartupError, openBridgeState, type OpenedState } from "../app/open-state.ts";
import { Logger } from "../log.ts";
import { redactor } from "../policy/redact.ts";
import { autoVacuumMode, dueEstimate, foldLog, releaseFreePages, switchToIncrementalVacuum } from "../store/compaction.ts";
import { MEMORY_PATH } from "../store/location.ts";
import { StoreLockedError } from "../store/lock.ts";
import { Repo } from "../store/repo.ts";
import { compactDue, noTotals, type CompactionTotals } from "../tasks/retention.ts";

const stderr = new Logger();
const USAGE = "usage: codex-bridge prune [--older-than DAYS] [--dry-run] [--json]";
/** Tasks per transaction when pruning on demand: large enough to be quick, small enough to keep the log small. */
const PRUNE_BATCH = 500;
const DAY_MS = 86_400_000;
/** Above this share of free pages prune rewrites the file (VACUUM) rather than moving pages into the gaps. */
const REWRITE_FREE_SHARE = 0.25;

function freeShare(db: OpenedState["store"]["db"]): number {
  const pages = Number(db.prepare("PRAGMA page_count").get()?.page_count ?? 0);
  const free = Number(db.prepare("PRAGMA freelist_count").get()?.freelist_count ?? 0);
  return pages > 0 ? free / pages : 0;
}

interface PruneOptions {
  days?: number;
  dryRun: boolean;
  json: boolean;
}

export interface PruneReport extends CompactionTotals {
  state: string;
  older_than_days: number;
  dry_run: boolean;
  /** The database file and its write-ahead log, before and after. */
  bytes_before: number;
  bytes_after: number;
  bytes_freed: number;
  /** A dry run: about how many bytes of stored text and output would go. */
  bytes_to_remove?: number;
  /** "incremental" (free pages handed back in place), "rewritten" (VACUUM: most of the file was free, or the one-time switch to incremental vacuum). */
  vacuum?: "incremental" | "rewritten";
}

function parse(args: string[]): PruneOptions | string {
  const o: PruneOptions = { dryRun: false, json: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--dry-run") o.dryRun = true;
    else if (a === "--json") o.json = true;
    else if (a === "--older-than") {
      const v = args[++i];
      if (v === undefined || !/^\d+$/.test(v)) return `--older-than needs a whole number of days (0 or more); got ${v === undefined ? "nothing" : JSON.stringify(v)}`;
      o.days = Number(v);
    } else return `unknown option ${a}`;
  }
  return o;
}

/** The state file's size with its write-ahead log: what a prune can give back is measured on both. */
export function fileBytes(path: string): number {
  let n = 0;
  for (const f of [path, `${path}-wal`]) {
    try {
      n += statSync(f).size;
    } catch {
      // no log file: nothing to add
    }
  }
  return n;
}

const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;

/** Compacts every due task and shrinks the file; the caller holds the state (and its lock). */
export function prune(opened: OpenedState, days: number, dryRun: boolean): PruneReport {
  const { store } = opened;
  const before = fileBytes(store.path);
  const report: PruneReport = { state: store.path, older_than_days: days, dry_run: dryRun, ...noTotals(), bytes_before: before, bytes_after: before, bytes_freed: 0 };
  if (dryRun) {
    const e = dueEstimate(store.db, new Date(Date.now() - days * DAY_MS).toISOString());
    return { ...report, tasks: e.tasks, events: e.events, outputs: e.outputs, bytes_to_remove: e.bytes };
  }
  const repo = new Repo(store.db, redactor);
  const now = new Date();
  for (;;) {
    const r = compactDue(repo, days, PRUNE_BATCH, now);
    if (r.tasks === 0) break;
    report.tasks += r.tasks;
    report.events += r.events;
    report.outputs += r.outputs;
    report.texts += r.texts;
  }
  // Moving pages one at a time into free slots costs more than copying what is left once most of the file is free.
  if (autoVacuumMode(store.db) === 2 && freeShare(store.db) < REWRITE_FREE_SHARE) {
    releaseFreePages(store.db, 2 ** 31 - 1);
    report.vacuum = "incremental";
  } else {
    switchToIncrementalVacuum(store.db);
    report.vacuum = "rewritten";
  }
  foldLog(store.db);
  report.bytes_after = fileBytes(store.path);
  report.bytes_freed = Math.max(0, before - report.bytes_after);
  return report;
}

function render(r: PruneReport): string {
  if (r.dry_run) {
    return (
      `prune --dry-run: ${r.tasks} finished task(s) older than ${r.older_than_days} day(s) would be compacted in ${r.state}: ` +
      `${r.events} raw event(s) and ${r.outputs} command output(s), about ${mib(r.bytes_to_remove ?? 0)} of stored text; the file is ${mib(r.bytes_before)}.`
    );
  }
  const how = r.vacuum === "rewritten" ? " (the file was rewritten once to switch on incremental vacuum; later prunes and the bridge itself shrink it in place)" : "";
  return (
    `prune: compacted ${r.tasks} finished task(s) older than ${r.older_than_days} day(s) in ${r.state}: removed ${r.events} raw event(s), ` +
    `${r.outputs} command output(s), shortened ${r.texts} long message(s). The file went from ${mib(r.bytes_before)} to ${mib(r.bytes_after)}: ${mib(r.bytes_freed)} freed${how}.`
  );
}

export async function runPrune(platform: Platform, args: string[]): Promise<number> {
  const o = parse(args);
  if (typeof o === "string") {
    stderr.plain(`codex-bridge prune: ${o}; ${USAGE}`);
    return 2;
  }
  let opened: OpenedState;
  try {
    opened = await openBridgeState(platform, { env: process.env, cwd: process.cwd(), lockWaitMs: 0 });
  } catch (err) {
    if (err instanceof StoreLockedError && err.holder) {
      const h = err.holder;
      stderr.plain(
        `codex-bridge prune: ${err.databasePath} is in use by the running codex-bridge PID ${h.pid} on ${h.hostname} (since ${h.startedAt}). ` +
          `A running bridge compacts finished tasks older than retention_days by itself whenever no turn runs, in small steps; ` +
          `to prune now or with another --older-than, stop it and run prune again.`,
      );
      return 1;
    }
    stderr.plain(`codex-bridge prune: ${describeStartupError(err)}`);
    return 1;
  }
  try {
    if (opened.store.path === MEMORY_PATH) {
      stderr.plain("codex-bridge prune: the state is :memory: (CODEX_BRIDGE_STATE); there is nothing stored to prune");
      return 1;
    }
    const r = prune(opened, o.days ?? opened.config.config.retention_days, o.dryRun);
    process.stdout.write((o.json ? JSON.stringify(r, null, 2) : render(r)) + "\n");
    return 0;
  } catch (err) {
    stderr.plain(`codex-bridge prune: ${err instanceof Error ? err.message : String(err)} (${opened.store.path})`);
    return 1;
  } finally {
    opened.store.close();
  }
}
