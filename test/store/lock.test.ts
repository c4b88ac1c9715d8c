import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getPlatform } from "../../platform/index.ts";
import type { ChildHandle, Platform } from "../../platform/types.ts";
import { openStateDatabase, StoreError, StoreLockedError, type OpenedStore } from "../../src/store/open.ts";
import { acquireHolderLock, identityLockPath } from "../../src/store/lock.ts";
import type { Migration } from "../../src/store/migrate.ts";
import { childEnv, prepareTsRunner, type TsRunner } from "./support/run-ts.ts";
import { lineReader } from "./support/child-lines.ts";

const MIGRATIONS: Migration[] = [{ version: 1, name: "t", sql: "CREATE TABLE IF NOT EXISTS t (x INTEGER)" }];
const fixture = fileURLToPath(new URL("./fixtures/hold-lock.ts", import.meta.url));

let platform: Platform;
let runner: TsRunner;
let dir: string;
const children: ChildHandle[] = [];
const stores: OpenedStore[] = [];

beforeAll(async () => {
  platform = await getPlatform();
  runner = await prepareTsRunner(fixture);
});
afterAll(() => runner.cleanup());

afterEach(async () => {
  for (const s of stores.splice(0)) s.close();
  for (const c of children.splice(0)) {
    c.killTree("SIGKILL");
    await c.exited;
  }
  if (dir) {
    // A SIGKILLed child leaves its identity lock behind; once the file is gone its inode may name another test's.
    const db = join(dir, "state.sqlite3");
    if (existsSync(db)) rmSync(identityLockPath(db), { force: true });
    rmSync(dir, { recursive: true, force: true });
  }
});

function freshDb(): string {
  dir = mkdtempSync(join(tmpdir(), "cb-lock-"));
  return join(dir, "state.sqlite3");
}

function startHolder(dbPath: string, lockWaitMs = 0) {
  const child = platform.spawn(runner.command, [...runner.args, dbPath, String(lockWaitMs)], { env: childEnv() });
  children.push(child);
  return { child, lines: lineReader(child) };
}

async function deadPid(): Promise<number> {
  const child = platform.spawn(process.execPath, ["-e", "0"], { env: childEnv() });
  await child.exited;
  return child.pid;
}

async function open(dbPath: string, opts: { lockWaitMs?: number; pid?: number } = {}): Promise<OpenedStore> {
  const store = await openStateDatabase(platform, dbPath, MIGRATIONS, opts);
  stores.push(store);
  return store;
}

