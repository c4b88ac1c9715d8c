// Restart-friendly holder lock with real bridge processes: a successor waits for a predecessor that is still
// exiting, takes over from a SIGKILLed one, and refuses a live one with one clear stderr line and a clean stdout.
import { spawn } from "node:child_process";
import { linkSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BUN, MAIN, bridgeFixture, callTool, processGone, type BridgeSetup } from "../support/bridge-process.ts";
import { poll } from "../support/poll.ts";
import { PROJECT_ROOT } from "../support/real-codex.ts";

const bridges = bridgeFixture({ deadlineMs: 30_000, stopGraceMs: 10_000 });
const stoppedPids: number[] = [];

// Runs before the fixture stops the bridges: a test may leave one stopped (SIGSTOP); let it run again so it can exit.
afterEach(() => {
  for (const pid of stoppedPids.splice(0)) if (!processGone(pid)) process.kill(pid, "SIGCONT");
});

function lockHolderPid(s: BridgeSetup): number | null {
  try {
    return (JSON.parse(readFileSync(`${s.statePath}.lock`, "utf8")) as { pid: number }).pid;
  } catch {
    return null;
  }
}

describe("holder lock between real bridge processes", () => {
  it("a successor waits for a predecessor that is still exiting, then starts", async () => {
    const setup = await bridges.prepare();
    const { t: first } = await bridges.startWithAppServer(setup);
    // Frozen, the first bridge is alive and holds the lock: the successor can only start once it has gone.
    process.kill(first.pid, "SIGSTOP");
    stoppedPids.push(first.pid);
    const second = await bridges.start(setup);
    // The predecessor closes its database, then lets go of the lock, then exits; the successor answers initialize as
    // soon as it holds the lock (before loading the rest), so its answer may beat our sight of the exit by a moment,
    // never the lock's release.
    let firstLetGoWhenSecondAnswered: boolean | null = null;
    const init = second.initialize().then((r) => {
      firstLetGoWhenSecondAnswered = first.exit !== null || lockHolderPid(setup) !== first.pid;
      return r;
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect(second.exit, second.stderr).toBeNull();
    // Now the predecessor exits (as after the tunnel's SIGTERM).
    process.kill(first.pid, "SIGTERM");
    process.kill(first.pid, "SIGCONT");
    const res = await init;
    expect("result" in res, JSON.stringify(res)).toBe(true);
    expect(firstLetGoWhenSecondAnswered).toBe(true);
    const status = await callTool(second, "codex_status", {});
    expect(status.isError, status.text).toBe(false);
    expect(lockHolderPid(setup)).toBe(second.pid);
    expect(second.stderr).not.toMatch(/in use by/);
  }, 60_000);

  it("a SIGKILLed holder is taken over", async () => {
    const setup = await bridges.prepare();
    const { t: first, appServerPid } = await bridges.startWithAppServer(setup);
    process.kill(first.pid, "SIGKILL");
    await first.exited;
    // Its lock stays behind, naming a dead process.
    expect(lockHolderPid(setup)).toBe(first.pid);
    const second = await bridges.start(setup);
    await second.initialize();
    const status = await callTool(second, "codex_status", {});
    expect(status.isError, status.text).toBe(false);
    expect(lockHolderPid(setup)).toBe(second.pid);
    // The orphaned app-server sees its stdin close and goes away on its own.
    await poll(() => processGone(appServerPid), { timeoutMs: 5000, what: `the orphaned app-server ${appServerPid} to go away` });
  }, 60_000);

  it("a live holder gets one clear error naming its PID, a non-zero exit and nothing on stdout", async () => {
    const setup = await bridges.prepare();
    const { t: holder } = await bridges.startWithAppServer(setup);
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
    const setup = await bridges.prepare();
    const { t: holder } = await bridges.startWithAppServer(setup);
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
