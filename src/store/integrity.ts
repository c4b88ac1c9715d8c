// Damage is said before anything is served: an emptied file is refused rather than started as a new state, and the
// file is checked (bounded at start-up, whole in doctor) so a damaged page is named, not met mid-answer.
import { statSync } from "node:fs";
import type { Database } from "../../platform/types.ts";
import { StoreError, storeFailure, storageRemedy } from "./errors.ts";

/** "quick": bounded for start-up; "full": every page (doctor). */
export type IntegrityDepth = "quick" | "full";

/**
 * Up to this size start-up checks the whole file (PRAGMA quick_check reads every page once: well under a second
 * here). A larger file gets every table but the two that hold streamed history (events, items), each checked with its
 * indexes; damage there is reported when met (state_corrupt) and by doctor, which always checks everything.
 */
const WHOLE_FILE_MAX_BYTES = 256 * 1024 * 1024;
const HISTORY_TABLES = new Set(["events", "items"]);

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Throws a StoreError (state_corrupt, naming the file and what to do) when the file is damaged. */
export function checkIntegrity(db: Database, shownPath: string, realPath: string, depth: IntegrityDepth): void {
  const problems: string[] = [];
  try {
    if (depth === "full" || sizeOf(realPath) <= WHOLE_FILE_MAX_BYTES) {
      problems.push(...findings(db, "PRAGMA quick_check(20)"));
    } else {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => String(r.name));
      for (const t of tables) if (!HISTORY_TABLES.has(t)) problems.push(...findings(db, `PRAGMA quick_check("${t.replace(/"/g, '""')}")`));
    }
  } catch (err) {
    const e = storeFailure(shownPath, err, "read");
    throw e.storageCause === "state_corrupt" || e.storageCause === "other" ? damaged(shownPath, e.message) : e;
  }
  if (problems.length) throw damaged(shownPath, problems.slice(0, 3).join("; "));
}

function findings(db: Database, sql: string): string[] {
  return db
    .prepare(sql)
    .all()
    .map((r) => String(Object.values(r)[0]))
    .filter((v) => v !== "ok");
}

function damaged(path: string, what: string): StoreError {
  return new StoreError(`The state database ${path} is damaged (state_corrupt): ${what}. ${storageRemedy("state_corrupt", path)}`, path, { storageCause: "state_corrupt" });
}

/** An existing file of 0 bytes (and no write-ahead log with content) was a state once: refused, never started anew. */
export function refuseEmptyFile(shownPath: string, realPath: string): void {
  if (sizeOf(realPath) > 0 || sizeOf(`${realPath}-wal`) > 0) return;
  throw new StoreError(
    `The state database ${shownPath} exists but is empty (0 bytes) (state_corrupt): the file was truncated or replaced, and starting on it ` +
      `would show every earlier task as gone. Restore it from a backup; or, to start with an empty state on purpose, delete ${shownPath} and start again.`,
    shownPath,
    { storageCause: "state_corrupt" },
  );
}
