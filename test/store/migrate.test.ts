import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import type { Database, Platform } from "../../platform/types.ts";
import { migrate, type Migration } from "../../src/store/migrate.ts";
import { StoreError } from "../../src/store/errors.ts";

const V1: Migration = { version: 1, name: "tasks", sql: "CREATE TABLE tasks (id TEXT PRIMARY KEY)" };
const V2: Migration = { version: 2, name: "events", sql: "CREATE TABLE events (id INTEGER PRIMARY KEY, task_id TEXT NOT NULL); CREATE INDEX events_task ON events(task_id)" };
const V3: Migration = { version: 3, name: "tasks.state", sql: "ALTER TABLE tasks ADD COLUMN state TEXT NOT NULL DEFAULT 'starting'" };

let platform: Platform;
let db: Database;
beforeAll(async () => {
  platform = await getPlatform();
});
afterEach(() => db?.close());

const tables = (): string[] =>
  db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((r) => String(r.name));

describe("migrate", () => {
  it("applies every migration on a fresh database and records them", async () => {
    db = await platform.openDatabase(":memory:");
    expect(migrate(db, [V1, V2])).toEqual({ from: 0, to: 2, applied: [1, 2] });
    expect(tables()).toEqual(["events", "schema_migrations", "tasks"]);
    const rows = db.prepare("SELECT version, name, applied_at FROM schema_migrations ORDER BY version").all();
    expect(rows.map((r) => [r.version, r.name])).toEqual([
      [1, "tasks"],
      [2, "events"],
    ]);
    expect(Number.isNaN(Date.parse(String(rows[0]!.applied_at)))).toBe(false);
  });

  it("is idempotent and applies only what is new", async () => {
    db = await platform.openDatabase(":memory:");
    migrate(db, [V1, V2]);
    db.prepare("INSERT INTO tasks (id) VALUES ('t1')").run();
    expect(migrate(db, [V1, V2])).toEqual({ from: 2, to: 2, applied: [] });
    expect(migrate(db, [V1, V2, V3])).toEqual({ from: 2, to: 3, applied: [3] });
    expect(db.prepare("SELECT id, state FROM tasks").all()).toEqual([{ id: "t1", state: "starting" }]);
  });

  it("rolls back a failing migration completely and keeps the earlier ones", async () => {
    db = await platform.openDatabase(":memory:");
    const broken: Migration = { version: 2, name: "broken", sql: "CREATE TABLE half (x INTEGER); INSERT INTO nowhere VALUES (1)" };
    const err = (() => {
      try {
        migrate(db, [V1, broken]);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(StoreError);
    expect((err as Error).message).toMatch(/migration 2 \(broken\)/);
    expect(tables()).toEqual(["schema_migrations", "tasks"]);
    expect(db.prepare("SELECT MAX(version) AS v FROM schema_migrations").get()).toEqual({ v: 1 });
  });

  it("refuses a database newer than the code with a clear error", async () => {
    db = await platform.openDatabase(":memory:");
    migrate(db, [V1, V2, V3]);
    expect(() => migrate(db, [V1, V2], { path: "/some/state.sqlite3" })).toThrow(
      /\/some\/state\.sqlite3 has schema version 3, but this codex-bridge knows versions up to 2.*newer codex-bridge/,
    );
  });

  it("rejects a migration list out of order", async () => {
    db = await platform.openDatabase(":memory:");
    expect(() => migrate(db, [V2, V1])).toThrow(/migration list is invalid/);
    expect(tables()).toEqual([]);
  });
});
