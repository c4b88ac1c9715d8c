// The state database refusing writes mid-turn (SQLITE_FULL, made real by PRAGMA max_page_count: SQLite itself reports
// "database or disk is full" once the file would grow), against the real app-server: the bridge keeps running and
// answering, says disk_full with what to do, holds what the app-server sent, and stores all of it once space returns.
import { afterEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { resultText, startHarness, type Harness } from "../../src/selftest/harness.ts";
import { poll } from "../support/poll.ts";
import { sc, settled, type S } from "../support/task-waits.ts";

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

function fillDisk(h: Harness): void {
  // No free page left to grow into (new files use incremental auto_vacuum): the next page the file needs is refused.
  h.bridge.store.db.exec("PRAGMA incremental_vacuum");
  const pages = Number(h.bridge.store.db.prepare("PRAGMA page_count").get()!.page_count);
  h.bridge.store.db.exec(`PRAGMA max_page_count = ${pages}`);
}

function freeDisk(h: Harness): void {
  h.bridge.store.db.exec("PRAGMA max_page_count = 1073741823");
}

const sqliteCheck = (health: S) => (health.checks as S[]).find((c) => c.name === "sqlite")!;

describe("a full disk during a turn", () => {
  it("holds the streamed events, says disk_full, and stores them all once space returns, twice", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    const harness = h;
    for (const round of [1, 2]) {
      const text = Array.from({ length: 2000 }, (_, i) => `r${round}w${i}-streamed-words`).join(" ");
      harness.provider!.enqueue({ kind: "output", delayMs: 1500, items: [{ type: "message", text, deltas: 2000 }] });
      const id = sc(await harness.call("codex_start", { project_id: "demo", prompt: `stream ${round}` })).task_id as string;
      fillDisk(harness);

      // The intake meets the full disk: the bridge is still here, and says so where a supervisor looks.
      const health = await poll(async () => {
        const r = sc(await harness.call("codex_health", {}));
        return sqliteCheck(r).ok === false ? r : null;
      }, { timeoutMs: 60_000, what: "codex_health to report the full disk", interval: 200 });
      expect(health.healthy).toBe(false);
      expect(health.sqlite.problem).toBe("disk_full");
      expect(sqliteCheck(health).detail).toMatch(/disk is full/);
      expect(sqliteCheck(health).detail).toContain(harness.bridge.store.path);
      expect(sqliteCheck(health).detail).toMatch(/Free space/);
      const status = await harness.call("codex_status", { task_id: id });
      expect(status.isError, resultText(status)).toBeFalsy();
      expect(sc(status).alerts?.[0]?.code).toBe("disk_full");
      expect(resultText(status)).toMatch(/bridge disk_full: .*Free space/);
      // A wait answers too (within seconds, not its whole timeout), saying why the task does not move.
      const wait = await harness.call("codex_wait", { task_id: id, timeout_seconds: 60 });
      expect(wait.isError, resultText(wait)).toBeFalsy();
      expect(sc(wait).alerts?.[0]?.code).toBe("disk_full");
      // A write a tool call needs is refused naming the file, the cause and the remedy, not the driver's bare text.
      const refused = await harness.call("codex_start", { project_id: "demo", prompt: "another" });
      expect(refused.isError, resultText(refused)).toBe(true);
      expect(resultText(refused)).toContain(harness.bridge.store.path);
      expect(resultText(refused)).toMatch(/the disk is full.*Free space/);

      freeDisk(harness);
      const answers = await settled(harness, id, { mode: "raw" });
      expect(answers.at(-1)!.state).toBe("completed");
      const result = sc(await harness.call("codex_result", { task_id: id }));
      expect(result.final_message).toBe(text);
      // (A completed message's streamed chunks are not kept: the message is stored once, whole, as checked above.)
      const after = sc(await harness.call("codex_health", {}));
      expect(sqliteCheck(after).ok).toBe(true);
    }
  });
});
