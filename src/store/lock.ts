// Holder lock: a `<db>.lock` file beside the database so two bridges never share one state file unnoticed.
// The OS does not release it for us, so a lock left by a dead process is detected and taken over.
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname as osHostname } from "node:os";
import { z } from "zod";
import { StoreError } from "./store-error.ts";

const LockHolderSchema = z.object({
  pid: z.number().int().positive(),
  startedAt: z.string(),
  hostname: z.string(),
});
export type LockHolder = z.infer<typeof LockHolderSchema>;

export interface HolderLock {
  readonly path: string;
  readonly holder: LockHolder;
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): void;
}

export interface AcquireLockOptions {
  /** Tells whether a process exists; the platform's processAlive. */
  processAlive(pid: number): boolean;
  /** How long to wait for a live holder that may be exiting. Default 5000. */
  waitMs?: number;
  pid?: number;
  hostname?: string;
  /** Poll interval while waiting. Default 100. */
  pollMs?: number;
}

export class StoreLockedError extends StoreError {
  constructor(
    readonly databasePath: string,
    /** null when the lock file stayed unreadable for the whole wait. */
    readonly holder: LockHolder | null,
    waitedMs: number,
  ) {
    const who = holder
      ? `another codex-bridge: PID ${holder.pid} on ${holder.hostname}, started ${holder.startedAt}`
      : `a process that left an unreadable lock file ${databasePath}.lock`;
    const remedy = holder
      ? "Stop that process, or set CODEX_BRIDGE_STATE to a different file to run a second bridge."
      : "If no other codex-bridge runs, delete that lock file; or set CODEX_BRIDGE_STATE to a different file.";
    super(
      `The state database ${databasePath} is in use by ${who} (waited ${(waitedMs / 1000).toFixed(1)} s for it to exit). ${remedy}`,
      databasePath,
    );
    this.name = "StoreLockedError";
  }
}

const DEFAULT_WAIT_MS = 5000;
const DEFAULT_POLL_MS = 100;
// A lock file we cannot parse is normally one being written right now; past this age its writer died mid-write.
const UNREADABLE_GRACE_MS = 5000;
// The takeover guard is held for a few file operations only; older than this, its owner died holding it.
const GUARD_STALE_MS = 10_000;
// Longer than both grace periods above, so a transient state always resolves before we give up.
const TRANSIENT_CAP_MS = 20_000;

type ReadResult = { kind: "missing" } | { kind: "unreadable"; ageMs: number } | { kind: "held"; holder: LockHolder; raw: string };

function readLock(path: string): ReadResult {
  let raw: string;
  let mtimeMs: number;
  try {
    raw = readFileSync(path, "utf8");
    mtimeMs = statSync(path).mtimeMs;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
    throw err;
  }
  try {
    return { kind: "held", holder: LockHolderSchema.parse(JSON.parse(raw)), raw };
  } catch {
    return { kind: "unreadable", ageMs: Date.now() - mtimeMs };
  }
}

/** Creates `path` only if absent; false when it exists. The content lands in one write right after creation. */
function createExclusive(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    writeSync(fd, content);
  } catch (err) {
    closeSync(fd);
    unlinkQuietly(path); // an empty lock would block the next start for the unreadable grace period
    throw err;
  }
  closeSync(fd);
  return true;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Removes a stale lock, serialised through a short-lived `<lock>.takeover` guard: without it, two starters that
 * both saw the same dead holder could each delete the lock, and the slower one would delete the winner's fresh lock.
 * Returns true when the caller should retry creating the lock right away.
 */