describe("holder lock", () => {
  it("writes a lock file naming this process and removes it on close", async () => {
    const db = freshDb();
    const store = await open(db);
    expect(store.lock).not.toBeNull();
    const holder = JSON.parse(readFileSync(`${db}.lock`, "utf8"));
    expect(holder).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(Number.isNaN(Date.parse(holder.startedAt))).toBe(false);
    store.close();
    expect(existsSync(`${db}.lock`)).toBe(false);
  });

  it("refuses a database held by a live process, naming its PID, start time and the remedy", async () => {
    const db = freshDb();
    const startedAt = "2024-05-01T10:00:00.000Z";
    // This very process is certainly alive; the opener pretends to be another one.
    writeFileSync(`${db}.lock`, JSON.stringify({ pid: process.pid, startedAt, hostname: hostname() }));
    const err = await open(db, { lockWaitMs: 200, pid: 999_999 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreLockedError);
    const message = (err as Error).message;
    expect(message).toContain(`PID ${process.pid}`);
    expect(message).toContain(startedAt);
    expect(message).toContain(db);
    expect(message).toContain("CODEX_BRIDGE_STATE");
    // The holder's lock is untouched.
    expect(JSON.parse(readFileSync(`${db}.lock`, "utf8")).pid).toBe(process.pid);
  });

  it("takes over a lock left by a dead process", async () => {
    const db = freshDb();
    const pid = await deadPid();
    writeFileSync(`${db}.lock`, JSON.stringify({ pid, startedAt: new Date().toISOString(), hostname: hostname() }));
    const store = await open(db, { lockWaitMs: 0 });
    expect(store.lock?.holder.pid).toBe(process.pid);
    expect(JSON.parse(readFileSync(`${db}.lock`, "utf8")).pid).toBe(process.pid);
  });

  it("treats a lock from another host as held (its PID cannot be checked from here)", async () => {
    const db = freshDb();
    const pid = await deadPid();
    writeFileSync(`${db}.lock`, JSON.stringify({ pid, startedAt: new Date().toISOString(), hostname: "some-other-host" }));
    await expect(open(db, { lockWaitMs: 0 })).rejects.toBeInstanceOf(StoreLockedError);
  });

  it("a second bridge process is refused while the first holds the database", async () => {
    const db = freshDb();
    const first = startHolder(db);
    await first.child.write("go\n");
    expect(await first.lines.next()).toBe(`LOCKED ${first.child.pid}`);
    const err = await open(db, { lockWaitMs: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreLockedError);
    expect((err as Error).message).toContain(`PID ${first.child.pid}`);
  });

  // The lock names the file, not the spelling: every other name of a live database is refused with its holder.
  // Each case makes another name for the database in `dir` and returns it.
  const otherNames: [string, (db: string) => string][] = [
    ["a symlink to it", (db) => link(db, join(dir, "other.sqlite3"), symlinkSync)],
    ["a path through a symlinked directory", () => join(link(dir, join(dir, "dir-link"), symlinkSync), "state.sqlite3")],
    ["a hard link to it", (db) => link(db, join(dir, "other.sqlite3"), linkSync)],
    ["a hard link in another directory", (db) => (mkdirSync(join(dir, "elsewhere")), link(db, join(dir, "elsewhere", "other.sqlite3"), linkSync))],
  ];
  function link(target: string, name: string, make: (target: string, name: string) => void): string {
    make(target, name);
    return name;
  }

  it.each(otherNames)("refuses %s while the holder runs, naming the holder", async (label, otherName) => {
    const db = freshDb();
    const holder = startHolder(db);
    await holder.child.write("go\n");
    expect(await holder.lines.next()).toBe(`LOCKED ${holder.child.pid}`);
    const other = otherName(db);
    const err = await open(other, { lockWaitMs: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreLockedError);
    expect((err as Error).message).toContain(`PID ${holder.child.pid}`);
    // Once the holder is gone, a symlink opens the very same database (the holder's row is there). A hard link
    // is refused outright: SQLite keeps the write-ahead log beside the name, so a second name loses or corrupts data.
    holder.child.endStdin();
    await holder.child.exited;
    if (label.includes("hard link")) {
      const refused = await open(other, { lockWaitMs: 5000 }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(StoreError);
      expect((refused as Error).message).toMatch(/has 2 names \(hard links\).*Delete the extra link/);
      expect(existsSync(`${db}.lock`)).toBe(false);
    } else {
      const store = await open(other, { lockWaitMs: 5000 });
      expect(store.db.prepare("SELECT x FROM t").all()).toEqual([{ x: holder.child.pid }]);
    }
  });

  it("also writes an identity lock naming the file's device and inode, beside the real file's lock, and removes both", async () => {
    const db = freshDb();
    symlinkSync(db, join(dir, "alias.sqlite3"));
    const store = await open(join(dir, "alias.sqlite3"));
    expect(store.lock!.path).toBe(`${db}.lock`);
    expect(store.lock!.database).toBe(db);
    expect(store.lock!.identityPath).toBe(identityLockPath(db));
    const holder = JSON.parse(readFileSync(store.lock!.identityPath, "utf8"));
    expect(holder).toMatchObject({ pid: process.pid, hostname: hostname(), database: join(dir, "alias.sqlite3") });
    store.close();
    expect(existsSync(`${db}.lock`)).toBe(false);
    expect(existsSync(identityLockPath(db))).toBe(false);
  });

  it("names the other name a live identity-lock holder used", async () => {
    const db = freshDb();
    writeFileSync(db, "");
    const elsewhere = join(dir, "first-name.sqlite3");
    writeFileSync(identityLockPath(db), JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), hostname: hostname(), database: elsewhere }));
    const err = await open(db, { lockWaitMs: 0, pid: 999_999 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreLockedError);
    expect((err as Error).message).toContain(`PID ${process.pid}`);
    expect((err as Error).message).toContain(`opened the same file as ${elsewhere}`);
    // Refused on the second lock: the first one is given back.
    expect(existsSync(`${db}.lock`)).toBe(false);
  });

  it("takes over an identity lock left by a dead process", async () => {
    const db = freshDb();
    (await open(db)).close();
    writeFileSync(identityLockPath(db), JSON.stringify({ pid: await deadPid(), startedAt: new Date().toISOString(), hostname: hostname() }));
    const store = await open(db, { lockWaitMs: 0 });
    expect(JSON.parse(readFileSync(identityLockPath(db), "utf8")).pid).toBe(process.pid);
  });

  it.skipIf(process.platform === "win32")("keeps the identity lock directory owner-only and refuses one that is a symlink", async () => {
    const db = freshDb();
    const lockDir = join(dir, "locks");
    const lock = await acquireHolderLock(db, { processAlive: () => true, identityLockDir: lockDir });
    lock.release();
    expect((statSync(lockDir).mode & 0o777).toString(8)).toBe("700");
    // In a shared temp dir another user could plant the directory (here: a symlink to one it controls).
    symlinkSync(lockDir, join(dir, "planted"));
    const err = await acquireHolderLock(db, { processAlive: () => true, identityLockDir: join(dir, "planted") }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as Error).message).toMatch(/lock directory .*planted.*not a directory/);
  });

  it("waits for a holder that exits during the wait, then opens", async () => {
    const db = freshDb();
    const holder = startHolder(db);
    await holder.child.write("go\n");
    expect(await holder.lines.next()).toBe(`LOCKED ${holder.child.pid}`);
    // The first attempt runs before openStateDatabase returns its promise, so it meets the live holder.
    const opening = open(db, { lockWaitMs: 60_000 });
    holder.child.endStdin(); // the holder exits normally without close(): its exit hook frees the lock
    const store = await opening;
    expect((await holder.child.exited).code).toBe(0);
    expect(store.lock?.holder.pid).toBe(process.pid);
    // The holder's write is visible: it really was the same database.
    expect(store.db.prepare("SELECT x FROM t").all()).toEqual([{ x: holder.child.pid }]);
  });

  it("takes over from a holder that was killed", async () => {
    const db = freshDb();
    const holder = startHolder(db);
    await holder.child.write("go\n");
    expect(await holder.lines.next()).toBe(`LOCKED ${holder.child.pid}`);
    holder.child.killTree("SIGKILL");
    await holder.child.exited;
    expect(existsSync(`${db}.lock`)).toBe(true); // SIGKILL left it behind
    const store = await open(db, { lockWaitMs: 0 });
    expect(store.lock?.holder.pid).toBe(process.pid);
  });

  it.each([
    ["a fresh database", false],
    ["a database with a dead holder's lock", true],
  ])("exactly one of several racing processes wins %s", async (_label, staleLock) => {
    const db = freshDb();
    if (staleLock) {
      writeFileSync(`${db}.lock`, JSON.stringify({ pid: await deadPid(), startedAt: new Date().toISOString(), hostname: hostname() }));
    }
    const racers = [startHolder(db), startHolder(db), startHolder(db), startHolder(db)];
    await Promise.all(racers.map((r) => r.child.write("go\n")));
    const results = await Promise.all(racers.map((r) => r.lines.next()));
    const winners = results.filter((line) => line.startsWith("LOCKED "));
    const losers = results.filter((line) => line.startsWith("ERROR StoreLockedError "));
    expect(winners, results.join("\n")).toHaveLength(1);
    expect(losers, results.join("\n")).toHaveLength(racers.length - 1);
    const winnerPid = winners[0]!.slice("LOCKED ".length);
    for (const line of losers) expect(line).toContain(`PID ${winnerPid}`);
    expect(JSON.parse(readFileSync(`${db}.lock`, "utf8")).pid).toBe(Number(winnerPid));
  });

  it("does not delete a fresh lock that replaced the stale one it saw (a faster starter won the takeover)", async () => {
    const db = freshDb();
    const deadHolder = { pid: 1111, startedAt: "2024-01-01T00:00:00.000Z", hostname: hostname() };
    const winner = { pid: 2222, startedAt: "2024-01-02T00:00:00.000Z", hostname: hostname() };
    writeFileSync(`${db}.lock`, JSON.stringify(deadHolder));
    const alive = (pid: number): boolean => {
      if (pid === deadHolder.pid) {
        // Between our read and our removal, another starter removes the stale lock and writes its own.
        writeFileSync(`${db}.lock`, JSON.stringify(winner));
        return false;
      }
      return pid === winner.pid;
    };
    const err = await acquireHolderLock(db, { processAlive: alive, waitMs: 0, identityLockDir: join(dir, "locks") }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreLockedError);
    expect((err as Error).message).toContain("PID 2222");
    expect(JSON.parse(readFileSync(`${db}.lock`, "utf8"))).toEqual(winner);
    expect(existsSync(`${db}.lock.takeover`)).toBe(false);
  });

  it("a starter refused by a live holder leaves a missing database file missing", async () => {
    const db = freshDb();
    // A live holder that has not created the file yet (it is between its lock and its first write).
    writeFileSync(`${db}.lock`, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), hostname: hostname() }));
    const err = await acquireHolderLock(db, { processAlive: () => true, waitMs: 0, identityLockDir: join(dir, "locks") }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreLockedError);
    // Had it created the file, the holder would meet an empty file it did not create, and take it for an emptied state.
    expect(existsSync(db)).toBe(false);
  });

  it("a start after a refused starter meets no empty file of its making, and opens a fresh state", async () => {
    const db = freshDb();
    const holder = JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), hostname: hostname() });
    writeFileSync(`${db}.lock`, holder);
    const refused = await open(db, { lockWaitMs: 0, pid: 999_999 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreLockedError);
    // The holder goes away before it created the database (it crashed, or was a racer that lost in turn).
    rmSync(`${db}.lock`);
    const store = await open(db, { lockWaitMs: 0 });
    expect(store.db.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: 0 });
  });

  it("release leaves a lock alone that someone else has since taken", async () => {
    const db = freshDb();
    const lock = await acquireHolderLock(db, { processAlive: () => true, identityLockDir: join(dir, "locks") });
    const other = JSON.stringify({ pid: 4242, startedAt: new Date().toISOString(), hostname: hostname() });
    writeFileSync(`${db}.lock`, other);
    lock.release();
    expect(readFileSync(`${db}.lock`, "utf8")).toBe(other);
  });
});
