// Test support: the REAL bridge as a child process (`serve` from source, or CODEX_BRIDGE_BIN) run offline, its setup
// (temp Git project, isolated CODEX_HOME on a loopback mock model, config, state), a fixture that starts it behind
// the tunnel emulator and stops it after each test, and checks that its processes are gone.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect } from "vitest";
import type { MockProvider } from "../../src/selftest/mock-provider/index.ts";
import { prepareRealCodex, PROJECT_ROOT, type RealCodex } from "./real-codex.ts";
import { makeTempGitProject, type TempGitProject } from "./temp-project.ts";
import { TunnelEmulator, type JsonRpcResponse, type TunnelEmulatorOptions } from "./tunnel-emulator.ts";

export const BUN = join(PROJECT_ROOT, "node_modules", ".bin", "bun");
export const MAIN = join(PROJECT_ROOT, "src", "cli", "main.ts");

/** How to run `codex-bridge <args>`: the compiled executable named by CODEX_BRIDGE_BIN, else the source under Bun. */
export function bridgeCommand(args: string[]): { command: string; args: string[] } {
  const bin = process.env.CODEX_BRIDGE_BIN;
  return bin ? { command: bin, args } : { command: BUN, args: [MAIN, ...args] };
}

export interface BridgeSetupOptions {
  approvalPolicy?: "untrusted" | "on-request" | "never";
  sandboxType?: "read-only" | "workspace-write" | "danger-full-access";
  files?: Record<string, string>;
  /** Appended to the bridge's config.toml. */
  extraConfig?: string;
}

export interface BridgeSetup {
  projectDir: string;
  configPath: string;
  statePath: string;
  provider: MockProvider;
  /** The complete environment for the bridge child (undefined entries remove inherited variables). */
  env: Record<string, string | undefined>;
  /** Starts the bridge behind a tunnel emulator. */
  spawn(opts?: TunnelEmulatorOptions): Promise<TunnelEmulator>;
  cleanup(): Promise<void>;
}

/**
 * Everything a bridge needs offline: a temp Git project, an isolated CODEX_HOME on a loopback mock model, a config
 * naming the project "demo", and a state file. The environment is exactly the isolated one: nothing of the test
 * runner's leaks into the bridge.
 */
export async function prepareBridge(opts: BridgeSetupOptions = {}): Promise<BridgeSetup> {
  let codex: RealCodex | null = null;
  let project: TempGitProject | null = null;
  try {
    codex = await prepareRealCodex();
    project = makeTempGitProject({ files: opts.files });
    const configPath = join(codex.codexHome, "bridge-config.toml");
    const statePath = join(codex.codexHome, "bridge-state", "state.sqlite3");
    writeFileSync(
      configPath,
      [
        `[projects.demo]`,
        `cwd = ${JSON.stringify(project.dir)}`,
        ``,
        `[profiles.default]`,
        `approval_policy = ${JSON.stringify(opts.approvalPolicy ?? "never")}`,
        `sandbox_type = ${JSON.stringify(opts.sandboxType ?? "workspace-write")}`,
        opts.extraConfig ?? "",
        ``,
      ].join("\n"),
    );
    // Remove every inherited variable, then add back only the isolated set (the emulator merges onto process.env).
    const env: Record<string, string | undefined> = {};
    for (const k of Object.keys(process.env)) env[k] = undefined;
    Object.assign(env, codex.env, {
      CODEX_BRIDGE_CONFIG: configPath,
      CODEX_BRIDGE_STATE: statePath,
      CODEX_BIN: codex.codexBin,
    });
    const c = codex;
    const p = project;
    return {
      projectDir: p.dir,
      configPath,
      statePath,
      provider: c.provider,
      env,
      spawn: (o = {}) => {
        const run = bridgeCommand(["serve"]);
        return TunnelEmulator.spawn(run.command, run.args, { cwd: PROJECT_ROOT, deadlineMs: 60_000, ...o, env: { ...env, ...o.env } });
      },
      async cleanup() {
        await c.cleanup();
        p.cleanup();
      },
    };
  } catch (err) {
    await codex?.cleanup();
    project?.cleanup();
    throw err;
  }
}