function removeStaleLock(lockPath: string, staleRaw: string | null, self: LockHolder, isDead: (h: LockHolder) => boolean): boolean {
  const guardPath = `${lockPath}.takeover`;
  if (!createExclusive(guardPath, JSON.stringify(self))) {
    const guard = readLock(guardPath);
    const guardAbandoned =
      guard.kind === "held" ? isDead(guard.holder) : guard.kind === "unreadable" && guard.ageMs > GUARD_STALE_MS;
    if (guardAbandoned) unlinkQuietly(guardPath);
    return false;
  }
  try {
    const now = readLock(lockPath);
    if (now.kind === "missing") return true;
    // Only delete the exact content we judged stale; anything else is someone's fresh lock.
    const stillStale =
      (now.kind === "held" && staleRaw !== null && now.raw === staleRaw) ||
      (now.kind === "unreadable" && staleRaw === null && now.ageMs > UNREADABLE_GRACE_MS);
    if (stillStale) unlinkQuietly(lockPath);
    return stillStale;
  } finally {
    unlinkQuietly(guardPath);
  }
}

/**
 * Takes the holder lock for `databasePath`, waiting up to `waitMs` for a live holder to go away.
 * Throws StoreLockedError naming the holder when it does not, StoreError when the lock file cannot be written.
 */
export async function acquireHolderLock(databasePath: string, opts: AcquireLockOptions): Promise<HolderLock> {
  const lockPath = `${databasePath}.lock`;
  const waitMs = opts.waitMs ?? DEFAULT_WAIT_MS;
  const pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
  const self: LockHolder = {
    pid: opts.pid ?? process.pid,
    startedAt: new Date().toISOString(),
    hostname: opts.hostname ?? osHostname(),
  };
  const content = JSON.stringify(self);
  // A lock from another host cannot be checked for liveness, so it counts as live.
  const isDead = (h: LockHolder): boolean => h.hostname === self.hostname && !opts.processAlive(h.pid);
  const started = Date.now();
  let lastHolder: LockHolder | undefined;

  for (;;) {
    try {
      if (createExclusive(lockPath, content)) return makeLock(lockPath, self, content);
    } catch (err) {
      throw new StoreError(
        `Cannot create the lock file ${lockPath} beside the state database: ${(err as Error).message}. ` +
          `Make that directory writable, or set CODEX_BRIDGE_STATE to a writable file.`,
        databasePath,
        { cause: err },
      );
    }
    const current = readLock(lockPath);
    const waited = Date.now() - started;
    if (current.kind === "held" && !isDead(current.holder)) {
      lastHolder = current.holder;
      if (waited >= waitMs) throw new StoreLockedError(databasePath, current.holder, waited);
    } else {
      // Missing, half-written, or a dead holder someone else is replacing: these settle within moments, so they
      // are waited out even past waitMs; the cap only guards against a lock directory that never settles.
      if (current.kind === "held" && removeStaleLock(lockPath, current.raw, self, isDead)) continue;
      if (current.kind === "unreadable" && current.ageMs > UNREADABLE_GRACE_MS && removeStaleLock(lockPath, null, self, isDead)) continue;
      if (current.kind === "missing") continue;
      if (waited >= waitMs + TRANSIENT_CAP_MS) throw new StoreLockedError(databasePath, lastHolder ?? null, waited);
    }
    const remaining = waitMs - (Date.now() - started);
    await sleep(remaining > 0 ? Math.min(pollMs, remaining) : Math.min(pollMs, 20));
  }
}

const liveLocks = new Set<HolderLock>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' covers a normal end and process.exit(); a signal death leaves a lock the next start takes over.
  process.on("exit", () => {
    for (const lock of [...liveLocks]) lock.release();
  });
}

function makeLock(lockPath: string, holder: LockHolder, content: string): HolderLock {
  let released = false;
  const lock: HolderLock = {
    path: lockPath,
    holder,
    release() {
      if (released) return;
      released = true;
      liveLocks.delete(lock);
      try {
        // Someone may have judged us dead and taken over; their lock is not ours to remove.
        if (readFileSync(lockPath, "utf8") === content) unlinkSync(lockPath);
      } catch {
        // already gone
      }
    },
  };
  liveLocks.add(lock);
  installExitHook();
  return lock;
}
