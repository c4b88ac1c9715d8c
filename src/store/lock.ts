// Holder lock: two bridges never share one state file unnoticed, whatever name each was given for it.
// Two lock files: `<real path>.lock` beside the database (what earlier versions and other hosts look at) and one
// named after the file's device and inode in a per-user directory, found from every symlink or hard link to it.
// The OS does not release them for us, so a lock left by a dead process is detected and taken over.
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, realpathSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname as osHostname, tmpdir, userInfo } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { z } from "zod";
import { StoreError } from "./errors.ts";

const LockHolderSchema = z.object({
  pid: z.number().int().positive(),
  startedAt: z.string(),
  hostname: z.string(),
  /** The name the holder opened the database by (absent in locks written by earlier versions). */
  database: z.string().optional(),
});
export type LockHolder = z.infer<typeof LockHolderSchema>;

export interface HolderLock {
  /** The database file's real path (symlinks resolved): the one name SQLite should open it by. */
  readonly database: string;
  /** `<real database path>.lock`. */
  readonly path: string;
  /** The lock named after the database file's device and inode. */
  readonly identityPath: string;
  readonly holder: LockHolder;
  /** This start created the database file (empty): no other start can have, as only the lock's holder creates it. */
  readonly createdFile: boolean;
  /** Removes the lock files that are still ours. Idempotent. */
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
  /** Where the identity locks live. Default: defaultIdentityLockDir(). */
  identityLockDir?: string;
}

export class StoreLockedError extends StoreError {
  constructor(
    readonly databasePath: string,
    /** null when the lock file stayed unreadable for the whole wait. */
    readonly holder: LockHolder | null,
    waitedMs: number,
    readonly lockPath = `${databasePath}.lock`,
  ) {
    const otherName = holder?.database !== undefined && holder.database !== databasePath ? `, which opened the same file as ${holder.database}` : "";
    const who = holder
      ? `another codex-bridge: PID ${holder.pid} on ${holder.hostname}, started ${holder.startedAt}${otherName}`
      : `a process that left an unreadable lock file ${lockPath}`;
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

/** A per-user directory under the OS temp dir: the same for every bridge of this user, emptied on reboot. */
export function defaultIdentityLockDir(): string {
  let user: string;
  try {
    user = process.platform === "win32" ? userInfo().username : String(process.getuid?.() ?? userInfo().username);
  } catch {
    user = "user";
  }
  return join(tmpdir(), `codex-bridge-locks-${user.replace(/[^A-Za-z0-9._-]/g, "_")}`);
}

/** Creates the identity lock directory owner-only, refusing one another user planted (the temp dir is shared). */
function prepareLockDir(dir: string, databasePath: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory()) throw new Error("it is not a directory");
    if (process.platform !== "win32") {
      const uid = process.getuid?.();
      if (uid !== undefined && st.uid !== uid) throw new Error(`it belongs to user id ${st.uid}, not to this user (${uid})`);
      if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
    }
  } catch (err) {
    throw new StoreError(
      `Cannot use the lock directory ${dir}: ${(err as Error).message}. ` +
        `It holds one lock per open state database; make the temp directory (TMPDIR) usable by this user only.`,
      databasePath,
      { cause: err },
    );
  }
}

