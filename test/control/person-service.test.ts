// The person at the machine's answers go through the same policy and ledger as every other answer: refused under
// approvals = "supervisor" with nothing sent, recorded as person at the machine under "person" and "either", held to the
// decisions Codex offered, and a question answered with one text.
import { afterEach, describe, expect, it } from "vitest";
import type { AppServerClient } from "../../src/codex/client.ts";
import { fakePerson, TASK, THREAD, type FakePerson } from "./fake-person.ts";

let fake: FakePerson | null = null;
afterEach(() => {
  fake?.store.close();
  fake = null;
});

describe("PersonService answers", () => {
  it("approvals = supervisor: approve is refused with the setting named, and nothing reaches Codex", async () => {
    fake = await fakePerson("supervisor");
    const id = fake.ask(1);
    await expect(fake.person.decide({ request_id: id, verdict: "approve" })).rejects.toThrow(/answered by the supervisor: this profile sets approvals = "supervisor"/);
    expect(fake.codex.writes).toEqual([]);
    expect(fake.repo.interaction(id)).toMatchObject({ state: "pending", answered_by: null });
  });

  for (const approvals of ["person", "either"] as const) {
    it(`approvals = ${approvals}: approve sends Codex's own decision and the ledger says person at the machine`, async () => {
      fake = await fakePerson(approvals);
      const id = fake.ask(2);
      const r = await fake.person.decide({ request_id: id, verdict: "approve" });
      expect(r).toMatchObject({ request_id: id, task_id: TASK, action: "accept", state: "submitted", answered_by: "person at the machine", repeated: false });
      expect(fake.codex.writes).toEqual([{ id: 2, result: { decision: "accept" } }]);
      expect(fake.repo.interaction(id)).toMatchObject({ answered_by: "person at the machine", response: { decision: "accept" } });
    });
  }

  it("--for-session where Codex did not offer it is refused by the policy; decline works", async () => {
    fake = await fakePerson("person");
    const id = fake.ask(3);
    await expect(fake.person.decide({ request_id: id, verdict: "approve", for_session: true })).rejects.toThrow(/acceptForSession was not offered for this command; offered: accept, decline, cancel/);
    const r = await fake.person.decide({ request_id: id, verdict: "decline" });
    expect(r.action).toBe("decline");
    expect(fake.codex.writes).toEqual([{ id: 3, result: { decision: "decline" } }]);
  });

  it("answers a one-question request with one text, and refuses approve on a question", async () => {
    fake = await fakePerson("person");
    fake.sup.onServerRequest(fake.codex as unknown as AppServerClient, {
      id: 4,
      method: "item/tool/requestUserInput",
      params: { threadId: THREAD, turnId: "turn-1", itemId: "ask_1", questions: [{ id: "color", header: "Color", question: "Which color?", options: [{ label: "red" }, { label: "blue" }] }] },
    });
    const id = fake.repo.interactions(TASK).find((i) => i.rpc_id === 4)!.id;
    await expect(fake.person.decide({ request_id: id, verdict: "approve" })).rejects.toThrow(/is a question: answer it with codex-bridge answer/);
    await expect(fake.person.answerQuestions(id, { single: "green" })).rejects.toThrow(/answer "green" to color is not an offered option; choose from: red, blue/);
    const r = await fake.person.answerQuestions(id, { single: "blue" });
    expect(r).toMatchObject({ action: "answer", answered_by: "person at the machine" });
    expect(fake.codex.writes).toEqual([{ id: 4, result: { answers: { color: { answers: ["blue"] } } } }]);
  });
});
