// bun:sqlite: built into Bun, so a compiled binary embeds nothing native.
import type { Database, SqlValue } from "./types.ts";
import { wrapDriver, type RawDriver } from "./sqlite-common.ts";

interface BunStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  finalize(): void;
}

interface BunDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): BunStatement;
  close(throwOnError?: boolean): void;
}

type BunDatabaseConstructor = new (path: string, options?: { create?: boolean; readwrite?: boolean }) => BunDatabase;

export async function openBunDatabase(path: string): Promise<Database> {
  // Variable specifier: Node and esbuild must never try to resolve bun:sqlite.
  const spec = "bun:sqlite";
  const mod = (await import(spec)) as { Database: BunDatabaseConstructor };
  const db = new mod.Database(path, { create: true, readwrite: true });
  const args = (params: SqlValue[]): unknown[] => params;
  const raw: RawDriver = {
    exec: (sql) => void db.exec(sql),
    prepare: (sql) => {
      const stmt = db.prepare(sql);
      return {
        run: (params) => stmt.run(...args(params)),
        get: (params) => stmt.get(...args(params)),
        all: (params) => stmt.all(...args(params)),
      };
    },
    close: () => db.close(false),
  };
  return wrapDriver(raw);
}
