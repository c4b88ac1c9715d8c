// Restart-friendly holder lock with real bridge processes: a successor waits for a predecessor that is still
// exiting, takes over from a SIGKILLed one, and refuses a live one with one clear stderr line and a clean stdout.
import { spawn } from "node:child_process";
import { linkSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BUN, MAIN, callTool, eventually, prepareBridge, processGone, type BridgeSetup, stopAll } from "../support/bridge-process.ts";
import { PROJECT_ROOT } from "../support/real-codex.ts";
import type { TunnelEmulator } from "../support/tunnel-emulator.ts";

let setup: BridgeSetup | null = null;
const emulators: TunnelEmulator[] = [];
const stoppedPids: number[] = [];

afterEach(async () => {
  // A test may leave a bridge stopped (SIGSTOP); let it run again so it can exit.
  for (const pid of stoppedPids.splice(0)) if (!processGone(pid)) process.kill(pid, "SIGCONT");
  await stopAll(emulators);
  await setup?.cleanup();
  setup = null;
});

async function startBridge(s: BridgeSetup): Promise<TunnelEmulator> {
  const t = await s.spawn({ deadlineMs: 30_000, stopGraceMs: 10_000 });
  emulators.push(t);
  return t;
}

function lockHolderPid(s: BridgeSetup): number | null {
  try {
    return (JSON.parse(readFileSync(`${s.statePath}.lock`, "utf8")) as { pid: number }).pid;
  } catch {
    return null;
  }
}

async function startedAndServing(s: BridgeSetup): Promise<{ t: TunnelEmulator; appServerPid: number }> {
  const t = await startBridge(s);
  await t.initialize();
  const health = await callTool(t, "codex_health", {});
  expect(health.isError, health.text).toBe(false);
  const status = await callTool(t, "codex_runtime", { action: "status" });
  return { t, appServerPid: status.structured.pid as number };
}

describe("holder lock between real bridge processes", () => {
  it("a successor waits for a predecessor that is still exiting, then starts", async () => {
    setup = await prepareBridge();
    const { t: first } = await startedAndServing(setup);
    // Frozen, the first bridge is alive and holds the lock: the successor can only start once it has gone.
    process.kill(first.pid, "SIGSTOP");
    stoppedPids.push(first.pid);
    const second = await startBridge(setup);
    let firstGoneWhenSecondAnswered: boolean | null = null;
    const init = second.initialize().then((r) => {
      firstGoneWhenSecondAnswered = first.exit !== null;
      return r;
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect(second.exit, second.stderr).toBeNull();
    // Now the predecessor exits (as after the tunnel's SIGTERM).
    process.kill(first.pid, "SIGTERM");
    process.kill(first.pid, "SIGCONT");
    const res = await init;
    expect("result" in res, JSON.stringify(res)).toBe(true);
    expect(firstGoneWhenSecondAnswered).toBe(true);
    const status = await callTool(second, "codex_status", {});
    expect(status.isError, status.text).toBe(false);
    expect(lockHolderPid(setup)).toBe(second.pid);
    expect(second.stderr).not.toMatch(/in use by/);
  }, 60_000);

  it("a SIGKILLed holder is taken over", async () => {
    setup = await prepareBridge();
    const { t: first, appServerPid } = await startedAndServing(setup);
    process.kill(first.pid, "SIGKILL");
    await first.exited;
    // Its lock stays behind, naming a dead process.
    expect(lockHolderPid(setup)).toBe(first.pid);
    const second = await startBridge(setup);
    await second.initialize();
    const status = await callTool(second, "codex_status", {});
    expect(status.isError, status.text).toBe(false);
    expect(lockHolderPid(setup)).toBe(second.pid);
    // The orphaned app-server sees its stdin close and goes away on its own.
    expect(await eventually(() => processGone(appServerPid), 5000), `orphaned app-server ${appServerPid} remains`).toBe(true);
  }, 60_000);

  it("a live holder gets one clear error naming its PID, a non-zero exit and nothing on stdout", async () => {
    setup = await prepareBridge();
    const { t: holder } = await startedAndServing(setup);
    const refused = await runRefusedBridge(setup, {});
    expect(refused.lines[0]).toContain(`PID ${holder.pid}`);
    expect(refused.lines[0]).toMatch(/Stop that process|CODEX_BRIDGE_STATE/);
    // The holder is untouched and keeps serving.
    expect(lockHolderPid(setup)).toBe(holder.pid);
    const status = await callTool(holder, "codex_status", {});
    expect(status.isError, status.text).toBe(false);
    expect(holder.fatal).toBeNull();
  }, 60_000);

  it("a second bridge given a symlink or a hard link to the live database is refused the same way", async () => {
    setup = await prepareBridge();
    const { t: holder } = await startedAndServing(setup);
    const dir = dirname(setup.statePath);
    symlinkSync(setup.statePath, join(dir, "symlinked.sqlite3"));
    mkdirSync(join(dir, "elsewhere"));
    linkSync(setup.statePath, join(dir, "elsewhere", "hard-linked.sqlite3"));
    for (const name of [join(dir, "symlinked.sqlite3"), join(dir, "elsewhere", "hard-linked.sqlite3")]) {
      const refused = await runRefusedBridge(setup, { CODEX_BRIDGE_STATE: name });
      expect(refused.lines[0]).toContain(`PID ${holder.pid}`);
    }
    expect(lockHolderPid(setup)).toBe(holder.pid);
    const status = await callTool(holder, "codex_status", {});
    expect(status.isError, status.text).toBe(false);
  }, 60_000);
});

/** Runs a bridge that must refuse to start: one stderr line, a non-zero exit by itself, nothing on stdout. */
async function runRefusedBridge(s: BridgeSetup, extraEnv: Record<string, string>): Promise<{ lines: string[] }> {
  const started = Date.now();
  // Spawned directly, stdin left open like the tunnel's: the refusal must end the process by itself.
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...s.env, ...extraEnv })) if (v !== undefined) env[k] = v;
  const child = spawn(BUN, [MAIN, "serve"], { cwd: PROJECT_ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
  console.info(`[bridge-lock] refused after ${Date.now() - started} ms: ${stderr.trim()}`);
  expect(exit.signal).toBeNull();
  expect(exit.code).not.toBe(0);
  expect(stdout).toBe("");
  const lines = stderr.trim().split("\n");
  expect(lines, stderr).toHaveLength(1);
  return { lines };
}
