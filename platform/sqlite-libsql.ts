// libsql (better-sqlite3 API) for Node and Deno.
import type { Database, SqlValue } from "./types.ts";
import { wrapDriver, type RawDriver } from "./sqlite-common.ts";

interface LibsqlStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

interface LibsqlDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): LibsqlStatement;
  close(): unknown;
}

type LibsqlConstructor = new (path: string) => LibsqlDatabase;

let driver: Promise<LibsqlConstructor> | undefined;

function loadLibsql(): Promise<LibsqlConstructor> {
  // A variable specifier keeps bundlers (bun build --compile) from pulling libsql's native addon into the Bun binary.
  const spec = "libsql";
  driver ??= import(spec).then((mod: { default?: LibsqlConstructor } & LibsqlConstructor) => mod.default ?? mod);
  return driver;
}

// libsql reads a lone object argument (null and Uint8Array included) as named parameters; one array is always positional.
const toDriverParams = (params: SqlValue[]): unknown[] => [params];

export async function openLibsqlDatabase(path: string): Promise<Database> {
  const Ctor = await loadLibsql();
  const db = new Ctor(path);
  const raw: RawDriver = {
    exec: (sql) => void db.exec(sql),
    prepare: (sql) => {
      const stmt = db.prepare(sql);
      return {
        run: (params) => stmt.run(...toDriverParams(params)),
        get: (params) => stmt.get(...toDriverParams(params)),
        all: (params) => stmt.all(...toDriverParams(params)),
      };
    },
    close: () => void db.close(),
  };
  return wrapDriver(raw);
}
