// Exact recovery from UNKNOWN against the fake app-server (real 0.171.0 messages in scripted orders): only a late
// answer with the same id naming a well-formed turn, terminal plus idle for exactly that thread and turn, or a
// thread/read started after the request settles it; weaker evidence and expiry leave it UNKNOWN; nothing is resent.
import { afterEach, describe, expect, it } from "vitest";
import type { Bridge } from "../../src/app/assemble.ts";
import { fakeBridge, type FakeBridge } from "../support/fake-bridge.ts";

let fake: FakeBridge | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function bridgeOn(mode: string, extraEnv: Record<string, string> = {}): Promise<FakeBridge> {
  fake = await fakeBridge(mode, extraEnv);
  return fake;
}

const kinds = (b: Bridge, taskId: string) => b.repo.events(taskId, 0, 1000).map((e) => e.kind);
const lastOf = (b: Bridge, taskId: string, kind: string) => b.repo.events(taskId, 0, 1000, [kind]).at(-1)?.data;

describe("UNKNOWN recovery on the fake app-server", () => {
  it("a late answer with the same id naming a well-formed turn settles it; the turn then runs to its end", async () => {
    const { b, step, sent } = await bridgeOn("late-ack");
    const t = await b.service.start({ project_id: "demo", prompt: "go" });
    expect(t.state).toBe("unknown");
    expect(t.unknown).toMatchObject({ method: "turn/start", thread_id: t.thread_id, turn_id: null });
    expect(typeof t.unknown!.rpc_id).toBe("number");
    await step();
    const running = b.repo.task(t.id)!;
    expect(running.state).toBe("running");
    expect(running.unknown).toBeNull();
    expect(lastOf(b, t.id, "unknown_resolved")).toMatchObject({ method: "turn/start", by: "Codex's late answer", outcome: "accepted", status: "inProgress" });
    await step();
    expect(b.repo.task(t.id)!).toMatchObject({ state: "completed", turn_id: running.turn_id });
    expect(sent()).toEqual(["thread/start", "turn/start"]);
  });

  it("a late answer naming another thread's turn settles nothing", async () => {
    const { b, step, sent } = await bridgeOn("late-ack-foreign");
    const a = await b.service.start({ project_id: "demo", prompt: "first" });
    expect(a.state).toBe("running");
    const t = await b.service.start({ project_id: "demo", prompt: "second" });
    expect(t.state).toBe("unknown");
    await step();
    const after = b.repo.task(t.id)!;
    expect(after.state).toBe("unknown");
    expect(after.unknown?.turn_id).toBeNull();
    expect(JSON.stringify(lastOf(b, t.id, "notice"))).toMatch(new RegExp(`belongs to ${a.id}`));
    expect(b.repo.task(a.id)!.state).toBe("running");
    expect(sent()).toEqual(["thread/start", "turn/start", "thread/start", "turn/start"]);
  });

  it("terminal plus idle for exactly the correlated thread and turn settles it; an idle, another thread or another turn does not", async () => {
    const { b, step, sent } = await bridgeOn("bind-then-terminal");
    const t = await b.service.start({ project_id: "demo", prompt: "go" });
    await step(); // late answer in an unsupported status: ties the request to its turn only
    const bound = b.repo.task(t.id)!;
    expect(bound.state).toBe("unknown");
    expect(bound.unknown?.turn_id).toMatch(/^01a2/);
    await step(); // an idle with no terminal
    expect(b.repo.task(t.id)!.state).toBe("unknown");
    await step(); // the same turn id on another thread, another turn on this thread
    expect(b.repo.task(t.id)!.state).toBe("unknown");
    await step(); // the exact terminal, but the thread's latest status is active
    expect(b.repo.task(t.id)!.state).toBe("unknown");
    await step(); // then idle
    expect(b.repo.task(t.id)!).toMatchObject({ state: "completed", turn_id: bound.unknown!.turn_id, unknown: null });
    expect(lastOf(b, t.id, "unknown_resolved")).toMatchObject({ by: "turn/completed plus idle", outcome: "accepted", status: "completed" });
    expect(sent()).toEqual(["thread/start", "turn/start"]);
  });

  it("a thread/read started before the correlation does not settle it; one started after does", async () => {
    const { b, step, sent } = await bridgeOn("stale-read");
    const t = await b.service.start({ project_id: "demo", prompt: "go" });
    const early = b.service.status(t.id); // its thread/read is held by the fake
    await step(); // the first request is settled by its late answer and its turn ends
    expect(b.repo.task(t.id)!.state).toBe("completed");
    await expect(b.service.send({ task_id: t.id, message: "again" })).resolves.toMatchObject({ action: "new_turn" });
    expect(b.repo.task(t.id)!.state).toBe("unknown");
    await step(); // the held read returns: idle, with a new ended turn the second request would match
    await early;
    expect(b.repo.task(t.id)!.state).toBe("unknown");
    const fresh = await b.service.status(t.id);
    expect(fresh.task.state).toBe("completed");
    expect(fresh.unknown).toBeUndefined();
    expect(lastOf(b, t.id, "unknown_resolved")).toMatchObject({ by: "thread/read", outcome: "accepted", status: "completed" });
    expect(sent()).toEqual(["thread/start", "turn/start", "turn/start"]);
  });

  it("expiry settles nothing; restart stays refused until codex_cancel gives it up", async () => {
    const { b, step, sent } = await bridgeOn("expire", { CODEX_BRIDGE_UNKNOWN_TTL_MS: "300" });
    const t = await b.service.start({ project_id: "demo", prompt: "go" });
    await new Promise((r) => setTimeout(r, 400));
    await step(); // a valid late answer, after expiry
    expect(b.repo.task(t.id)!.state).toBe("unknown");
    expect(JSON.stringify(lastOf(b, t.id, "notice"))).toMatch(/after its correlation expired/);
    const status = await b.service.status(t.id);
    expect(status.unknown?.checked).toMatch(/expired/);
    expect(status.unknown?.resolves_on.join(" ")).toMatch(/codex_cancel gives it up/);
    await expect(b.service.runtime("restart")).rejects.toThrow(new RegExp(`UNKNOWN: ${t.id} turn/start`));
    await expect(b.service.send({ task_id: t.id, message: "again" })).rejects.toThrow(/never resent.*codex_status/);
    const c = await b.service.cancel({ task_id: t.id });
    expect(c.note).toMatch(/given up/);
    expect(c.task).toMatchObject({ state: "failed", unknown: null });
    expect((await b.service.runtime("restart")).unknown).toBe(0);
    expect(sent()).toEqual(["thread/start", "turn/start"]);
  });
});

