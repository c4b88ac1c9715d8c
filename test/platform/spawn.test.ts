// The platform's child-process layer against real `sh` children: env and cwd, text streams, stdin writes, exit
// codes and signals, and killTree reaching grandchildren (POSIX only: the children are `sh` scripts).
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { SpawnError } from "../../platform/spawn-node.ts";
import type { ChildExit, ChildHandle, Platform } from "../../platform/types.ts";
import { poll } from "../support/poll.ts";

const posix = process.platform !== "win32";
let platform: Platform;
const children: ChildHandle[] = [];

beforeAll(async () => {
  platform = await getPlatform();
});
afterEach(async () => {
  for (const c of children.splice(0)) {
    c.killTree("SIGKILL");
    await c.exited;
  }
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", ...extra };
}

function sh(script: string, extra: Record<string, string> = {}): ChildHandle {
  const child = platform.spawn("sh", ["-c", script], { env: env(extra) });
  children.push(child);
  return child;
}

function collect(child: ChildHandle, stream: "stdout" | "stderr" = "stdout"): () => string {
  let text = "";
  (stream === "stdout" ? child.onStdout : child.onStderr).call(child, (chunk) => {
    expect(typeof chunk).toBe("string");
    text += chunk;
  });
  return () => text;
}

/** How long to wait for what the OS settles asynchronously (a process disappearing): a generous bound. */
const OS_SETTLES = { timeoutMs: 15_000, interval: 50 };

describe.skipIf(!posix)("spawn", () => {
  it("passes env and cwd, and streams stdout and stderr as text", async () => {
    const child = platform.spawn("sh", ["-c", 'printf "%s|" "$GREETING"; pwd; printf "é€😀" >&2'], { env: env({ GREETING: "hällo" }), cwd: "/" });
    children.push(child);
    const out = collect(child);
    const err = collect(child, "stderr");
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(out()).toBe("hällo|/\n");
    expect(err()).toBe("é€😀");
  });

  it("writes to stdin and resolves each write", async () => {
    const child = sh("cat");
    const out = collect(child);
    await child.write("line one\n");
    await child.write("zwei ✓\n");
    child.endStdin();
    await child.exited;
    expect(out()).toBe("line one\nzwei ✓\n");
  });

  it("reports the exit code", async () => {
    expect(await sh("exit 3").exited).toEqual({ code: 3, signal: null });
  });

  it("reports the signal that ended the child", async () => {
    const child = sh("echo ready; exec sleep 60");
    const out = collect(child);
    await poll(() => out().includes("ready"), { ...OS_SETTLES, what: "child ready" });
    child.killTree("SIGKILL");
    expect(await child.exited).toEqual({ code: null, signal: "SIGKILL" });
  });

  it("calls onExit exactly once, also for late subscribers", async () => {
    const child = sh("exit 0");
    const early: ChildExit[] = [];
    child.onExit((e) => early.push(e));
    await child.exited;
    const late: ChildExit[] = [];
    child.onExit((e) => late.push(e));
    await new Promise((r) => setTimeout(r, 50));
    expect(early).toEqual([{ code: 0, signal: null }]);
    expect(late).toEqual([{ code: 0, signal: null }]);
  });

  it("killTree also ends the child's grandchildren", async () => {
    const child = sh("sleep 60 & echo $!; wait");
    const out = collect(child);
    await poll(() => out().includes("\n"), { ...OS_SETTLES, what: "grandchild pid printed" });
    const grandchild = Number(out().trim());
    expect(platform.processAlive(grandchild)).toBe(true);
    child.killTree("SIGTERM");
    expect((await child.exited).signal).toBe("SIGTERM");
    await poll(() => !platform.processAlive(grandchild), { ...OS_SETTLES, what: "grandchild gone" });
  });

  it("killTree reaches grandchildren even after the child itself has exited", async () => {
    // The grandchild keeps stdout open, so 'exited' must not wait for the pipes to close.
    const child = sh("sleep 60 & echo $!");
    const out = collect(child);
    expect(await child.exited).toEqual({ code: 0, signal: null });
    const grandchild = Number(out().trim());
    expect(platform.processAlive(grandchild)).toBe(true);
    child.killTree("SIGKILL");
    await poll(() => !platform.processAlive(grandchild), { ...OS_SETTLES, what: "orphaned grandchild gone" });
  });

  it("rejects a write to a child that has exited, without crashing", async () => {
    const child = sh("exit 0");
    await child.exited;
    await expect(child.write("anyone there?\n")).rejects.toThrow(/cannot write/);
  });

  it("rejects writes once the child closed its stdin (EPIPE) and the process survives", async () => {
    const child = sh("exec 0<&-; echo closed; exec sleep 60");
    const out = collect(child);
    await poll(() => out().includes("closed"), { ...OS_SETTLES, what: "child closed stdin" });
    const big = "x".repeat(1 << 20);
    let rejected: unknown;
    for (let i = 0; i < 20 && !rejected; i++) {
      await child.write(big).catch((e: unknown) => {
        rejected = e;
      });
    }
    expect(rejected).toBeInstanceOf(Error);
    await expect(child.write("more")).rejects.toThrow(/cannot write/);
  });

  it("throws SpawnError for a command that does not exist", () => {
    expect(() => platform.spawn("codex-bridge-no-such-command", [], { env: env() })).toThrow(SpawnError);
  });
});
