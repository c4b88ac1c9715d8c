// Schema migrations: an ordered list applied one per transaction, recorded in schema_migrations.
import type { Database } from "../../platform/types.ts";
import { StoreError } from "./errors.ts";

export type Migration = { version: number; name: string; sql: string };

export interface MigrateResult {
  /** Schema version found before migrating (0 for a fresh database). */
  from: number;
  /** Schema version after migrating. */
  to: number;
  /** Versions applied by this call, in order. */
  applied: number[];
}

function checkMigrationList(migrations: readonly Migration[]): void {
  let previous = 0;
  for (const m of migrations) {
    if (!Number.isInteger(m.version) || m.version <= previous) {
      // A programming error in the list, not a user problem; fail loudly before touching the file.
      throw new Error(`migration list is invalid: version ${m.version} (${m.name}) must be an integer greater than ${previous}`);
    }
    previous = m.version;
  }
}

function currentVersion(db: Database): number {
  const row = db.prepare("SELECT MAX(version) AS version FROM schema_migrations").get();
  const v = row?.version;
  return typeof v === "number" ? v : 0;
}

/**
 * Brings the database up to the newest migration. Safe to call on every open: applied versions are skipped.
 * Refuses a database written by a newer codex-bridge rather than running old code against an unknown schema.
 */
export function migrate(db: Database, migrations: readonly Migration[], opts: { path?: string } = {}): MigrateResult {
  checkMigrationList(migrations);
  const label = opts.path ?? "the state database";
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
  );
  const from = currentVersion(db);
  const known = migrations.length > 0 ? migrations[migrations.length - 1]!.version : 0;
  if (from > known) {
    throw new StoreError(
      `${label} has schema version ${from}, but this codex-bridge knows versions up to ${known}: it was written by a newer codex-bridge. ` +
        `Upgrade codex-bridge, or set CODEX_BRIDGE_STATE to a different file.`,
      opts.path ?? "",
    );
  }
  const applied: number[] = [];
  const insert = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
  for (const m of migrations) {
    if (m.version <= from) continue;
    db.transaction(() => {
      // Re-read under the write lock: another process may have migrated since we looked.
      if (currentVersion(db) >= m.version) return;
      try {
        db.exec(m.sql);
      } catch (err) {
        throw new StoreError(`migration ${m.version} (${m.name}) failed on ${label}: ${(err as Error).message}`, opts.path ?? "", {
          cause: err,
        });
      }
      insert.run(m.version, m.name, new Date().toISOString());
      applied.push(m.version);
    });
  }
  return { from, to: currentVersion(db), applied };
}
