// The real bridge process behind the tunnel emulator: it must exit promptly on stdin EOF, SIGTERM and a double
// SIGINT, take its codex app-server (and that process group) with it, and leave the state database unlocked.
// Exit times are measured and printed, not asserted (the machine is shared).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bridgeFixture, callTool, liveGroupMembers, processGone, type BridgeSetup } from "../support/bridge-process.ts";
import { poll } from "../support/poll.ts";
import type { TunnelEmulator } from "../support/tunnel-emulator.ts";

// SIGTERM only 10 s after stdin closes: a bridge that needs it to exit shows up as sentSigterm.
const bridges = bridgeFixture({ deadlineMs: 30_000, stopGraceMs: 10_000 });

async function expectCleanAfterExit(s: BridgeSetup, t: TunnelEmulator, appServerPid: number, label: string, exitMs: number) {
  expect(t.exit, `${label}: bridge did not exit`).not.toBeNull();
  // The child reaper runs asynchronously; give the OS a moment to drop the entries, then insist.
  await poll(() => processGone(t.pid), { timeoutMs: 2000, what: `${label}: bridge process ${t.pid} to be gone` });
  await poll(() => processGone(appServerPid), { timeoutMs: 2000, what: `${label}: app-server ${appServerPid} to be gone` });
  expect(liveGroupMembers(appServerPid), `${label}: processes left in the app-server's group`).toEqual([]);
  expect(existsSync(`${s.statePath}.lock`), `${label}: holder lock left behind`).toBe(false);
  // Nothing but JSON-RPC ever reached stdout.
  expect(t.fatal?.reason ?? "child exited").toMatch(/child exited|child closed stdout/);
  console.info(`[bridge-exit] ${label}: exited in ${exitMs} ms (code ${t.exit?.code}, signal ${t.exit?.signal})`);

  // A new bridge on the same state file starts and answers.
  const next = await bridges.start(s);
  await next.initialize();
  const h = await callTool(next, "codex_status", {});
  expect(h.isError, h.text).toBe(false);
  expect(next.stderr).not.toMatch(/in use by/);
}

async function timeExit(t: TunnelEmulator, trigger: () => void): Promise<number> {
  const started = Date.now();
  trigger();
  await Promise.race([t.exited, new Promise((r) => setTimeout(r, 10_000))]);
  return Date.now() - started;
}

describe("bridge process exit behind the tunnel", () => {
  it("exits on stdin EOF without needing SIGTERM", async () => {
    const setup = await bridges.prepare();
    const { t, appServerPid } = await bridges.startWithAppServer(setup);
    // Closing stdin is the tunnel's first step; SIGTERM only comes 10 s later here, so a clean stop needs none.
    const report = await t.stop();
    expect(report.sentSigterm).toBe(false);
    expect(report.exited).toBe(true);
    await expectCleanAfterExit(setup, t, appServerPid, "stdin EOF", report.exitMs ?? -1);
  }, 60_000);

  it("exits on SIGTERM while stdin stays open", async () => {
    const setup = await bridges.prepare();
    const { t, appServerPid } = await bridges.startWithAppServer(setup);
    const ms = await timeExit(t, () => process.kill(t.pid, "SIGTERM"));
    await expectCleanAfterExit(setup, t, appServerPid, "SIGTERM", ms);
  }, 60_000);

  it("keeps running on one SIGINT and exits on the second", async () => {
    const setup = await bridges.prepare();
    const { t, appServerPid } = await bridges.startWithAppServer(setup);
    process.kill(t.pid, "SIGINT");
    await poll(() => /SIGINT/.test(t.stderr), { timeoutMs: 5000, what: () => `the bridge to note the first SIGINT on stderr (stderr: ${t.stderr})` });
    const still = await callTool(t, "codex_runtime", { action: "status" });
    expect(still.structured.pid).toBe(appServerPid);
    expect(t.exit).toBeNull();
    const ms = await timeExit(t, () => process.kill(t.pid, "SIGINT"));
    await expectCleanAfterExit(setup, t, appServerPid, "second SIGINT", ms);
  }, 60_000);

  it("takes a command Codex is still running down with it", async () => {
    const setup = await bridges.prepare({ approvalPolicy: "never" });
    const marker = `${300 + Math.floor(Math.random() * 1000)}.${Math.floor(Math.random() * 1000)}`;
    setup.provider.enqueue({ kind: "output", items: [{ type: "exec", cmd: `sleep ${marker}`, yieldTimeMs: 250 }] }, { kind: "hang" });
    const { t, appServerPid } = await bridges.startWithAppServer(setup);
    const start = await callTool(t, "codex_start", { project_id: "demo", prompt: "run a long command" });
    expect(start.isError, start.text).toBe(false);
    const sleeping = () => commandPids(`sleep ${marker}`);
    await poll(() => sleeping().length > 0, { timeoutMs: 30_000, what: `Codex to start the command "sleep ${marker}"` });
    // A long-poll is in flight when the stop comes: it must not hold the exit up.
    const inFlight = t.request("tools/call", { name: "codex_wait", arguments: { task_id: start.structured.task_id, timeout_seconds: 60 } });
    inFlight.catch(() => {});
    await poll(() => t.written.at(-1)?.method === "tools/call" && (t.written.at(-1)?.params as { name?: string })?.name === "codex_wait", {
      timeoutMs: 5000,
      what: "the codex_wait call to be written to the bridge",
    });
    const ms = await timeExit(t, () => process.kill(t.pid, "SIGTERM"));
    await expect(inFlight).rejects.toThrow(/child exited|closed stdout/);
    await expectCleanAfterExit(setup, t, appServerPid, "SIGTERM with a running command and a wait in flight", ms);
    await poll(() => sleeping().length === 0, { timeoutMs: 3000, what: () => `the command to end with the bridge (still running: pids ${sleeping().join(", ")})` });
  }, 90_000);
});

/** Live processes whose command line is exactly `cmd` (space-separated). */
function commandPids(cmd: string): number[] {
  const out: number[] = [];
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const argv = readFileSync(`/proc/${e}/cmdline`, "utf8").split("\0").filter(Boolean);
      if (argv.join(" ") === cmd) {
        if (!processGone(Number(e))) out.push(Number(e));
      }
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
