// Retention's storage side under every runtime's SQLite driver: a long final answer kept deflated reads back whole (a
// BLOB must come back as bytes, not text), a short one stays text, a continued task gets its answer back into its
// turn's item, and the rows written back keep their order.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OpenedStore } from "../../src/store/open.ts";
import type { Repo } from "../../src/store/repo.ts";
import { packFinalMessage, removeCommandOutput, removeRawEvents, repackTaskRows } from "../../src/store/compaction.ts";
import { memoryRepo } from "../support/memory-repo.ts";

let store: OpenedStore;
let repo: Repo;
const T = "t_0000000001";

beforeEach(async () => ({ store, repo } = await memoryRepo(T, "running")));
afterEach(() => store.close());

const answer = Array.from({ length: 300 }, (_, i) => `line ${i}: ünïcödé and emoji 🙂 survive the round trip`).join("\n");

describe("compaction storage", () => {
  it("a long final answer is kept deflated and reads back whole; a short one stays text", () => {
    repo.updateTask(T, { state: "completed", turn_id: "tu1", final_message: answer });
    packFinalMessage(repo.db, T);
    expect(repo.db.prepare(`SELECT typeof(final_message) AS t FROM tasks WHERE id = ?`).get(T)?.t).toBe("blob");
    expect(repo.task(T)!.final_message).toBe(answer);
    repo.updateTask(T, { final_message: "short" });
    packFinalMessage(repo.db, T);
    expect(repo.db.prepare(`SELECT typeof(final_message) AS t FROM tasks WHERE id = ?`).get(T)?.t).toBe("text");
  });

  it("a new turn moves the packed answer into its turn's final item", () => {
    repo.upsertItem({ task_id: T, item_id: "m1", turn_id: "tu1", type: "agentMessage", status: "completed", data: { final: true } });
    repo.updateTask(T, { state: "completed", turn_id: "tu1", final_message: answer });
    packFinalMessage(repo.db, T);
    repo.prepareNewTurn(T);
    expect(repo.item(T, "m1")!.data).toEqual({ final: true, text: answer });
  });

  it("raw events and command output go; what stays keeps its order and seqs", () => {
    repo.appendEvents(T, [
      { turn_id: "tu1", kind: "turn_started", data: {} },
      { turn_id: "tu1", kind: "user_message", data: { text: "go" } },
      { turn_id: "tu1", kind: "command_started", item_id: "c1", data: { command: "ls" } },
      { turn_id: "tu1", kind: "message", item_id: "m1", data: { text: "looked" } },
      { turn_id: "tu1", kind: "turn_completed", data: { status: "completed" } },
    ]);
    for (const id of ["c1", "c2", "c3"]) {
      repo.upsertItem({ task_id: T, item_id: id, turn_id: "tu1", type: "commandExecution", status: "completed", data: { command: id, cwd: "/p", exit_code: 0, output: "x".repeat(3000) } });
    }
    expect(removeRawEvents(repo.db, T)).toBe(2);
    expect(removeCommandOutput(repo.db, T)).toBe(3);
    repackTaskRows(repo.db, "events", T);
    repackTaskRows(repo.db, "items", T);
    expect(repo.events(T, 0, 10).map((e) => [e.seq, e.kind])).toEqual([[2, "user_message"], [4, "message"], [5, "turn_completed"]]);
    expect(repo.items(T, "commandExecution").map((i) => [i.item_id, i.data])).toEqual(
      ["c1", "c2", "c3"].map((id) => [id, { command: id, exit_code: 0, output_removed: true }]),
    );
  });
});
