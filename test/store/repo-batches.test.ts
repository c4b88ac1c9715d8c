// A flush's events and items written as multi-row statements end exactly as one statement per row would leave them:
// every event in order with consecutive seqs, every item once, in the place it was first written, with its last state.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OpenedStore } from "../../src/store/open.ts";
import type { NewEvent, Repo } from "../../src/store/repo.ts";
import { memoryRepo } from "../support/memory-repo.ts";

let store: OpenedStore;
let repo: Repo;
const T = "t1";

beforeEach(async () => ({ store, repo } = await memoryRepo(T, "running")));
afterEach(() => store.close());

const item = (id: string, status: string, n: number) => ({ task_id: T, item_id: id, turn_id: "turn1", type: "commandExecution", status, data: { n } });

describe("batched event and item writes", () => {
  for (const count of [1, 7, 8, 31, 32, 33, 75, 400]) {
    it(`stores ${count} events in order with consecutive seqs after what was there`, () => {
      repo.appendEvents(T, [{ turn_id: null, kind: "turn_started", data: {} }]);
      const events: NewEvent[] = Array.from({ length: count }, (_, k) => ({ turn_id: "turn1", kind: k % 2 ? "command" : "command_started", item_id: `c${k}`, data: { k } }));
      expect(repo.tx(() => repo.appendEvents(T, events))).toBe(count + 1);
      const rows = repo.events(T, 1, 1000);
      expect(rows.map((r) => [r.seq, r.kind, r.item_id, r.data.k])).toEqual(events.map((e, k) => [k + 2, e.kind, e.item_id, k]));
      expect(repo.task(T)!.last_seq).toBe(count + 1);
    });
  }

  it("writes an item given twice once, where it first came, with its last snapshot, and updates an existing one", () => {
    repo.upsertItem(item("old", "inProgress", 0));
    const batch = [item("a", "inProgress", 1), item("old", "completed", 2), item("b", "inProgress", 3), item("a", "completed", 4)];
    for (let k = 0; k < 40; k++) batch.push(item(`x${k}`, "inProgress", 100 + k), item(`x${k}`, "completed", 200 + k));
    repo.tx(() => repo.upsertItems(batch));
    const rows = repo.items(T);
    expect(rows.map((r) => [r.item_id, r.status, r.data.n])).toEqual([
      ["old", "completed", 2],
      ["a", "completed", 4],
      ["b", "inProgress", 3],
      ...Array.from({ length: 40 }, (_, k) => [`x${k}`, "completed", 200 + k]),
    ]);
  });

  it("redacts what it stores in a batch as it does one by one", () => {
    const secret = `ghp_${"a1B2c3D4e5".repeat(4)}`;
    repo.appendEvents(T, Array.from({ length: 40 }, () => ({ turn_id: null, kind: "message", data: { text: `token ${secret}` } })));
    repo.upsertItems(Array.from({ length: 40 }, (_, k) => ({ ...item(`s${k}`, "completed", k), data: { output: secret } })));
    const dump = JSON.stringify([repo.events(T, 0, 100), repo.items(T)]);
    expect(dump).not.toContain(secret);
  });
});

describe("reading a page of events twice", () => {
  const many = (n: number, from = 0): NewEvent[] => Array.from({ length: n }, (_, k) => ({ turn_id: "turn1", kind: "command", item_id: `c${from + k}`, data: { k: from + k } }));

  it("gives what the database holds, after more events came and after a rolled-back write", () => {
    repo.appendEvents(T, many(10));
    const page = () => repo.events(T, 2, 5).map((e) => [e.seq, e.data.k]);
    const first = page();
    repo.appendEvents(T, many(10, 10));
    expect(page()).toEqual(first);
    expect(repo.events(T, 15, 10).map((e) => e.seq)).toEqual([16, 17, 18, 19, 20]);
    // A page seen inside a transaction that rolls back is not the page afterwards.
    expect(() =>
      repo.tx(() => {
        repo.appendEvents(T, many(5, 100));
        expect(repo.events(T, 20, 5).map((e) => e.data.k)).toEqual([100, 101, 102, 103, 104]);
        throw new Error("roll back");
      }),
    ).toThrow("roll back");
    repo.appendEvents(T, many(5, 200));
    expect(repo.events(T, 20, 5).map((e) => e.data.k)).toEqual([200, 201, 202, 203, 204]);
  });

  it("hands each reader its own objects", () => {
    repo.appendEvents(T, many(4));
    const a = repo.events(T, 0, 4);
    a[0]!.data.k = "changed";
    expect(repo.events(T, 0, 4)[0]!.data.k).toBe(0);
  });
});