/** The database's real path, found without creating it: symlinks resolved, a missing file kept under its own name. */
function prospectiveRealPath(databasePath: string): string {
  let path = resolve(databasePath);
  for (let hops = 0; hops < 40; hops++) {
    try {
      return realpathSync.native(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    let target: string;
    try {
      target = readlinkSync(path);
    } catch {
      return join(realpathSync.native(dirname(path)), basename(path));
    }
    path = resolve(dirname(path), target);
  }
  throw new Error("it is a chain of more than 40 symbolic links");
}

interface FileIdentity {
  real: string;
  id: string;
  /** This call created the file (empty, owner-only). */
  created: boolean;
}

/**
 * The database file's identity, creating the file when missing so that it has one. Only the holder of its path lock
 * may do so: a file another starter created and left empty would look like an emptied state to the winner.
 */
function fileIdentity(databasePath: string): FileIdentity {
  const real = prospectiveRealPath(databasePath);
  let created = false;
  try {
    closeSync(openSync(real, "wx", 0o600));
    created = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const st = statSync(real, { bigint: true });
  return { real, id: `${st.dev}-${st.ino}`, created };
}

/** The identity lock path for a database file (created empty if missing, like acquireHolderLock does). */
export function identityLockPath(databasePath: string, dir = defaultIdentityLockDir()): string {
  return join(dir, `${fileIdentity(databasePath).id}.lock`);
}

interface Attempt {
  self: LockHolder;
  content: string;
  isDead(h: LockHolder): boolean;
  started: number;
  waitMs: number;
  pollMs: number;
}

/**
 * Takes one lock file, waiting until `waitMs` after `a.started` for a live holder to go away.
 * Throws StoreLockedError naming the holder when it does not, StoreError when the lock file cannot be written.
 */
async function acquireFile(lockPath: string, databasePath: string, a: Attempt): Promise<void> {
  let lastHolder: LockHolder | undefined;
  for (;;) {
    try {
      if (createExclusive(lockPath, a.content)) return;
    } catch (err) {
      throw new StoreError(
        `Cannot create the lock file ${lockPath} for the state database: ${(err as Error).message}. ` +
          `Make that directory writable, or set CODEX_BRIDGE_STATE to a writable file.`,
        databasePath,
        { cause: err },
      );
    }
    const current = readLock(lockPath);
    const waited = Date.now() - a.started;
    if (current.kind === "held" && !a.isDead(current.holder)) {
      lastHolder = current.holder;
      if (waited >= a.waitMs) throw new StoreLockedError(databasePath, current.holder, waited, lockPath);
    } else {
      // Missing, half-written, or a dead holder someone else is replacing: these settle within moments, so they
      // are waited out even past waitMs; the cap only guards against a lock directory that never settles.
      if (current.kind === "held" && removeStaleLock(lockPath, current.raw, a.self, a.isDead)) continue;
      if (current.kind === "unreadable" && current.ageMs > UNREADABLE_GRACE_MS && removeStaleLock(lockPath, null, a.self, a.isDead)) continue;
      if (current.kind === "missing") continue;
      if (waited >= a.waitMs + TRANSIENT_CAP_MS) throw new StoreLockedError(databasePath, lastHolder ?? null, waited, lockPath);
    }
    const remaining = a.waitMs - (Date.now() - a.started);
    await sleep(remaining > 0 ? Math.min(a.pollMs, remaining) : Math.min(a.pollMs, 20));
  }
}

// The file behind the name may be replaced while we wait; past this many replacements we keep the last one seen.
const IDENTITY_ATTEMPTS = 5;

/**
 * Takes the holder lock for `databasePath` (created empty if missing), waiting up to `waitMs` for a live holder
 * to go away: first `<real path>.lock`, then the identity lock every other name of the same file meets.
 * Throws StoreLockedError naming the holder when it does not, StoreError when a lock file cannot be written.
 */
export async function acquireHolderLock(databasePath: string, opts: AcquireLockOptions): Promise<HolderLock> {
  const lockDir = opts.identityLockDir ?? defaultIdentityLockDir();
  const inspect = <T>(step: () => T): T => {
    try {
      return step();
    } catch (err) {
      throw new StoreError(
        `Cannot create or inspect the state database ${databasePath}: ${(err as Error).message}. ` +
          `Set CODEX_BRIDGE_STATE to a writable file path.`,
        databasePath,
        { cause: err },
      );
    }
  };
  prepareLockDir(lockDir, databasePath);
  const self: LockHolder = {
    pid: opts.pid ?? process.pid,
    startedAt: new Date().toISOString(),
    hostname: opts.hostname ?? osHostname(),
    database: databasePath,
  };
  const attempt: Attempt = {
    self,
    content: JSON.stringify(self),
    // A lock from another host cannot be checked for liveness, so it counts as live.
    isDead: (h) => h.hostname === self.hostname && !opts.processAlive(h.pid),
    started: Date.now(),
    waitMs: opts.waitMs ?? DEFAULT_WAIT_MS,
    pollMs: opts.pollMs ?? DEFAULT_POLL_MS,
  };

  for (let tries = 1; ; tries++) {
    const pathLock = `${inspect(() => prospectiveRealPath(databasePath))}.lock`;
    await acquireFile(pathLock, databasePath, attempt);
    let identity: FileIdentity;
    try {
      identity = inspect(() => fileIdentity(databasePath));
    } catch (err) {
      releaseFile(pathLock, attempt.content);
      throw err;
    }
    const idLock = join(lockDir, `${identity.id}.lock`);
    try {
      await acquireFile(idLock, databasePath, attempt);
    } catch (err) {
      if (identity.created) unlinkQuietly(identity.real);
      releaseFile(pathLock, attempt.content);
      throw err;
    }
    // Replaced or re-pointed while we waited: lock the file that is there now.
    const now = inspect(() => fileIdentity(databasePath));
    if ((now.id === identity.id && `${now.real}.lock` === pathLock) || tries >= IDENTITY_ATTEMPTS) {
      return makeLock(identity.real, pathLock, idLock, self, attempt.content, identity.created);
    }
    releaseFile(idLock, attempt.content);
    releaseFile(pathLock, attempt.content);
  }
}

/** Removes a lock file if it still holds our content: someone may have judged us dead and taken over. */
function releaseFile(lockPath: string, content: string): void {
  try {
    if (readFileSync(lockPath, "utf8") === content) unlinkSync(lockPath);
  } catch {
    // already gone
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

function makeLock(database: string, lockPath: string, identityPath: string, holder: LockHolder, content: string, createdFile: boolean): HolderLock {
  let released = false;
  const lock: HolderLock = {
    database,
    createdFile,
    path: lockPath,
    identityPath,
    holder,
    release() {
      if (released) return;
      released = true;
      liveLocks.delete(lock);
      releaseFile(identityPath, content);
      releaseFile(lockPath, content);
    },
  };
  liveLocks.add(lock);
  installExitHook();
  return lock;
}
