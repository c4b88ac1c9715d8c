// Overrides on every turn, on the REAL app-server: codex_send checks model/effort/service_tier against the live catalog
// as codex_start does, sends a valid one and reports what Codex says it now uses; an override while steering is refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { resultText, startHarness, type Harness } from "../../src/selftest/harness.ts";
import { sc, settled, startTask, type S } from "../support/task-waits.ts";
import { fakeBridge } from "../support/fake-bridge.ts";

let h: Harness;
let methods: string[];
beforeAll(async () => {
  h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
  const c = await h.bridge.runtimes.default.ensure();
  methods = [];
  const request = c.request.bind(c);
  c.request = ((method: string, params?: unknown, opts?: { timeoutMs?: number }) => {
    methods.push(method);
    return request(method, params, opts);
  }) as typeof c.request;
});
afterAll(async () => {
  await h?.close();
});

async function completedTask(): Promise<string> {
  h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "first" }] });
  const id = await startTask(h, "first turn");
  await settled(h, id);
  return id;
}

describe("overrides on codex_send", () => {
  it("a valid override reaches Codex on the new turn and codex_status reports what Codex says it uses", async () => {
    const id = await completedTask();
    const first = sc(await h.call("codex_status", { task_id: id }));
    // No override, no report: what the first turn uses is not proven.
    expect(first.context.turn.reported).toEqual({ model: "unknown", effort: "unknown", service_tier: "unknown" });

    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "second" }] });
    const before = h.provider!.requests.length;
    const sent = await h.call("codex_send", { task_id: id, message: "now faster", model: "gpt-5.5", effort: "low", service_tier: "priority" });
    expect(sent.isError, resultText(sent)).toBeFalsy();
    expect(sc(sent).action).toBe("new_turn");
    await settled(h, id);
    const body = h.provider!.requests[before]!.body as S;
    expect(body.model).toBe("gpt-5.5");
    expect(body.reasoning.effort).toBe("low");
    expect(body.service_tier).toBe("priority");

    const status = await h.call("codex_status", { task_id: id });
    const turn = sc(status).context.turn;
    expect(turn.turn_id).toBe(sc(status).turn_id);
    expect(turn.asked).toEqual({ model: "gpt-5.5", effort: "low", service_tier: "priority" });
    expect(turn.reported).toEqual({ model: "gpt-5.5", effort: "low", service_tier: "priority" });
    expect(turn.reported_by).toMatch(/^thread\/settings\/updated/);
    expect(resultText(status)).toMatch(/turn \S+: model=gpt-5\.5, effort=low, service_tier=priority/);

    // The override sticks: the next plain send does not switch back.
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "third" }] });
    const next = h.provider!.requests.length;
    await h.call("codex_send", { task_id: id, message: "and more" });
    await settled(h, id);
    expect((h.provider!.requests[next]!.body as S).model).toBe("gpt-5.5");
  });

  it("an unknown model, effort or tier is refused before any turn request, naming the field", async () => {
    const id = await completedTask();
    const requests = h.provider!.requests.length;
    methods.length = 0;
    for (const [args, field] of [
      [{ model: "no-such-model" }, /model "no-such-model" is not in this Codex's model\/list/],
      [{ model: "gpt-5.5", effort: "ultra" }, /effort "ultra" is not offered by gpt-5\.5/],
      [{ service_tier: "fast" }, /service tier "fast" is not offered/],
    ] as const) {
      const r = await h.call("codex_send", { task_id: id, message: "try", ...args });
      expect(r.isError).toBe(true);
      expect(resultText(r)).toMatch(field);
    }
    expect(methods.filter((m) => m !== "model/list")).toEqual([]);
    expect(h.provider!.requests.length).toBe(requests);
    expect(sc(await h.call("codex_status", { task_id: id })).state).toBe("completed");
  });

  it("an override on a send that would steer is refused with a sentence; the plain steer still works", async () => {
    const before = h.provider!.requests.length;
    h.provider!.enqueue({ kind: "hang", partialText: "working" }, { kind: "output", items: [{ type: "message", text: "steered" }] });
    const id = await startTask(h, "long work");
    await h.provider!.waitForRequests(before + 1, 20_000);
    methods.length = 0;
    const r = await h.call("codex_send", { task_id: id, message: "use the fast tier", service_tier: "priority", model: "gpt-5.5" });
    expect(r.isError).toBe(true);
    expect(resultText(r)).toMatch(/^model, service_tier cannot change while turn \S+ is running: this send would steer it, and a steer takes no model, effort or service tier\./);
    expect(methods).toEqual([]);
    const steer = await h.call("codex_send", { task_id: id, message: "STEER: keep going" });
    expect(sc(steer).action).toBe("steered");
    expect((await settled(h, id)).at(-1)!.state).toBe("completed");
  });
});

describe("a settings report after the acknowledgement (fake app-server)", () => {
  it("is still taken for the turn it belongs to", async () => {
    const f = await fakeBridge("settings-after-ack");
    try {
      const t = await f.b.service.start({ project_id: "demo", prompt: "go", model: "gpt-5.5", effort: "low" });
      expect((await f.b.service.status(t.id)).context?.turn).toMatchObject({ reported: { model: "unknown" } });
      await f.step(); // the report, after the acknowledgement
      const s = await f.b.service.status(t.id);
      expect(s.context?.turn).toMatchObject({
        turn_id: t.turn_id,
        asked: { model: "gpt-5.5", effort: "low" },
        reported: { model: "gpt-5.5", effort: "low" },
        reported_by: "thread/settings/updated (after the acknowledgement, while the turn ran)",
      });
    } finally {
      await f.close();
    }
  });
});
