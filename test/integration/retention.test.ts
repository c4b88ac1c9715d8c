// Retention through the REAL app-server: a finished task past retention_days keeps its answer, evidence, transcript,
// ledger and checkpoint, loses its raw events and command output (and says so when asked for them), can still be
// continued; a recent, an UNKNOWN and a live task are left whole.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { startHarness, type Harness } from "../../src/selftest/harness.ts";
import { compactDue } from "../../src/tasks/retention.ts";
import { sc, settled } from "../support/task-waits.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
});
afterAll(async () => {
  await h?.close();
});

const db = () => h.bridge.store.db;
const count = (sql: string, ...args: string[]) => Number(db().prepare(sql).get(...args)?.n ?? 0);
/** Makes a task look finished `days` ago (the one thing a test cannot wait for). */
const age = (id: string, days: number) =>
  db().prepare(`UPDATE tasks SET updated_at = ? WHERE id = ?`).run(new Date(Date.now() - days * 86_400_000).toISOString(), id);

const ANSWER = Array.from({ length: 400 }, (_, i) => `answer line ${i}: the result of the work, said in full.`).join("\n");

async function runTask(prompt: string): Promise<string> {
  h.provider!.enqueue(
    { kind: "output", items: [{ type: "message", text: "Looking first.", phase: "commentary", deltas: 20 }, { type: "exec", cmd: "seq 1000 1400" }] },
    { kind: "output", items: [{ type: "message", text: ANSWER, phase: "final_answer", deltas: 500 }] },
  );
  const id = String(sc(await h.call("codex_start", { project_id: "demo", prompt })).task_id);
  expect((await settled(h, id)).at(-1)!.state).toBe("completed");
  return id;
}

describe("retention", () => {
  let old = "";
  let recent = "";
  let unknown = "";
  let resultBefore: unknown;

  it("compacts only the finished task past the age: its result is unchanged, its raw detail gone", async () => {
    old = await runTask("old task");
    recent = await runTask("recent task");
    unknown = await runTask("unknown task");
    age(old, 30);
    age(recent, 2);
    age(unknown, 30);
    db().prepare(`UPDATE tasks SET state = 'unknown', unknown_json = '{"method":"turn/start","detail":"timed out"}' WHERE id = ?`).run(unknown);
    resultBefore = sc(await h.call("codex_result", { task_id: old }));
    const eventsBefore = (id: string) => count(`SELECT COUNT(*) AS n FROM events WHERE task_id = ?`, id);
    const recentEvents = eventsBefore(recent);
    const unknownEvents = eventsBefore(unknown);
    const oldEvents = eventsBefore(old);

    const r = compactDue(h.bridge.repo, 14);
    expect(r.tasks).toBe(1);
    expect(r.outputs).toBe(1);
    expect(eventsBefore(old)).toBe(oldEvents - r.events);
    expect(r.events).toBeGreaterThan(0);
    expect(eventsBefore(recent)).toBe(recentEvents);
    expect(eventsBefore(unknown)).toBe(unknownEvents);
    expect(count(`SELECT COUNT(*) AS n FROM tasks WHERE compacted_at IS NOT NULL`)).toBe(1);
    // Nothing more is due: a second pass does nothing.
    expect(compactDue(h.bridge.repo, 14).tasks).toBe(0);

    expect(sc(await h.call("codex_result", { task_id: old }))).toEqual(resultBefore);
    expect((resultBefore as { final_message: string }).final_message).toBe(ANSWER);
    // The long answer is kept deflated, not as text.
    expect(count(`SELECT COUNT(*) AS n FROM tasks WHERE id = ? AND typeof(final_message) = 'blob'`, old)).toBe(1);
  });

  it("says what is gone when asked for it; the transcript and command list remain", async () => {
    const commands = sc(await h.call("codex_inspect", { task_id: old, kind: "commands" }));
    const cmd = (commands.items as { item_id: string; exit_code: number; output_chars: number }[])[0]!;
    expect(cmd.exit_code).toBe(0);
    expect(cmd.output_chars).toBeGreaterThan(2000);
    const output = sc(await h.call("codex_inspect", { task_id: old, kind: "command_output", item_id: cmd.item_id }));
    expect(output.compacted).toMatch(/retention \(retention_days 14\) removed this command's output on .*kind=commands/);
    const raw = sc(await h.call("codex_inspect", { task_id: old, kind: "raw_event", limit: 100 }));
    expect(raw.compacted).toMatch(/raw event\(s\) up to seq \d+ .* were removed/);
    const transcript = sc(await h.call("codex_inspect", { task_id: old, kind: "transcript", limit: 100 }));
    const types = (transcript.items as { type: string }[]).map((e) => e.type);
    expect(types).toEqual(["user", "agent", "turn_end"]);
    expect(transcript.compacted).toMatch(/its commands are listed by kind=commands/);
    // A task left whole says nothing of the kind.
    const recentRaw = sc(await h.call("codex_inspect", { task_id: recent, kind: "raw_event" }));
    expect(recentRaw.compacted).toBeUndefined();
  });

  it("a compacted task can be continued; its new turn is whole, and the earlier answer stays in its transcript", async () => {
    h.provider!.enqueue({ kind: "output", items: [{ type: "exec", cmd: "echo again" }] }, { kind: "output", items: [{ type: "message", text: "Second answer.", phase: "final_answer" }] });
    await h.call("codex_send", { task_id: old, message: "once more" });
    expect((await settled(h, old)).at(-1)!.state).toBe("completed");
    expect(sc(await h.call("codex_result", { task_id: old })).final_message).toBe("Second answer.");
    expect(count(`SELECT COUNT(*) AS n FROM tasks WHERE id = ? AND compacted_at IS NULL`, old)).toBe(1);
    const transcript = sc(await h.call("codex_inspect", { task_id: old, kind: "transcript", limit: 100 }));
    const ends = (transcript.items as { type: string; final?: string }[]).filter((e) => e.type === "turn_end");
    expect(ends[0]!.final).toContain("answer line 0:");
    const commands = sc(await h.call("codex_inspect", { task_id: old, kind: "commands" })).items as { item_id: string }[];
    const again = sc(await h.call("codex_inspect", { task_id: old, kind: "command_output", item_id: commands[1]!.item_id }));
    expect(again.compacted).toBeUndefined();
    expect((again.items as { text: string }[])[0]!.text).toContain("again");
  });
});
