// Storage failures said the same way everywhere: which file, what went wrong (a full disk, damage, permissions), and
// the remedy that fits that cause. "Make the directory writable" is no advice for a full disk or a damaged file.

/** What a failed SQLite or file-system call means to the person who has to fix it. */
export type StorageCause = "disk_full" | "state_corrupt" | "permissions" | "io" | "busy" | "other";

/** A state-database problem the user can act on; the message names the path, the cause and the remedy. */
export class StoreError extends Error {
  readonly storageCause: StorageCause;
  constructor(
    message: string,
    readonly path: string,
    options?: { cause?: unknown; storageCause?: StorageCause },
  ) {
    super(message, options);
    this.name = "StoreError";
    this.storageCause = options?.storageCause ?? (options?.cause !== undefined ? storageCause(options.cause) : "other");
  }
}

function codeOf(err: unknown): string {
  const e = err as { code?: unknown; errno?: unknown } | null;
  return typeof e?.code === "string" ? e.code : "";
}

/** The cause of a driver or file-system error, from its code (libsql, bun:sqlite and node all set `code`). */
export function storageCause(err: unknown): StorageCause {
  if (err instanceof StoreError) return err.storageCause;
  const code = codeOf(err);
  const msg = err instanceof Error ? err.message : String(err);
  if (code === "SQLITE_FULL" || code === "ENOSPC" || code === "EDQUOT" || /database or disk is full|no space left/i.test(msg)) return "disk_full";
  if (/^SQLITE_(CORRUPT|NOTADB)/.test(code) || /malformed|not a database|file is not a database/i.test(msg)) return "state_corrupt";
  if (/^SQLITE_(READONLY|PERM|AUTH|CANTOPEN)/.test(code) || code === "EACCES" || code === "EPERM" || code === "EROFS" || /readonly|read-only|permission denied/i.test(msg)) return "permissions";
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) return "busy";
  if (/^SQLITE_IOERR/.test(code) || code === "EIO") return "io";
  return "other";
}

/** What to do about a cause, for the file at `path`. */
export function storageRemedy(cause: StorageCause, path: string): string {
  switch (cause) {
    case "disk_full":
      return `Free space on the file system holding ${path} (df shows it). A running bridge retries by itself and resumes once writes succeed, keeping what it has not stored yet in memory; one that could not start starts once there is space.`;
    case "state_corrupt":
      return `The file is damaged. Stop the bridge, keep a copy of ${path} (with its -wal file), then either restore it from a backup, recover it (sqlite3 ${path} .recover | sqlite3 recovered.sqlite3, then move recovered.sqlite3 in its place), or move it aside to start with an empty state; \`codex-bridge doctor\` checks it.`;
    case "permissions":
      return `Make ${path} and its directory writable by this user (ls -l shows the owner and mode; chattr -i if it is immutable), or set CODEX_BRIDGE_STATE to a writable file path (or :memory: for a throwaway state).`;
    case "busy":
      return `Another process holds the state database locked; stop it (codex-bridge doctor names a running bridge) or wait for it.`;
    case "io":
      return `The operating system reported an I/O error on ${path}: check the disk and the file system (dmesg), then restart the bridge; \`codex-bridge doctor\` checks the file.`;
    default:
      return `Check ${path} (\`codex-bridge doctor\`), or set CODEX_BRIDGE_STATE to another file path (or :memory: for a throwaway state).`;
  }
}

const CAUSE_WORDS: Record<StorageCause, string> = {
  disk_full: "the disk is full",
  state_corrupt: "the file is damaged",
  permissions: "it is not writable",
  busy: "it is locked by another process",
  io: "an I/O error",
  other: "an error",
};

/** One StoreError for any failure on the state database: the file, the cause in words, the driver's text, the remedy. */
export function storeFailure(path: string, err: unknown, doing = "use"): StoreError {
  if (err instanceof StoreError) return err;
  const cause = storageCause(err);
  const reason = err instanceof Error ? err.message : String(err);
  return new StoreError(`Cannot ${doing} the state database ${path}: ${CAUSE_WORDS[cause]} (${reason}). ${storageRemedy(cause, path)}`, path, { cause: err, storageCause: cause });
}
