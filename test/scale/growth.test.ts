// test:scale growth: how many bytes of state each task kind leaves behind, through the real app-server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { startHarness, type Harness } from "../../src/selftest/harness.ts";
import { kib, runTask, TASK_KINDS, usedBytes, type TaskKind } from "./growth-support.ts";

const QUICK = process.env.SCALE_QUICK === "1";
const PER_KIND = QUICK ? 2 : 5;

let h: Harness;
beforeAll(async () => {
  h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
});
afterAll(async () => {
  await h?.close();
});

describe("growth per task kind", () => {
  const growth = new Map<TaskKind, number>();

  it("measures each kind", async () => {
    const db = h.bridge.store.db;
    for (const kind of TASK_KINDS) {
      const before = usedBytes(db);
      for (let i = 0; i < PER_KIND; i++) await runTask(h, kind, `${kind}-${i}`);
      growth.set(kind, (usedBytes(db) - before) / PER_KIND);
    }
    console.log(`growth per task: ${TASK_KINDS.map((k) => `${k} ${kib(growth.get(k)!)}`).join(", ")}`);
    expect(growth.size).toBe(3);
  });
});
