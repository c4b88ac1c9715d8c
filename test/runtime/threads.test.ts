// codex_threads on the REAL app-server: Codex's own search and cwd filters (labelled as filters, not access control),
// and a thread's turns read page by page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { resultText, startHarness, type Harness } from "../../src/selftest/harness.ts";
import { sc, settled, startTask, type S } from "../support/task-waits.ts";

let h: Harness;
let first: S;
let second: S;
beforeAll(async () => {
  h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
  h.provider!.enqueue(
    { kind: "output", items: [{ type: "message", text: "one" }] },
    { kind: "output", items: [{ type: "message", text: "two" }] },
    { kind: "output", items: [{ type: "message", text: "three" }] },
  );
  const a = await startTask(h, "alpha pelican survey");
  await settled(h, a);
  await h.call("codex_send", { task_id: a, message: "and a second turn" });
  await settled(h, a);
  const b = await startTask(h, "beta walrus census");
  await settled(h, b);
  first = sc(await h.call("codex_status", { task_id: a }));
  second = sc(await h.call("codex_status", { task_id: b }));
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const list = async (args: Record<string, unknown>) => {
  const r = await h.call("codex_threads", { action: "list", ...args });
  expect(r.isError, resultText(r)).toBeFalsy();
  return { s: sc(r), text: resultText(r) };
};

describe("codex_threads on the real Codex", () => {
  it("search narrows the list to matching threads and says it is a filter, not access control", async () => {
    const all = await list({});
    const ids = all.s.threads.map((t: S) => t.thread_id);
    expect(ids).toEqual(expect.arrayContaining([first.thread_id, second.thread_id]));
    expect(all.s.note).toBeUndefined();

    const found = await list({ search: "walrus" });
    expect(found.s.threads.map((t: S) => t.thread_id)).toEqual([second.thread_id]);
    expect(found.s.threads[0].task_id).toBe(second.task_id);
    expect(found.s.note).toMatch(/not access control/);
    expect(found.text).toMatch(/not access control/);
  });

  it("cwd keeps only threads whose session cwd is exactly that directory", async () => {
    const here = await list({ cwd: h.projectDir });
    expect(here.s.threads.map((t: S) => t.thread_id)).toEqual(expect.arrayContaining([first.thread_id, second.thread_id]));
    const elsewhere = await list({ cwd: `${h.projectDir}-elsewhere` });
    expect(elsewhere.s.threads).toEqual([]);
    expect(elsewhere.s.note).toMatch(/not access control/);
  });

  it("read gives the thread's status and its turns one page at a time", async () => {
    const p1 = sc(await h.call("codex_threads", { action: "read", thread_id: first.thread_id, limit: 1 }));
    expect(p1.status).toBe("idle");
    expect(p1.turns).toHaveLength(1);
    expect(p1.turns[0].status).toBe("completed");
    expect(p1.next_cursor).toBeTruthy();
    const p2 = sc(await h.call("codex_threads", { action: "read", thread_id: first.thread_id, limit: 1, cursor: p1.next_cursor }));
    expect(p2.turns).toHaveLength(1);
    expect(p2.turns[0].turn_id).toBe(first.turn_id);
    expect(p2.turns[0].turn_id).not.toBe(p1.turns[0].turn_id);
  });

  it("refuses a filter on read, naming it", async () => {
    const r = await h.call("codex_threads", { action: "read", thread_id: first.thread_id, search: "x" });
    expect(r.isError).toBe(true);
    expect(resultText(r)).toMatch(/search and cwd filter action list only/);
  });
});
