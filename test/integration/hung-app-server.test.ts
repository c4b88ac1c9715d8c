// The real app-server stopped with SIGSTOP mid-turn (alive, answering nothing): the bridge notices within 15 s, says
// so in codex_health, waits and status, no call waits much longer than the 10 s deadline, and a forced restart kills
// and replaces it, ending its task connection_lost and settling its UNKNOWN outcome as lost.
import { afterEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { resultText, startHarness, type Harness } from "../../src/selftest/harness.ts";
import { sc, settled, type S } from "../support/task-waits.ts";

let h: Harness | null = null;
let stopped: number | null = null;
afterEach(async () => {
  if (stopped) {
    try {
      process.kill(stopped, "SIGCONT");
    } catch {
      // gone already
    }
  }
  stopped = null;
  await h?.close();
  h = null;
});

async function timed<T>(fn: () => Promise<T>): Promise<{ v: T; ms: number }> {
  const t0 = Date.now();
  const v = await fn();
  return { v, ms: Date.now() - t0 };
}

describe("a hung app-server", () => {
  it("is reported within 15 s, holds no call long, and is replaced by a forced restart", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    const harness = h;
    harness.provider!.enqueue({ kind: "hang", partialText: "" });
    const id = sc(await harness.call("codex_start", { project_id: "demo", prompt: "think forever" })).task_id as string;
    // Stopped while the model "thinks": the turn is under way and Codex has written its thread.
    await harness.provider!.waitForRequests(1, 30_000);
    const before = sc(await harness.call("codex_runtime", { action: "status" }));
    const pid = before.pid as number;
    process.kill(pid, "SIGSTOP");
    stopped = pid;
    const stoppedAt = Date.now();
    // A cancel sent to the stopped app-server waits no longer than the deadline, then its interrupt is UNKNOWN.
    const cancel = await timed(() => harness.call("codex_cancel", { task_id: id }));
    expect(cancel.ms).toBeLessThan(15_000 + 5_000);
    const unknown = sc(await harness.call("codex_status", { task_id: id }));
    expect(unknown.unknown?.method).toBe("turn/interrupt");

    // A wait on the running task returns as soon as the bridge knows, saying what is wrong and what to do.
    let seen: S | null = null;
    while (!seen && Date.now() - stoppedAt < 30_000) {
      const w = sc(await harness.call("codex_wait", { task_id: id, timeout_seconds: 30 }));
      if (w.alerts?.some((a: S) => a.code === "app_server_unresponsive")) seen = w;
    }
    const noticedMs = Date.now() - stoppedAt;
    expect(seen, "codex_wait never said the app-server does not answer").not.toBeNull();
    expect(noticedMs).toBeLessThan(15_000 + 5_000); // 15 s goal; slack for a loaded machine, the figure is printed
    const alert = seen!.alerts.find((a: S) => a.code === "app_server_unresponsive");
    expect(alert.message).toMatch(new RegExp(`app-server \\(pid ${pid}\\) has not answered for \\d+ s`));
    expect(alert.message).toMatch(/force=true/);

    const health = await timed(() => harness.call("codex_health", {}));
    const hc = sc(health.v);
    expect(hc.healthy).toBe(false);
    expect((hc.checks as S[]).find((c) => c.name === "app-server")!.detail).toMatch(/has not answered for \d+ s/);
    const status = await timed(() => harness.call("codex_status", { task_id: id }));
    expect(resultText(status.v)).toMatch(/bridge app_server_unresponsive: .*has not answered for \d+ s/);
    const models = await timed(() => harness.call("codex_models", {}));
    expect(models.v.isError).toBe(true);
    expect(resultText(models.v)).toMatch(/not sent.*has not answered/);
    for (const c of [health, status, models]) expect(c.ms).toBeLessThan(10_000);

    // Refused without force (a task is active), and the refusal names the way out.
    const refused = await harness.call("codex_runtime", { action: "restart" });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toMatch(/force=true/);
    const forced = sc(await harness.call("codex_runtime", { action: "restart", force: true }));
    stopped = null;
    expect(forced.pid).not.toBe(pid);
    expect(forced.state).toBe("ready");
    expect(forced.active).toBe(0);
    const lost = sc(await harness.call("codex_status", { task_id: id }));
    expect(lost.state).toBe("connection_lost");
    expect(lost.failure.sentence).toMatch(/killed the Codex app-server/);
    expect(lost.alerts).toBeUndefined();
    // Its UNKNOWN interrupt died with it: settled as lost, so nothing blocks the next turn.
    expect(lost.unknown).toBeUndefined();
    expect(sc(await harness.call("codex_runtime", { action: "status" })).unknown).toBe(0);

    // The thread carries on: a recovery turn on the new app-server.
    harness.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "recovered" }] });
    const sent = await harness.call("codex_send", { task_id: id, message: "carry on" });
    expect(sent.isError, resultText(sent)).toBeFalsy();
    const t1 = Date.now();
    const answers = await settled(harness, id, { rounds: 10 });
    console.log(`recovery turn ${Date.now() - t1} ms`);
    expect(answers.at(-1)!.state).toBe("completed");
    expect(sc(await harness.call("codex_result", { task_id: id })).final_message).toBe("recovered");
    console.log(`hung app-server: cancel answered after ${cancel.ms} ms; reported after ${noticedMs} ms; health ${health.ms} ms, status ${status.ms} ms, models ${models.ms} ms while it hung`);
  }, 180_000);
});
