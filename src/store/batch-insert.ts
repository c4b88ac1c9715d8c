// Many rows in few statements: a flush's events and items go to SQLite as multi-row INSERTs (each size prepared once
// and cached by the driver wrapper), so a storm costs a statement per 32 rows rather than one per row.
import type { Database, SqlValue } from "../../platform/types.ts";

/** Statement sizes, largest first: 32 rows take 224 parameters, far under SQLite's limit. */
const CHUNKS = [32, 8, 1];
const sqlCache = new Map<string, string>();

function sqlFor(head: string, tail: string, width: number, rows: number): string {
  const key = `${rows}\u0000${head}\u0000${tail}`;
  let sql = sqlCache.get(key);
  if (sql === undefined) {
    const one = `(${Array(width).fill("?").join(", ")})`;
    sql = `${head} VALUES ${Array(rows).fill(one).join(", ")}${tail}`;
    sqlCache.set(key, sql);
  }
  return sql;
}

/**
 * Inserts rows of `width` values each, in order (SQLite takes a VALUES list row by row, so rowids, conflicts and
 * upserts come out as they would from one statement per row). The caller holds the transaction.
 */
export function insertRows(db: Database, head: string, tail: string, width: number, rows: readonly SqlValue[][]): void {
  let i = 0;
  for (const size of CHUNKS) {
    if (rows.length - i < size) continue;
    const stmt = db.prepare(sqlFor(head, tail, width, size));
    const params: SqlValue[] = new Array<SqlValue>(size * width);
    for (; rows.length - i >= size; i += size) {
      for (let k = 0; k < size; k++) {
        const row = rows[i + k]!;
        for (let c = 0; c < width; c++) params[k * width + c] = row[c]!;
      }
      stmt.run(...params);
    }
  }
}
