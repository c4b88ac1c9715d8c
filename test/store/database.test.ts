// The Database contract as the store sees it; runs under Node (libsql) and Bun (bun:sqlite) alike.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import type { Database, Platform } from "../../platform/types.ts";

let platform: Platform;
let db: Database;

beforeAll(async () => {
  platform = await getPlatform();
});
afterEach(() => db?.close());

async function fresh(): Promise<Database> {
  db = await platform.openDatabase(":memory:");
  db.exec("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, size INTEGER, ratio REAL, data BLOB); CREATE TABLE other (v TEXT)");
  return db;
}

describe("database", () => {
  it("runs a multi-statement exec, then prepare/run/get/all", async () => {
    const db = await fresh();
    const insert = db.prepare("INSERT INTO items (name, size, ratio, data) VALUES (?, ?, ?, ?)");
    expect(insert.run("a", 1, 0.5, null)).toEqual({ changes: 1, lastInsertRowid: 1 });
    expect(insert.run("b", 2, 1.5, null)).toEqual({ changes: 1, lastInsertRowid: 2 });
    expect(db.prepare("SELECT id, name, size, ratio FROM items WHERE name = ?").get("b")).toEqual({ id: 2, name: "b", size: 2, ratio: 1.5 });
    expect(db.prepare("SELECT name FROM items ORDER BY id").all()).toEqual([{ name: "a" }, { name: "b" }]);
    expect(db.prepare("UPDATE items SET size = size + 1").run().changes).toBe(2);
  });

  it("returns undefined for a missing row and [] for no rows", async () => {
    const db = await fresh();
    expect(db.prepare("SELECT * FROM items WHERE id = ?").get(42)).toBeUndefined();
    expect(db.prepare("SELECT * FROM items").all()).toEqual([]);
  });

  it("keeps NULLs as null and carries no driver metadata", async () => {
    const db = await fresh();
    db.prepare("INSERT INTO items (name) VALUES (?)").run(null);
    const row = db.prepare("SELECT * FROM items").get();
    expect(row).toEqual({ id: 1, name: null, size: null, ratio: null, data: null });
    expect(Object.keys(row!)).toEqual(["id", "name", "size", "ratio", "data"]);
    expect(Object.keys(db.prepare("SELECT * FROM items").all()[0]!)).toEqual(["id", "name", "size", "ratio", "data"]);
  });

  it("returns integers as numbers and blobs as Uint8Array from get and all", async () => {
    const db = await fresh();
    db.prepare("INSERT INTO items (size, data) VALUES (?, ?)").run(2 ** 40, new Uint8Array([0, 1, 255]));
    const viaGet = db.prepare("SELECT size, data, COUNT(*) AS n FROM items").get()!;
    const viaAll = db.prepare("SELECT size, data FROM items").all()[0]!;
    for (const row of [viaGet, viaAll]) {
      expect(typeof row.size).toBe("number");
      expect(row.size).toBe(2 ** 40);
      expect(row.data).toBeInstanceOf(Uint8Array);
      expect(Array.from(row.data as Uint8Array)).toEqual([0, 1, 255]);
    }
    expect(viaGet.n).toBe(1);
  });

  it("binds a lone null or blob as a positional parameter", async () => {
    const db = await fresh();
    expect(db.prepare("SELECT ? AS v").get(null)).toEqual({ v: null });
    const blob = db.prepare("SELECT ? AS v").get(new Uint8Array([7, 8]))!.v;
    expect(Array.from(blob as Uint8Array)).toEqual([7, 8]);
    expect(db.prepare("SELECT ? AS v").all("only")).toEqual([{ v: "only" }]);
  });

  it("answers the same statement text again and again, and sees a schema change made in between", async () => {
    const db = await fresh();
    for (let i = 0; i < 3; i++) db.prepare("INSERT INTO items (name) VALUES (?)").run(`n${i}`);
    expect(db.prepare("SELECT name FROM items WHERE id = ?").get(2)).toEqual({ name: "n1" });
    expect(db.prepare("SELECT name FROM items WHERE id = ?").get(3)).toEqual({ name: "n2" });
    expect(db.prepare("SELECT * FROM other").all()).toEqual([]);
    db.exec("ALTER TABLE other ADD COLUMN w INTEGER DEFAULT 7; INSERT INTO other (v) VALUES ('x')");
    expect(db.prepare("SELECT * FROM other").all()).toEqual([{ v: "x", w: 7 }]);
  });

  it("surfaces SQLite errors with their code", async () => {
    const db = await fresh();
    db.prepare("INSERT INTO items (id) VALUES (1)").run();
    let caught: unknown;
    try {
      db.prepare("INSERT INTO items (id) VALUES (1)").run();
    } catch (err) {
      caught = err;
    }
    expect((caught as { code?: string }).code).toMatch(/^SQLITE_CONSTRAINT/);
  });

  describe("transaction", () => {
    it("commits and returns the callback's value", async () => {
      const db = await fresh();
      const id = db.transaction(() => db.prepare("INSERT INTO other (v) VALUES ('x')").run().lastInsertRowid);
      expect(id).toBe(1);
      expect(db.prepare("SELECT v FROM other").all()).toEqual([{ v: "x" }]);
    });

    it("rolls back everything and rethrows when the callback throws", async () => {
      const db = await fresh();
      const boom = new Error("boom");
      expect(() =>
        db.transaction(() => {
          db.prepare("INSERT INTO other (v) VALUES ('x')").run();
          throw boom;
        }),
      ).toThrow(boom);
      expect(db.prepare("SELECT COUNT(*) AS n FROM other").get()).toEqual({ n: 0 });
      // The connection is usable afterwards: no transaction was left open.
      db.transaction(() => db.prepare("INSERT INTO other (v) VALUES ('y')").run());
      expect(db.prepare("SELECT v FROM other").all()).toEqual([{ v: "y" }]);
    });

    it("joins a nested call to the outer transaction", async () => {
      const db = await fresh();
      expect(() =>
        db.transaction(() => {
          db.prepare("INSERT INTO other (v) VALUES ('outer')").run();
          db.transaction(() => db.prepare("INSERT INTO other (v) VALUES ('inner')").run());
          // The inner call did not commit on its own: the outer failure takes it back too.
          throw new Error("outer fails");
        }),
      ).toThrow("outer fails");
      expect(db.prepare("SELECT COUNT(*) AS n FROM other").get()).toEqual({ n: 0 });

      db.transaction(() => {
        db.prepare("INSERT INTO other (v) VALUES ('outer')").run();
        db.transaction(() => db.prepare("INSERT INTO other (v) VALUES ('inner')").run());
      });
      expect(db.prepare("SELECT v FROM other ORDER BY rowid").all()).toEqual([{ v: "outer" }, { v: "inner" }]);
    });

    it("rolls back when an inner call throws and the error escapes the outer one", async () => {
      const db = await fresh();
      expect(() =>
        db.transaction(() => {
          db.prepare("INSERT INTO other (v) VALUES ('outer')").run();
          db.transaction(() => {
            throw new Error("inner fails");
          });
        }),
      ).toThrow("inner fails");
      expect(db.prepare("SELECT COUNT(*) AS n FROM other").get()).toEqual({ n: 0 });
    });

    it("refuses an async callback and rolls it back", async () => {
      const db = await fresh();
      expect(() =>
        db.transaction(() => {
          db.prepare("INSERT INTO other (v) VALUES ('x')").run();
          return Promise.resolve(1);
        }),
      ).toThrow(/synchronous/);
      expect(db.prepare("SELECT COUNT(*) AS n FROM other").get()).toEqual({ n: 0 });
    });
  });
});
