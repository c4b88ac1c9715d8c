// A message is stored once, through the REAL app-server: a 5,000-delta answer used to land in `events` (its streamed
// chunks), `items` and `tasks`; a commentary message in `events` twice and `items`. What a supervisor reads is unchanged.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { startHarness, type Harness } from "../../src/selftest/harness.ts";
import { sc, settled } from "../support/task-waits.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
});
afterAll(async () => {
  await h?.close();
});

function answer(tag: string, chars: number): string {
  let s = "";
  for (let i = 0; s.length < chars; i++) s += `${tag} ${i}: every line of this answer is different from the one before.\n`;
  return s.slice(0, chars);
}

/** Characters a task occupies in the three tables that used to hold each message. */
function storedChars(taskId: string): number {
  const db = h.bridge.store.db;
  const one = (sql: string) => Number(db.prepare(sql).get(taskId)?.n ?? 0);
  return (
    one(`SELECT IFNULL(SUM(LENGTH(data)), 0) AS n FROM events WHERE task_id = ?`) +
    one(`SELECT IFNULL(SUM(LENGTH(data)), 0) AS n FROM items WHERE task_id = ?`) +
    one(`SELECT IFNULL(LENGTH(final_message), 0) + LENGTH(prompt) AS n FROM tasks WHERE id = ?`)
  );
}

describe("a message is stored once", () => {
  const FINAL = answer("ANSWER-5k", 50_000);
  const COMMENTARY = answer("COMMENTARY", 20_000);
  let id = "";

  it("a 5,000-delta answer and a long commentary take about their own size, and read back whole", async () => {
    h.provider!.enqueue(
      { kind: "output", items: [{ type: "message", text: COMMENTARY, phase: "commentary", deltas: 2000 }, { type: "exec", cmd: "echo looked" }] },
      { kind: "output", items: [{ type: "message", text: FINAL, phase: "final_answer", deltas: 5000 }] },
    );
    id = String(sc(await h.call("codex_start", { project_id: "demo", prompt: "write a long answer" })).task_id);
    const answers = await settled(h, id, { rounds: 60 });
    expect(answers.at(-1)!.state).toBe("completed");
    expect(answers.flatMap((a) => (a.messages ?? []) as string[]).join("")).toContain(COMMENTARY.slice(0, 1000));

    const result = sc(await h.call("codex_result", { task_id: id }));
    expect(result.final_message).toBe(FINAL);
    // Once each, plus a few hundred characters of JSON and event bookkeeping; it was about three times before.
    const text = FINAL.length + COMMENTARY.length;
    expect(storedChars(id)).toBeLessThan(text * 1.1);
  });

  it("after a second turn the first answer is still in the transcript (moved into its item, not copied)", async () => {
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "SECOND-answer.", phase: "final_answer" }] });
    await h.call("codex_send", { task_id: id, message: "and now briefly" });
    await settled(h, id);
    expect(sc(await h.call("codex_result", { task_id: id })).final_message).toBe("SECOND-answer.");
    const page = sc(await h.call("codex_inspect", { task_id: id, kind: "transcript", limit: 100 }));
    const ends = (page.items as { type: string; final?: string }[]).filter((e) => e.type === "turn_end");
    expect(ends).toHaveLength(2);
    expect(ends[0]!.final).toContain(FINAL.slice(0, 2000));
    expect(ends[1]!.final).toBe("SECOND-answer.");
    const agent = (page.items as { type: string; text?: string }[]).filter((e) => e.type === "agent");
    expect(agent[0]!.text).toContain(COMMENTARY.slice(0, 2000));
    expect(storedChars(id)).toBeLessThan((FINAL.length + COMMENTARY.length) * 1.1);
  });
});
