// The state database as the rest of the bridge sees it: every driver error turned into a StoreError that names the
// file, the cause and the remedy, and one record of what is wrong right now (a full disk, damage) for the health
// report, the task views and the intake that holds events it cannot store.
import type { Database, RunResult, Row, SqlValue, Statement } from "../../platform/types.ts";
import { storeFailure, type StorageCause, type StoreError } from "./errors.ts";

export interface StorageProblem {
  cause: StorageCause;
  /** The StoreError's message: the file, the cause, the driver's text, the remedy. */
  message: string;
  since: string;
  /** Failed writes since it began. */
  failures: number;
}

/**
 * What is wrong with the state database now, or null. A full disk or an I/O error ends with the next write that
 * succeeds; damage stays until the bridge is restarted on a repaired file (a write to a sound page proves nothing).
 */
export class StorageCondition {
  private current: StorageProblem | null = null;
  private readonly listeners = new Set<(p: StorageProblem | null) => void>();

  get problem(): StorageProblem | null {
    return this.current;
  }

  onChange(cb: (p: StorageProblem | null) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  failed(err: StoreError): void {
    // Busy is another process's lock, not a condition of the file; "other" is reported where it happens.
    if (err.storageCause === "busy" || err.storageCause === "other") return;
    if (this.current && (this.current.cause === err.storageCause || this.current.cause === "state_corrupt")) {
      this.current.failures++;
      return;
    }
    this.current = { cause: err.storageCause, message: err.message, since: new Date().toISOString(), failures: 1 };
    for (const l of this.listeners) l(this.current);
  }

  wrote(): void {
    if (!this.current || this.current.cause === "state_corrupt") return;
    this.current = null;
    for (const l of this.listeners) l(null);
  }
}

class GuardedStatement implements Statement {
  constructor(
    private readonly raw: Statement,
    private readonly g: GuardedDatabase,
  ) {}

  run(...params: SqlValue[]): RunResult {
    try {
      const r = this.raw.run(...params);
      // Only a write that changed something proves the disk takes writes again.
      if (r.changes > 0) {
        if (this.g.depth === 0) this.g.condition.wrote();
        else this.g.changedInTx = true;
      }
      return r;
    } catch (err) {
      throw this.g.fail(err);
    }
  }

  get(...params: SqlValue[]): Row | undefined {
    try {
      return this.raw.get(...params);
    } catch (err) {
      throw this.g.fail(err);
    }
  }

  all(...params: SqlValue[]): Row[] {
    try {
      return this.raw.all(...params);
    } catch (err) {
      throw this.g.fail(err);
    }
  }
}

class GuardedDatabase implements Database {
  depth = 0;
  changedInTx = false;
  private readonly statements = new WeakMap<Statement, GuardedStatement>();

  constructor(
    private readonly raw: Database,
    private readonly path: string,
    readonly condition: StorageCondition,
  ) {}

  fail(err: unknown): StoreError {
    const e = storeFailure(this.path, err);
    this.condition.failed(e);
    return e;
  }

  exec(sql: string): void {
    try {
      this.raw.exec(sql);
    } catch (err) {
      throw this.fail(err);
    }
  }

  prepare(sql: string): Statement {
    let raw: Statement;
    try {
      raw = this.raw.prepare(sql);
    } catch (err) {
      throw this.fail(err);
    }
    let s = this.statements.get(raw);
    if (!s) this.statements.set(raw, (s = new GuardedStatement(raw, this)));
    return s;
  }

  transaction<T>(fn: () => T): T {
    if (this.depth === 0) this.changedInTx = false;
    this.depth++;
    try {
      const r = this.raw.transaction(fn);
      if (this.depth === 1 && this.changedInTx) this.condition.wrote();
      return r;
    } catch (err) {
      throw this.fail(err);
    } finally {
      this.depth--;
    }
  }

  close(): void {
    this.raw.close();
  }
}

/** The database with every failure named (file, cause, remedy) and recorded in `condition`. */
export function guardDatabase(raw: Database, path: string, condition: StorageCondition): Database {
  return new GuardedDatabase(raw, path, condition);
}
