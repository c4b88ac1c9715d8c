// Damaged state is said, never served: an emptied file, a damaged page or header is refused at open naming the file,
// the cause and a remedy that fits it; a full disk met later is named as such (not "make it writable").
import { openSync, readFileSync, statSync, writeFileSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import type { Platform } from "../../platform/types.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { openStateDatabase, StoreError, type OpenedStore } from "../../src/store/open.ts";
import { tempDir } from "../support/temp-dir.ts";

let platform: Platform;
const stores: OpenedStore[] = [];
beforeAll(async () => {
  platform = await getPlatform();
});
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

async function open(path: string, integrity?: "quick" | "full"): Promise<OpenedStore> {
  const store = await openStateDatabase(platform, path, MIGRATIONS, { lockWaitMs: 0, integrity });
  stores.push(store);
  return store;
}

/** A state file with enough rows to span many pages, closed (its log folded into the file). */
async function filledState(): Promise<string> {
  const path = join(tempDir("cb-damage-"), "state.sqlite3");
  const s = await open(path);
  s.db.exec("CREATE TABLE filler (x BLOB); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO filler SELECT randomblob(300) FROM n");
  s.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  stores.splice(stores.indexOf(s), 1);
  s.close();
  return path;
}

function overwrite(path: string, offset: number, bytes: Buffer): void {
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    closeSync(fd);
  }
}

describe("damaged state", () => {
  it("refuses an existing 0-byte state file instead of starting it as an empty state, and leaves it alone", async () => {
    const path = join(tempDir("cb-damage-"), "state.sqlite3");
    writeFileSync(path, "");
    const err = await open(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).storageCause).toBe("state_corrupt");
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toMatch(/empty \(0 bytes\)/);
    expect((err as Error).message).toMatch(/delete/);
    expect(statSync(path).size).toBe(0);
  });

  it("refuses a file with a damaged table page at start-up, naming the file and the damage, not permissions", async () => {
    const path = await filledState();
    const size = statSync(path).size;
    // Garbage over the middle of the file: pages of the filler table's b-tree.
    overwrite(path, Math.floor(size / 2 / 4096) * 4096, Buffer.alloc(4096 * 4, 0xa5));
    const err = await open(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).storageCause).toBe("state_corrupt");
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toMatch(/damaged/);
    expect((err as Error).message).toMatch(/\.recover|backup/);
    expect((err as Error).message).not.toMatch(/writable/);
  });

  it("refuses a damaged header as damage, not as a permissions problem", async () => {
    const path = await filledState();
    overwrite(path, 0, Buffer.from("definitely not the SQLite header"));
    const err = await open(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).storageCause).toBe("state_corrupt");
    expect((err as Error).message).not.toMatch(/writable/);
    expect(readFileSync(path).subarray(0, 10).toString()).toBe("definitely");
  });

  it("names a full disk as such, with the file and the remedy, and records it until a write succeeds", async () => {
    const path = await filledState();
    const s = await open(path);
    const pages = Number(s.db.prepare("PRAGMA page_count").get()!.page_count);
    s.db.exec(`PRAGMA max_page_count = ${pages}`);
    let err: unknown;
    try {
      s.db.transaction(() => s.db.exec("INSERT INTO filler SELECT randomblob(4000) FROM filler LIMIT 50"));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).storageCause).toBe("disk_full");
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toMatch(/the disk is full.*Free space/);
    expect((err as Error).message).not.toMatch(/writable/);
    expect(s.condition.problem?.cause).toBe("disk_full");
    // Reads still work on a full disk, and do not count as recovery.
    expect(s.db.prepare("SELECT count(*) AS n FROM filler").get()).toEqual({ n: 2000 });
    expect(s.condition.problem?.cause).toBe("disk_full");
    s.db.exec("PRAGMA max_page_count = 1073741823");
    s.db.transaction(() => s.db.prepare("INSERT INTO filler VALUES (randomblob(10))").run());
    expect(s.condition.problem).toBeNull();
  });
});
