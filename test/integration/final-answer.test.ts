// codex_result delivers exactly the last turn's final answer, through the REAL app-server: never commentary (by the
// message phase Codex passes on from the model), never a preamble, never an earlier turn's answer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { resultText, startHarness, type Harness } from "../../src/selftest/harness.ts";
import { sc, settled, type S } from "../support/task-waits.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
});
afterAll(async () => {
  await h?.close();
});

const COMMENTARY = "COMMENTARY-7f3: I will look at the project first, then answer.";
const FIRST = "FIRST-ANSWER-19c: the project has one README.";
const SECOND = "SECOND-ANSWER-a02: counted two lines.";

async function result(id: string): Promise<S> {
  const r = await h.call("codex_result", { task_id: id });
  expect(r.isError, resultText(r)).toBeFalsy();
  return { ...sc(r), text: resultText(r) };
}

const waitedMessages = (answers: S[]) => answers.flatMap((a) => (a.messages ?? []) as string[]);

describe("the final answer, exactly", () => {
  let id = "";

  it("a turn that streams commentary, runs a command, then answers: only the answer is the result", async () => {
    h.provider!.enqueue(
      { kind: "output", items: [{ type: "message", text: COMMENTARY, phase: "commentary", deltas: 5 }, { type: "exec", cmd: "echo looked" }] },
      { kind: "output", items: [{ type: "message", text: FIRST, phase: "final_answer", deltas: 5 }] },
    );
    id = sc(await h.call("codex_start", { project_id: "demo", prompt: "look, then answer" })).task_id;
    const answers = await settled(h, id);
    expect(answers.at(-1)!.state).toBe("completed");
    expect(waitedMessages(answers)).toContain(COMMENTARY);
    const r = await result(id);
    expect(r.final_message).toBe(FIRST);
    expect(r.text).not.toContain(COMMENTARY);
  });

  it("a second turn's result holds its own answer, not the first one's", async () => {
    h.provider!.enqueue(
      { kind: "output", items: [{ type: "exec", cmd: "printf 'a\\nb\\n' | wc -l" }] },
      { kind: "output", items: [{ type: "message", text: SECOND, phase: "final_answer" }] },
    );
    const sent = await h.call("codex_send", { task_id: id, message: "now count" });
    expect(sc(sent).action).toBe("new_turn");
    await settled(h, id);
    const r = await result(id);
    expect(r.final_message).toBe(SECOND);
    expect(r.text).not.toContain(FIRST);
    expect(r.text).not.toContain(COMMENTARY);
  });

  it("a turn that ends after commentary and a command, with no answer, has no final message (not the commentary, not an earlier answer)", async () => {
    h.provider!.enqueue(
      { kind: "output", items: [{ type: "message", text: COMMENTARY, phase: "commentary" }, { type: "exec", cmd: "echo working" }] },
      { kind: "output", items: [] },
    );
    await h.call("codex_send", { task_id: id, message: "keep going" });
    const answers = await settled(h, id);
    expect(answers.at(-1)!.state).toBe("completed");
    const r = await result(id);
    expect(r.final_message).toBeUndefined();
    expect(r.text).not.toContain(COMMENTARY);
    expect(r.text).not.toContain(SECOND);
  });

  it("without phases (a model that sends none), a preamble before a command is not the answer; the last message is", async () => {
    h.provider!.enqueue(
      { kind: "output", items: [{ type: "message", text: "PREAMBLE-55d: checking." }, { type: "exec", cmd: "echo checked" }] },
      { kind: "output", items: [{ type: "message", text: "PLAIN-ANSWER-e81: all good." }] },
    );
    const t = sc(await h.call("codex_start", { project_id: "demo", prompt: "no phases" })).task_id;
    const answers = await settled(h, t);
    expect(waitedMessages(answers)).toContain("PREAMBLE-55d: checking.");
    const r = await result(t);
    expect(r.final_message).toBe("PLAIN-ANSWER-e81: all good.");
    expect(r.text).not.toContain("PREAMBLE-55d");
  });

  it("a turn that fails after a message is not 'answered' by that message: it is shown as a message, not as the result", async () => {
    // The stream delivers a whole message, then breaks off before response.completed: Codex fails the turn.
    h.provider!.enqueue({ kind: "disconnect", items: [{ type: "message", text: "PREAMBLE-9b1: let me think about it." }] });
    const t = sc(await h.call("codex_start", { project_id: "demo", prompt: "break off" })).task_id;
    const answers = await settled(h, t);
    expect(answers.at(-1)!.state).toBe("failed");
    expect(waitedMessages(answers)).toContain("PREAMBLE-9b1: let me think about it.");
    const r = await result(t);
    expect(r.final_message).toBeUndefined();
    expect(r.failure?.code).toBe("provider_error");
  });
});
