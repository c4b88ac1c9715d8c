// Opens the state database the way every caller needs it: locked against a second bridge under any name, opened by its
// one real name, WAL, owner-only file mode, migrated. Failures become one StoreError naming the path and the remedy.
import { chmodSync, mkdirSync, rmSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Database, Platform } from "../../platform/types.ts";
import { acquireHolderLock, type HolderLock } from "./lock.ts";
import { MEMORY_PATH } from "./location.ts";
import { migrate, type Migration } from "./migrate.ts";
import { StoreError, storeFailure } from "./errors.ts";
import { guardDatabase, StorageCondition } from "./storage-condition.ts";
import { checkIntegrity, refuseEmptyFile, type IntegrityDepth } from "./integrity.ts";

export { StoreError } from "./errors.ts";
export { StoreLockedError } from "./lock.ts";

export interface OpenStateOptions {
  /** How long to wait for a live holder that may be exiting. Default 5000 ms. */
  lockWaitMs?: number;
  /** The pid recorded in the lock (tests stand in for other processes). Default: this process. */
  pid?: number;
  /** SQLite busy_timeout. Default 5000 ms. */
  busyTimeoutMs?: number;
  /** How much of the file is checked before use: "quick" (bounded; the default) or "full" (doctor). */
  integrity?: IntegrityDepth;
}

export interface OpenedStore {
  db: Database;
  path: string;
  lock: HolderLock | null;
  /** What is wrong with the file right now (a full disk, damage), as the last failed call found it. */
  condition: StorageCondition;
  /** Closes the database, then releases the lock. Idempotent. */
  close(): void;
}

const WAL_ATTEMPTS = 50;
const WAL_RETRY_MS = 100;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

const isBusy = (err: unknown): boolean => /^SQLITE_(BUSY|LOCKED)/.test(errorCode(err) ?? "");

function unusable(path: string, err: unknown): StoreError {
  return storeFailure(path, err);
}

function restrictMode(path: string): void {
  if (process.platform === "win32") return; // POSIX modes do not apply; the per-user profile dir protects it
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      chmodSync(file, 0o600);
    } catch (err) {
      if (errorCode(err) !== "ENOENT") throw err;
    }
  }
}

/**
 * A new file gets incremental vacuum, so pages freed by retention can be handed back to the file system in small
 * steps (only possible before the first table exists; a file from an earlier version gets it from its first
 * `codex-bridge prune`, which rewrites it once), and 8 KiB pages: a command item with a few KiB of output sits alone
 * on a 4 KiB page, and three share an 8 KiB one (a third less file for the same tasks, measured by test:scale).
 */
function chooseLayoutIfNew(db: Database): void {
  if (Number(db.prepare("PRAGMA page_count").get()?.page_count ?? 0) === 0) db.exec("PRAGMA page_size=8192; PRAGMA auto_vacuum=INCREMENTAL");
}

async function switchToWal(db: Database): Promise<void> {
  // Two processes creating a fresh database race on the journal-mode change; busy_timeout does not cover it.
  for (let attempt = 1; ; attempt++) {
    try {
      const mode = db.prepare("PRAGMA journal_mode=WAL").get()?.journal_mode;
      if (mode !== "wal") throw new Error(`SQLite refused WAL mode (journal_mode is ${String(mode)}); the file system may not support it`);
      return;
    } catch (err) {
      if (!isBusy(err) || attempt >= WAL_ATTEMPTS) throw err;
      await sleep(WAL_RETRY_MS);
    }
  }
}

async function openMemory(platform: Platform, migrations: readonly Migration[]): Promise<OpenedStore> {
  const raw = await platform.openDatabase(MEMORY_PATH);
  try {
    raw.exec("PRAGMA foreign_keys=ON");
    migrate(raw, migrations, { path: MEMORY_PATH });
  } catch (err) {
    raw.close();
    throw err;
  }
  const condition = new StorageCondition();
  const db = guardDatabase(raw, MEMORY_PATH, condition);
  return { db, path: MEMORY_PATH, lock: null, condition, close: () => db.close() };
}

function existingEmpty(path: string): boolean {
  try {
    return statSync(path).size === 0;
  } catch {
    return false;
  }
}

export async function openStateDatabase(
  platform: Platform,
  path: string,
  migrations: readonly Migration[],
  opts: OpenStateOptions = {},
): Promise<OpenedStore> {
  if (path === MEMORY_PATH) return openMemory(platform, migrations);
  const absolute = resolve(path);

  try {
    mkdirSync(dirname(absolute), { recursive: true, mode: 0o700 });
  } catch (err) {
    throw unusable(absolute, err);
  }

  let lock: HolderLock;
  try {
    lock = await acquireHolderLock(absolute, {
      processAlive: (pid) => platform.processAlive(pid),
      waitMs: opts.lockWaitMs,
      pid: opts.pid,
    });
  } catch (err) {
    throw unusable(absolute, err);
  }

  let db: Database | undefined;
  try {
    // The lock created the file owner-only if it was missing, so it is never group/world readable.
    const real = lock.database;
    const names = statSync(real).nlink;
    if (names > 1) {
      throw new StoreError(
        `The state database ${absolute} has ${names} names (hard links). SQLite keeps its write-ahead log beside the name ` +
          `a database is opened by, so tasks written under one name go missing under another, or corrupt the file. ` +
          `Delete the extra link (keep one name), or copy the file instead of linking it.`,
        absolute,
      );
    }
    // Only the lock's holder creates the file: an empty one it did not create is a state that lost its tasks.
    if (!lock.createdFile) refuseEmptyFile(absolute, real);
    db = await platform.openDatabase(real);
    db.exec(`PRAGMA busy_timeout=${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
    checkIntegrity(db, absolute, real, opts.integrity ?? "quick");
    chooseLayoutIfNew(db);
    await switchToWal(db);
    db.exec("PRAGMA foreign_keys=ON");
    db.exec("PRAGMA synchronous=NORMAL");
    migrate(db, migrations, { path: absolute });
    restrictMode(real);
  } catch (err) {
    try {
      db?.close();
      // A file this start created and never wrote would be refused as an emptied state next time: it goes.
      if (lock.createdFile && existingEmpty(lock.database)) rmSync(lock.database, { force: true });
    } finally {
      lock.release();
    }
    throw unusable(absolute, err);
  }

  const raw = db;
  const condition = new StorageCondition();
  const opened = guardDatabase(raw, absolute, condition);
  let closed = false;
  return {
    db: opened,
    path: absolute,
    lock,
    condition,
    close() {
      if (closed) return;
      closed = true;
      try {
        opened.close();
      } finally {
        lock.release();
      }
    },
  };
}
