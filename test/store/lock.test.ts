import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getPlatform } from "../../platform/index.ts";
import type { ChildHandle, Platform } from "../../platform/types.ts";
import { openStateDatabase, StoreLockedError, type OpenedStore } from "../../src/store/open.ts";
import { acquireHolderLock } from "../../src/store/lock.ts";
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
  if (dir) rmSync(dir, { recursive: true, force: true });
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
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(racers.length - 1);
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
    const err = await acquireHolderLock(db, { processAlive: alive, waitMs: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreLockedError);
    expect((err as Error).message).toContain("PID 2222");
    expect(JSON.parse(readFileSync(`${db}.lock`, "utf8"))).toEqual(winner);
    expect(existsSync(`${db}.lock.takeover`)).toBe(false);
  });

  it("release leaves a lock alone that someone else has since taken", async () => {
    const db = freshDb();
    const lock = await acquireHolderLock(db, { processAlive: () => true });
    const other = JSON.stringify({ pid: 4242, startedAt: new Date().toISOString(), hostname: hostname() });
    writeFileSync(`${db}.lock`, other);
    lock.release();
    expect(readFileSync(`${db}.lock`, "utf8")).toBe(other);
  });
});
