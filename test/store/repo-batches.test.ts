// A flush's events and items written as multi-row statements end exactly as one statement per row would leave them:
// every event in order with consecutive seqs, every item once, in the place it was first written, with its last state.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { openStateDatabase, type OpenedStore } from "../../src/store/open.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { Repo, type NewEvent } from "../../src/store/repo.ts";
import { redactor } from "../../src/policy/redact.ts";

let store: OpenedStore;
let repo: Repo;
const T = "t1";

beforeEach(async () => {
  store = await openStateDatabase(await getPlatform(), ":memory:", MIGRATIONS);
  repo = new Repo(store.db, redactor);
  repo.insertTask({ id: T, project_id: "p", profile_id: "default", prompt: "go", relay: true, model: null, effort: null, state: "running" });
});
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
