// Opens the state database the way every caller needs it: locked against a second bridge under any name, opened by its
// one real name, WAL, owner-only file mode, migrated. Failures become one StoreError naming the path and the remedy.
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Database, Platform } from "../../platform/types.ts";
import { acquireHolderLock, type HolderLock } from "./lock.ts";
import { MEMORY_PATH } from "./location.ts";
import { migrate, type Migration } from "./migrate.ts";
import { StoreError } from "./errors.ts";

export { StoreError } from "./errors.ts";
export { StoreLockedError } from "./lock.ts";

export interface OpenStateOptions {
  /** How long to wait for a live holder that may be exiting. Default 5000 ms. */
  lockWaitMs?: number;
  /** The pid recorded in the lock (tests stand in for other processes). Default: this process. */
  pid?: number;
  /** SQLite busy_timeout. Default 5000 ms. */
  busyTimeoutMs?: number;
}

export interface OpenedStore {
  db: Database;
  path: string;
  lock: HolderLock | null;
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
  if (err instanceof StoreError) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new StoreError(
    `Cannot use the state database at ${path}: ${reason}. ` +
      `Make that location writable, or set CODEX_BRIDGE_STATE to a writable file path (or :memory: for a throwaway state).`,
    path,
    { cause: err },
  );
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
  const db = await platform.openDatabase(MEMORY_PATH);
  try {
    db.exec("PRAGMA foreign_keys=ON");
    migrate(db, migrations, { path: MEMORY_PATH });
  } catch (err) {
    db.close();
    throw err;
  }
  return { db, path: MEMORY_PATH, lock: null, close: () => db.close() };
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
    db = await platform.openDatabase(real);
    db.exec(`PRAGMA busy_timeout=${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
    await switchToWal(db);
    db.exec("PRAGMA foreign_keys=ON");
    db.exec("PRAGMA synchronous=NORMAL");
    migrate(db, migrations, { path: absolute });
    restrictMode(real);
  } catch (err) {
    try {
      db?.close();
    } finally {
      lock.release();
    }
    throw unusable(absolute, err);
  }

  const opened = db;
  let closed = false;
  return {
    db: opened,
    path: absolute,
    lock,
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
