// openStateDatabase on real files: directories created, WAL mode and pragmas, owner-only modes, data kept across a
// re-open, and one clear StoreError for an unusable location, a file that is not a database or a newer schema.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { chmodSync, existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getPlatform } from "../../platform/index.ts";
import type { Platform } from "../../platform/types.ts";
import { openStateDatabase, StoreError, type OpenedStore } from "../../src/store/open.ts";
import type { Migration } from "../../src/store/migrate.ts";
import { tempDir } from "../support/temp-dir.ts";

const MIGRATIONS: Migration[] = [
  { version: 1, name: "parents", sql: "CREATE TABLE parents (id INTEGER PRIMARY KEY, name TEXT NOT NULL)" },
  {
    version: 2,
    name: "children",
    sql: "CREATE TABLE children (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parents(id)); CREATE INDEX children_parent ON children(parent_id)",
  },
];

let platform: Platform;
let dir: string;
const stores: OpenedStore[] = [];

beforeAll(async () => {
  platform = await getPlatform();
});
// Closed before tempDir removes the test's directory (that happens once the test has finished).
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

async function open(path: string, migrations = MIGRATIONS): Promise<OpenedStore> {
  const store = await openStateDatabase(platform, path, migrations, { lockWaitMs: 0 });
  stores.push(store);
  return store;
}

describe("openStateDatabase", () => {
  it("creates missing parent directories and a migrated WAL database", async () => {
    dir = tempDir("cb-open-");
    const path = join(dir, "nested", "deeper", "state.sqlite3");
    const store = await open(path);
    expect(store.path).toBe(path);
    expect(store.db.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    expect(store.db.prepare("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
    expect(store.db.prepare("PRAGMA synchronous").get()).toEqual({ synchronous: 1 }); // NORMAL
    expect(Number(store.db.prepare("PRAGMA busy_timeout").get()!.timeout)).toBeGreaterThan(0);
    expect(store.db.prepare("SELECT version, name FROM schema_migrations ORDER BY version").all()).toEqual([
      { version: 1, name: "parents" },
      { version: 2, name: "children" },
    ]);
  });

  it.skipIf(process.platform === "win32")("keeps the database and its WAL files owner-only (0600)", async () => {
    dir = tempDir("cb-open-");
    const path = join(dir, "state.sqlite3");
    const store = await open(path);
    store.db.prepare("INSERT INTO parents (name) VALUES (?)").run("p");
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      expect(existsSync(file)).toBe(true);
      expect((statSync(file).mode & 0o777).toString(8)).toBe("600");
    }
  });

  // POSIX permission bits only: Windows has no mode to tighten (its files are guarded by ACLs), so there it is skipped.
  it.skipIf(process.platform === "win32")("tightens the mode of an existing world-readable database", async () => {
    dir = tempDir("cb-open-");
    const path = join(dir, "state.sqlite3");
    (await open(path)).close();
    chmodSync(path, 0o644);
    await open(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("keeps data across close and re-open, and enforces foreign keys", async () => {
    dir = tempDir("cb-open-");
    const path = join(dir, "state.sqlite3");
    const first = await open(path);
    first.db.prepare("INSERT INTO parents (name) VALUES (?)").run("kept");
    expect(() => first.db.prepare("INSERT INTO children (parent_id) VALUES (?)").run(99)).toThrow();
    first.close();
    first.close(); // idempotent

    const second = await open(path);
    expect(second.db.prepare("SELECT name FROM parents").all()).toEqual([{ name: "kept" }]);
    expect(second.db.prepare("SELECT COUNT(*) AS n FROM schema_migrations").get()).toEqual({ n: 2 });
  });

  it("opens :memory: without a lock file", async () => {
    const store = await open(":memory:");
    expect(store.lock).toBeNull();
    expect(store.path).toBe(":memory:");
    store.db.prepare("INSERT INTO parents (name) VALUES ('m')").run();
    expect(store.db.prepare("SELECT name FROM parents").get()).toEqual({ name: "m" });
  });

  it("gives one StoreError naming the path and CODEX_BRIDGE_STATE for an unusable location", async () => {
    dir = tempDir("cb-open-");
    const blocker = join(dir, "a-file");
    writeFileSync(blocker, "not a directory");
    const path = join(blocker, "sub", "state.sqlite3");
    const err = await open(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).path).toBe(path);
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toContain("CODEX_BRIDGE_STATE");
  });

  it("gives a StoreError and releases the lock when the file is not a database", async () => {
    dir = tempDir("cb-open-");
    const path = join(dir, "state.sqlite3");
    writeFileSync(path, "this is not an SQLite file, just some text that is long enough to have a header".repeat(20));
    const err = await open(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as Error).message).toContain(path);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("refuses a database from a newer codex-bridge and leaves it unchanged", async () => {
    dir = tempDir("cb-open-");
    const path = join(dir, "state.sqlite3");
    (await open(path)).close();
    const err = await open(path, MIGRATIONS.slice(0, 1)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as Error).message).toMatch(/schema version 2.*up to 1/);
    expect(existsSync(`${path}.lock`)).toBe(false);
    const again = await open(path);
    expect(again.db.prepare("SELECT MAX(version) AS v FROM schema_migrations").get()).toEqual({ v: 2 });
  });
});