describe("the way out of a refused restart", () => {
  it("restart refused while UNKNOWN; codex_status reads the thread and settles it; then restart works", async () => {
    const { b, sent } = await bridgeOn("read-settles");
    const t = await b.service.start({ project_id: "demo", prompt: "go" });
    expect(t.state).toBe("unknown");
    const w = await b.service.wait({ task_id: t.id, timeout_seconds: 0 }, { connectionKey: "test" });
    expect(w.tasks[0]!.delta_summary?.unresolved?.[0]).toMatch(/^turn\/start outcome UNKNOWN since .* settles on: Codex's late answer to request \d+; .*codex_status, which reads the thread/);
    expect(w.tasks[0]!.delta_summary?.next).toContain("codex_status; do not resend blindly");
    const refused = await b.service.runtime("restart").catch((e: Error) => e.message);
    expect(refused).toMatch(/restart refused: .*1 UNKNOWN outcome/);
    expect(refused).toMatch(/codex_status <task> reads the thread/);
    const s = await b.service.status(t.id);
    expect(s.task.state).toBe("completed");
    expect(s.unknown).toBeUndefined();
    expect(kinds(b, t.id)).toContain("unknown_resolved");
    const r = await b.service.runtime("restart");
    expect(r).toMatchObject({ unknown: 0, restarts: 1 });
    expect(sent()).toEqual(["thread/start", "turn/start"]);
  });

  it("codex_cancel on a turn the thread shows running interrupts exactly that turn, and its end settles the UNKNOWN", async () => {
    const { b, sent } = await bridgeOn("read-active");
    const t = await b.service.start({ project_id: "demo", prompt: "go" });
    const s = await b.service.status(t.id);
    expect(s.task.state).toBe("unknown");
    expect(s.unknown?.turn_id).toMatch(/^01a2/);
    expect(s.unknown?.checked).toMatch(/thread is active/);
    const c = await b.service.cancel({ task_id: t.id });
    expect(c.task).toMatchObject({ state: "interrupted", turn_id: s.unknown!.turn_id, unknown: null });
    expect(lastOf(b, t.id, "unknown_resolved")).toMatchObject({ by: "turn/completed plus idle", status: "interrupted" });
    expect(sent()).toEqual(["thread/start", "turn/start", "turn/interrupt"]);
  });
});
