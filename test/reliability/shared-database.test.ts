// Reliability: two bridges on one database, whatever spelling names it (the same path, a symlink to the file or to a
// directory above it, a hard link, a relative path, doubled slashes and dot segments): the second is always refused,
// at once, with one stderr line naming the holder and nothing on stdout, and the holder keeps serving.
import { spawn } from "node:child_process";
import { linkSync, mkdirSync, symlinkSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { bridgeCommand, callTool, prepareBridge, type BridgeSetup } from "../support/bridge-process.ts";
import { PROJECT_ROOT } from "../support/real-codex.ts";
import { holdForPhase, recordFigures, Responsiveness } from "../support/reliability.ts";

const held = holdForPhase();

interface Attempt {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Starts a second bridge on `statePath` from `cwd`, stdin left open as the tunnel leaves it; it must end by itself. */
function second(s: BridgeSetup, statePath: string, cwd: string): Promise<Attempt> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...s.env, CODEX_BRIDGE_STATE: statePath })) if (v !== undefined) env[k] = v;
  const run = bridgeCommand(["serve"]);
  const started = Date.now();
  const child = spawn(run.command, run.args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

describe("reliability: one database, one bridge", () => {
  it("refuses a second bridge on the live database by every spelling", async () => {
    const s = (held.setup = await prepareBridge());
    const holder = (held.tunnel = await s.spawn({ stopGraceMs: 10_000 }));
    const status = await callTool(holder, "codex_status", {});
    expect(status.isError, status.text).toBe(false);

    const dir = dirname(s.statePath);
    const name = basename(s.statePath);
    mkdirSync(join(dir, "links"));
    symlinkSync(s.statePath, join(dir, "links", "symlinked.sqlite3"));
    linkSync(s.statePath, join(dir, "links", "hard-linked.sqlite3"));
    symlinkSync(dir, join(dir, "links", "dir-alias"));
    const spellings: { label: string; path: string; cwd: string }[] = [
      { label: "the same path", path: s.statePath, cwd: PROJECT_ROOT },
      { label: "a symlink to the file", path: join(dir, "links", "symlinked.sqlite3"), cwd: PROJECT_ROOT },
      { label: "a hard link to the file", path: join(dir, "links", "hard-linked.sqlite3"), cwd: PROJECT_ROOT },
      { label: "a symlinked directory above it", path: join(dir, "links", "dir-alias", name), cwd: PROJECT_ROOT },
      { label: "a relative path", path: relative(s.projectDir, s.statePath), cwd: s.projectDir },
      { label: "doubled slashes and dot segments", path: `${dir}//./links/../${name}`, cwd: PROJECT_ROOT },
      { label: "a relative path through the hard link", path: join("links", "hard-linked.sqlite3"), cwd: dir },
    ];
    const outcomes: string[] = [];
    let refused = 0;
    let maxMs = 0;
    // All at once: each waits out the grace a restarting predecessor gets, then must give up.
    const attempts = await Promise.all(spellings.map((sp) => second(s, sp.path, sp.cwd)));
    for (const [i, sp] of spellings.entries()) {
      const a = attempts[i]!;
      const ok = a.signal === null && a.code !== 0 && a.stdout === "" && a.stderr.trim().split("\n").length === 1 && a.stderr.includes(`PID ${holder.pid}`);
      if (ok) refused++;
      maxMs = Math.max(maxMs, a.ms);
      outcomes.push(`${sp.label}: ${ok ? "refused" : `NOT refused (exit ${a.code}, ${a.signal}): ${a.stderr.trim().slice(0, 200)}`}`);
    }
    const after = await callTool(holder, "codex_status", {});
    const live = new Responsiveness();
    const serving = !after.isError && (await live.ping(holder));
    await live.stop(holder);
    recordFigures("shared database", { "spellings tried": spellings.length, refused, "max refusal ms": maxMs, "holder kept serving": serving ? "yes" : "no", hangs: live.hangs });
    console.info(`[shared-database] ${outcomes.join("; ")}`);
    expect(outcomes.filter((o) => !o.endsWith(": refused"))).toEqual([]);
    expect(serving).toBe(true);
    expect(live.hangs).toBe(0);
  });
});
