// The compiled executable's doctor in a bare environment, and the one clear error a user gets for each way the
// setup can be wrong: malformed config, missing Codex, unwritable state, a second bridge on the same database.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import packageJson from "../../package.json" with { type: "json" };
import { bundledCodexBin } from "../support/real-codex.ts";
import { BINARY, onLinuxX64, pathWithoutNodeModules, requireBinary, runBinary, scratchDir } from "./binary.ts";

let dir = "";
let codexBin = "";
let firstBridge: ChildProcess | null = null;

/** Only what a user's shell always has (PATH, and HOME pointed at a scratch dir so nothing touches the real one), plus `extra`. */
function bareEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = join(dir, "home");
  mkdirSync(home, { recursive: true });
  return { PATH: pathWithoutNodeModules(), HOME: home, CODEX_BIN: codexBin, ...extra };
}

const nonEmptyLines = (s: string) => s.split("\n").filter((l) => l.trim() !== "");

describe.skipIf(!onLinuxX64)("doctor and startup failures of the compiled binary", () => {
  beforeAll(() => {
    requireBinary();
    codexBin = bundledCodexBin();
    dir = scratchDir("doctor");
  });

  afterEach(() => {
    firstBridge?.kill("SIGKILL");
    firstBridge = null;
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("doctor --json with only PATH, HOME and CODEX_BIN reports the version and an initialized app-server", async () => {
    const r = await runBinary(["doctor", "--json"], { env: bareEnv(), cwd: dir });
    const report = JSON.parse(r.stdout);
    expect(report.bridge.version).toBe(packageJson.version);
    expect(report.bridge.target).toBe("bun-linux-x64");
    expect(report.codex.version).toBe("0.171.0");
    expect(report.codex.app_server).toBe("initialized");
    expect(report.sqlite.ok).toBe(true);
    // Nobody is logged in to Codex in this scratch HOME; that is the only thing allowed to be unhealthy here.
    const failing = report.checks.filter((c: { ok: boolean }) => !c.ok).map((c: { name: string }) => c.name);
    expect(failing.filter((n: string) => n !== "login")).toEqual([]);
    expect(r.code).toBe(report.healthy ? 0 : 1);
  });

  it("a malformed config makes doctor exit non-zero and name the key", async () => {
    const project = join(dir, "project");
    mkdirSync(project, { recursive: true });
    const config = join(dir, "bad.toml");
    writeFileSync(config, `[projects.demo]\ncwd = ${JSON.stringify(project)}\n\n[profiles.default]\nwait_timeout_seconds = "x"\n`);
    const env = bareEnv({ CODEX_BRIDGE_CONFIG: config, CODEX_BRIDGE_STATE: join(dir, "bad-config.sqlite3") });
    const text = await runBinary(["doctor"], { env, cwd: dir });
    expect(text.code).toBe(1);
    expect(nonEmptyLines(text.stderr)).toHaveLength(1);
    expect(text.stderr).toContain(config);
    expect(text.stderr).toContain("profiles.default.wait_timeout_seconds");
    const json = await runBinary(["doctor", "--json"], { env, cwd: dir });
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report.healthy).toBe(false);
    expect(report.error).toContain("profiles.default.wait_timeout_seconds");
  });

  it("a missing Codex gives one clear error naming CODEX_BIN", async () => {
    const env = bareEnv({ CODEX_BIN: "/nonexistent/codex", CODEX_BRIDGE_STATE: join(dir, "no-codex.sqlite3") });
    const r = await runBinary(["doctor"], { env, cwd: dir });
    expect(r.code).toBe(1);
    const errors = nonEmptyLines(r.stdout).filter((l) => l.startsWith("ERR"));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("CODEX_BIN");
    expect(errors[0]).toContain("/nonexistent/codex");
  });

  it("an unwritable state location gives one clear error naming it and CODEX_BRIDGE_STATE", async () => {
    // Root may write anywhere a mode allows nothing, so use a place no mode opens: below a regular file.
    const blocker = join(dir, "not-a-dir");
    writeFileSync(blocker, "");
    const state = join(blocker, "state", "state.sqlite3");
    const r = await runBinary(["doctor"], { env: bareEnv({ CODEX_BRIDGE_STATE: state }), cwd: dir });
    expect(r.code).toBe(1);
    const lines = nonEmptyLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(join(blocker, "state"));
    expect(lines[0]).toContain("CODEX_BRIDGE_STATE");
  });

  it("a second bridge on the same database gives one clear error naming the holder's PID", async () => {
    const state = join(dir, "shared.sqlite3");
    const env = bareEnv({ CODEX_BRIDGE_STATE: state });
    const first = spawn(BINARY, ["serve"], { cwd: dir, env, stdio: ["pipe", "pipe", "pipe"] });
    firstBridge = first;
    await new Promise<void>((resolve, reject) => {
      let err = "";
      first.stderr!.setEncoding("utf8").on("data", (d: string) => {
        err += d;
        if (err.includes("ready")) resolve();
      });
      first.on("exit", (code) => reject(new Error(`the first bridge exited (${code}) before it was ready:\n${err}`)));
    });
    const second = await runBinary(["serve"], { env, cwd: dir });
    expect(second.code).not.toBe(0);
    const lines = nonEmptyLines(second.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`PID ${first.pid}`);
    expect(lines[0]).toContain(state);
    expect(second.stdout).toBe("");
  });
});
