// Driver-neutral pieces of Platform.openDatabase: row normalisation and the transaction discipline,
// so libsql and bun:sqlite give identical results.
import type { Database, Row, RunResult, SqlValue, Statement } from "./types.ts";

/** The few driver calls the shared wrapper needs; each driver module adapts its native API to this. */
export interface RawDriver {
  exec(sql: string): void;
  prepare(sql: string): RawStatement;
  close(): void;
}

export interface RawStatement {
  run(params: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(params: SqlValue[]): unknown;
  all(params: SqlValue[]): unknown[];
}

function normaliseValue(value: unknown): SqlValue {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number") return value;
  if (typeof value === "bigint") {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  }
  if (typeof value === "boolean") return value ? 1 : 0;
  // libsql hands out Buffer from get() and ArrayBuffer from all(); bun:sqlite a Uint8Array. Callers see a plain Uint8Array.
  if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0));
  if (ArrayBuffer.isView(value)) {
    return new Uint8Array(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength));
  }
  throw new TypeError(`unexpected SQLite value of type ${typeof value}`);
}

function normaliseRow(raw: unknown): Row | undefined {
  if (raw === null || raw === undefined) return undefined;
  const row: Row = {};
  const values = raw as Record<string, unknown>;
  for (const key of Object.keys(values)) {
    if (key === "_metadata") continue; // libsql's timing info, not a column
    const value = values[key];
    // Text, numbers and NULL, nearly every value, need nothing done.
    row[key] = typeof value === "string" || typeof value === "number" || value === null ? value : normaliseValue(value);
  }
  return row;
}

function normaliseParams(params: SqlValue[]): SqlValue[] {
  // Untyped callers may slip in undefined; drivers disagree on it (throw vs. NULL), so it is NULL everywhere.
  return params.map((p) => (p === undefined ? null : p));
}

class WrappedStatement implements Statement {
  constructor(private readonly raw: RawStatement) {}

  run(...params: SqlValue[]): RunResult {
    const result = this.raw.run(normaliseParams(params));
    return { changes: Number(result.changes), lastInsertRowid: Number(result.lastInsertRowid) };
  }

  get(...params: SqlValue[]): Row | undefined {
    return normaliseRow(this.raw.get(normaliseParams(params)));
  }

  all(...params: SqlValue[]): Row[] {
    return this.raw.all(normaliseParams(params)).map((r) => normaliseRow(r)!);
  }
}

// The store runs a few dozen distinct statements over and over; compiling each once saves the parse and plan on every
// query, and keeps the drivers from piling up statement objects until a GC finalizes them. The bound only guards
// against a caller that builds SQL text without end.
const STATEMENT_CACHE_MAX = 256;

class WrappedDatabase implements Database {
  private depth = 0;
  private closed = false;
  private readonly statements = new Map<string, WrappedStatement>();

  constructor(private readonly raw: RawDriver) {}

  exec(sql: string): void {
    this.raw.exec(sql);
  }

  prepare(sql: string): Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      if (this.statements.size >= STATEMENT_CACHE_MAX) this.statements.clear();
      stmt = new WrappedStatement(this.raw.prepare(sql));
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  transaction<T>(fn: () => T): T {
    if (this.depth > 0) {
      // Joining keeps one atomic unit; the outer call decides commit or rollback.
      this.depth++;
      try {
        return fn();
      } finally {
        this.depth--;
      }
    }
    this.raw.exec("BEGIN IMMEDIATE");
    this.depth = 1;
    try {
      const result = fn();
      if (result instanceof Promise || (typeof result === "object" && result !== null && typeof (result as { then?: unknown }).then === "function")) {
        throw new TypeError("transaction callback must be synchronous: SQLite transactions cannot span an await");
      }
      this.raw.exec("COMMIT");
      return result;
    } catch (err) {
      try {
        this.raw.exec("ROLLBACK");
      } catch {
        // SQLite may already have rolled back on its own (e.g. after SQLITE_FULL); the original error matters.
      }
      throw err;
    } finally {
      this.depth = 0;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.statements.clear();
    this.raw.close();
  }
}

export function wrapDriver(raw: RawDriver): Database {
  return new WrappedDatabase(raw);
}