export interface ToolAnswer {
  isError: boolean;
  text: string;
  structured: Record<string, any>;
}

/** The tools/call result of a JSON-RPC response; throws on a JSON-RPC error (a protocol failure, not a tool error). */
export function toolAnswer(res: JsonRpcResponse): ToolAnswer {
  if (!("result" in res)) throw new Error(`JSON-RPC error: ${JSON.stringify(res.error)}`);
  const r = res.result as { isError?: boolean; content?: { type: string; text?: string }[]; structuredContent?: Record<string, any> };
  return {
    isError: r.isError === true,
    text: (r.content ?? [])
      .filter((c) => c.type === "text")
      .map((c) => c.text ?? "")
      .join("\n"),
    structured: r.structuredContent ?? {},
  };
}

/** One tools/call through the emulator. */
export async function callTool(t: TunnelEmulator, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  return toolAnswer(await t.request("tools/call", { name, arguments: args }));
}

/** True when no such process exists any more, or only its zombie entry (it can hold nothing). */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "Z" || state === "X";
  } catch {
    return true;
  }
}

/** Pids of every live (non-zombie) process in process group `pgid` (Linux /proc). */
export function liveGroupMembers(pgid: number): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // fields after the comm: state, ppid, pgrp, …
      if (Number(rest[2]) === pgid && rest[0] !== "Z" && rest[0] !== "X") out.push(Number(e));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Stops every emulator in the list (emptying it), the tunnel's way; one that still will not exit is killed. */
export async function stopAll(emulators: TunnelEmulator[]): Promise<void> {
  for (const t of emulators.splice(0)) {
    const report = await t.stop();
    if (!report.exited && t.pid > 0) process.kill(t.pid, "SIGKILL");
  }
}

export interface BridgeFixture {
  /** Prepares the current test's bridge setup (removed after the test). */
  prepare(opts?: BridgeSetupOptions): Promise<BridgeSetup>;
  /** Starts a bridge of `setup` behind a tunnel emulator (the fixture's spawn options, then `opts`); stopped after the test. */
  start(setup: BridgeSetup, opts?: TunnelEmulatorOptions): Promise<TunnelEmulator>;
  /** Starts a bridge, initializes it, makes it start its app-server (codex_health) and returns both pids. */
  startWithAppServer(setup: BridgeSetup): Promise<{ t: TunnelEmulator; appServerPid: number }>;
}

/**
 * For a test file that runs real bridges behind tunnel emulators: call once at module level. After each test it
 * stops every bridge started (the tunnel's way, see stopAll), then removes the setup. After-hooks run in reverse
 * order, so afterEach hooks the file registers after this call run before it (e.g. to resume a stopped process).
 */
export function bridgeFixture(spawnDefaults: TunnelEmulatorOptions = {}): BridgeFixture {
  let setup: BridgeSetup | null = null;
  const emulators: TunnelEmulator[] = [];
  afterEach(async () => {
    await stopAll(emulators);
    await setup?.cleanup();
    setup = null;
  });
  const fixture: BridgeFixture = {
    async prepare(opts) {
      setup = await prepareBridge(opts);
      return setup;
    },
    async start(s, opts = {}) {
      const t = await s.spawn({ ...spawnDefaults, ...opts });
      emulators.push(t);
      return t;
    },
    async startWithAppServer(s) {
      const t = await fixture.start(s);
      await t.initialize();
      const health = await callTool(t, "codex_health", {});
      expect(health.isError, health.text).toBe(false);
      const status = await callTool(t, "codex_runtime", { action: "status" });
      expect(status.structured.state, status.text).toBe("ready");
      const appServerPid = status.structured.pid as number;
      expect(appServerPid).toBeGreaterThan(0);
      expect(processGone(appServerPid)).toBe(false);
      return { t, appServerPid };
    },
  };
  return fixture;
}
