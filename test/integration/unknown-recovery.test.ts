// The REAL app-server with an acknowledgement deadline too tight to meet: turn/start becomes UNKNOWN, and Codex's own
// late answer (same JSON-RPC id, a well-formed turn) settles it; the turn runs to its end and nothing is sent twice.
import { afterEach, describe, expect, it } from "vitest";
import { poll } from "../support/poll.ts";
import { getPlatform } from "../../platform/index.ts";
import { assembleBridge, type Bridge } from "../../src/app/assemble.ts";
import { startHarness, type Harness } from "../../src/selftest/harness.ts";

let h: Harness | null = null;
let b: Bridge | null = null;
afterEach(async () => {
  await b?.close();
  await h?.close();
  b = null;
  h = null;
});

describe("UNKNOWN on the real Codex", () => {
  it("a turn/start whose ack times out is settled by Codex's late answer and completes", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    await h.bridge.close();
    h.bridge.close = async () => {};
    b = await assembleBridge(await getPlatform(), { env: { ...h.env, CODEX_BRIDGE_ACK_TIMEOUT_MS: "1" }, cwd: h.root, log: () => {} });
    const c = await b.runtimes.default.ensure();
    const methods: string[] = [];
    const request = c.request.bind(c);
    c.request = ((method: string, params?: unknown, opts?: { timeoutMs?: number }) => {
      methods.push(method);
      if (method !== "turn/start") return request(method, params, opts);
      // Codex is held still until the 1 ms deadline has passed, so its answer is late on any machine (on a busy one
      // the answer could otherwise be read in the same loop turn as the deadline).
      process.kill(c.pid!, "SIGSTOP");
      const sent = request(method, params, opts);
      void sent.catch(() => {}).finally(() => process.kill(c.pid!, "SIGCONT"));
      return sent;
    }) as typeof c.request;
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "done despite the lost ack" }] });

    const t = await b.domain.start({ project_id: "demo", prompt: "answer late" });
    expect(t.state).toBe("unknown");
    expect(t.unknown).toMatchObject({ method: "turn/start", thread_id: t.thread_id });

    const repo = b.repo;
    await poll(() => repo.task(t.id)!.state === "completed", { timeoutMs: 20_000, what: () => `task ${t.id} to complete (now ${repo.task(t.id)!.state})` });
    const done = repo.task(t.id)!;
    expect(done.unknown).toBeNull();
    expect(done.final_message).toBe("done despite the lost ack");
    const settled = repo.events(t.id, 0, 1000, ["unknown_resolved"]);
    expect(settled).toHaveLength(1);
    expect(settled[0]!.data).toMatchObject({ method: "turn/start", by: "Codex's late answer", outcome: "accepted", turn_id: done.turn_id });
    expect(methods.filter((m) => m === "turn/start")).toHaveLength(1);
    expect(h.provider!.requests).toHaveLength(1);
    expect(b.domain.activeCounts().unknown).toBe(0);
  });
});
