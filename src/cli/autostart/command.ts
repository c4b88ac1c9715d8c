// `codex-bridge service install|status|logs|start|stop|uninstall`: keeps tunnel-client running with this bridge as its
// stdio command, as a per-user service. The definitions are pure; this runs them, with the service manager injectable.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Platform } from "../../../platform/types.ts";
import { ConfigError, loadConfig } from "../../config/load.ts";
import { captureWith, type CaptureRunner } from "../run-command.ts";
import { selfArgv } from "../self-command.ts";
import { bridgeEnvFor, checkKeyFile, checkStableBridge, findTunnelClient, ServiceSetupError, tunnelProfileNotes } from "./inputs.ts";
import { launchdDefinition } from "./launchd.ts";
import { schtasksDefinition } from "./schtasks.ts";
import { DEFAULT_TUNNEL_PROFILE, TUNNEL_PROFILE_PATTERN, tunnelArgv, type ServiceDefinition, type ServiceInputs, type ServiceOs, type ServiceStep } from "./spec.ts";
import { systemdDefinition } from "./systemd.ts";

const ACTIONS = ["install", "status", "logs", "start", "stop", "uninstall"] as const;
type Action = (typeof ACTIONS)[number];
const USAGE = "codex-bridge service install|status|logs|start|stop|uninstall [--tunnel-profile NAME] [--tunnel-client FILE] [--key-file FILE] [--lines COUNT]";

export interface ServiceDeps {
  os: NodeJS.Platform;
  env: Record<string, string | undefined>;
  home: string;
  uid?: number;
  run: CaptureRunner;
  /** The bridge's own command line (the test's is a stand-in). */
  bridgeArgv: string[];
  out: (line: string) => void;
  err: (line: string) => void;
  processAlive: (pid: number) => boolean;
}

export function definitionFor(i: ServiceInputs): ServiceDefinition {
  return i.os === "linux" ? systemdDefinition(i) : i.os === "darwin" ? launchdDefinition(i) : schtasksDefinition(i);
}

interface Parsed {
  action: Action;
  tunnelProfile: string;
  tunnelClient?: string;
  keyFile?: string;
  lines: number;
}

function parse(args: string[]): Parsed | string {
  const values = new Map<string, string>();
  let action: Action | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (["--tunnel-profile", "--tunnel-client", "--key-file", "--lines"].includes(a)) {
      const v = args[++i];
      if (v === undefined || v === "" || v.startsWith("--")) return `${a} needs a value`;
      values.set(a, v);
    } else if (!a.startsWith("-") && !action && (ACTIONS as readonly string[]).includes(a)) action = a as Action;
    else return a.startsWith("-") ? `unknown option ${a}` : `unknown action ${a}`;
  }
  if (!action) return `say what to do: ${ACTIONS.join(", ")}`;
  const tunnelProfile = values.get("--tunnel-profile") ?? DEFAULT_TUNNEL_PROFILE;
  if (!TUNNEL_PROFILE_PATTERN.test(tunnelProfile)) return `--tunnel-profile ${JSON.stringify(tunnelProfile)} is not a profile name (letters, digits, '.', '_', '-')`;
  const lines = Number(values.get("--lines") ?? "50");
  if (!Number.isInteger(lines) || lines < 1 || lines > 10_000) return "--lines must be a whole number from 1 to 10000";
  return { action, tunnelProfile, tunnelClient: values.get("--tunnel-client"), keyFile: values.get("--key-file"), lines };
}

function serviceOs(os: NodeJS.Platform): ServiceOs {
  if (os === "linux" || os === "darwin" || os === "win32") return os;
  throw new ServiceSetupError(`no service manager support for ${os}: run tunnel-client under your own supervisor`);
}

export async function runService(platform: Platform, args: string[], partial: Partial<ServiceDeps> = {}): Promise<number> {
  const d: ServiceDeps = {
    os: process.platform,
    env: process.env,
    home: platform.dirs().home,
    uid: process.getuid?.(),
    run: captureWith(platform),
    bridgeArgv: selfArgv(),
    out: (l) => void process.stdout.write(l + "\n"),
    err: (l) => void process.stderr.write(l + "\n"),
    processAlive: (pid) => platform.processAlive(pid),
    ...partial,
  };
  const p = parse(args);
  if (typeof p === "string") {
    d.err(`codex-bridge service: ${p}; usage: ${USAGE}`);
    return 2;
  }
  try {
    const os = serviceOs(d.os);
    const install = p.action === "install";
    if (install) checkStableBridge(d.bridgeArgv);
    const inputs: ServiceInputs = {
      os,
      home: d.home,
      env: d.env,
      uid: d.uid,
      tunnelProfile: p.tunnelProfile,
      tunnelClient: install ? findTunnelClient(p.tunnelClient, d.env, os) : p.tunnelClient ?? "tunnel-client",
      bridgeArgv: d.bridgeArgv,
      bridgeEnv: install ? bridgeEnvFor(platform, d.env, configuredCodexBin(platform, d.env)) : {},
      keyFile: install && p.keyFile ? checkKeyFile(p.keyFile, os) : undefined,
    };
    const def = definitionFor(inputs);
    switch (p.action) {
      case "install":
        return await installService(def, inputs, d);
      case "uninstall":
        if (!(await runSteps(def.uninstall, d))) return 1;
        for (const f of def.files) rmSync(f.path, { force: true });
        if (!(await runSteps(def.cleanup, d))) return 1;
        d.out(`uninstalled ${def.name} (${def.manager}); its log stays at ${def.logFile}`);
        return 0;
      case "start":
      case "stop":
        if (!existsSync(def.files[0]!.path)) return notInstalled(def, d);
        if (!(await runSteps(p.action === "start" ? def.start : def.stop, d))) return 1;
        d.out(`${p.action === "start" ? "started" : "stopped"} ${def.name}`);
        return 0;
      case "status":
        return await showStatus(def, d);
      case "logs":
        return showLogs(def, p.lines, d);
    }
  } catch (err) {
    d.err(`codex-bridge service: ${err instanceof ServiceSetupError || err instanceof ConfigError ? err.message : String(err)}`);
    return 1;
  }
}

function configuredCodexBin(platform: Platform, env: Record<string, string | undefined>): string | undefined {
  return loadConfig({ env, configDir: platform.dirs().config }).config.codex.bin;
}

async function runSteps(steps: ServiceStep[], d: ServiceDeps): Promise<boolean> {
  for (const step of steps) {
    const r = await d.run(step);
    if (r.code === 0 || step.mayFail) continue;
    d.err(`codex-bridge service: ${[step.command, ...step.args].join(" ")} failed (exit ${r.code ?? "none"}): ${(r.stderr || r.stdout).trim()}`);
    return false;
  }
  return true;
}

async function installService(def: ServiceDefinition, inputs: ServiceInputs, d: ServiceDeps): Promise<number> {
  for (const note of tunnelProfileNotes(d.env, d.home, inputs.tunnelProfile, inputs.keyFile)) d.err(`warning: ${note}`);
  if (!inputs.bridgeEnv.CODEX_BIN) d.err("warning: Codex was not found now; the service's bridge will not find it either (set CODEX_BIN and install again)");
  for (const dir of def.dirs) mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const f of def.files) {
    writeFileSync(f.path, f.content, { mode: f.mode });
    chmodSync(f.path, f.mode);
    d.out(`wrote ${f.path}`);
  }
  if (!(await runSteps(def.install, d))) return 1;
  d.out(`installed ${def.name} (${def.manager}): ${tunnelArgv(inputs).join(" ")}`);
  d.out(`log: ${def.logFile} (codex-bridge service logs${inputs.tunnelProfile === DEFAULT_TUNNEL_PROFILE ? "" : ` --tunnel-profile ${inputs.tunnelProfile}`})`);
  if (inputs.os === "linux") d.out("to keep it running while you are logged out: loginctl enable-linger $USER");
  return 0;
}

function notInstalled(def: ServiceDefinition, d: ServiceDeps): number {
  d.err(`codex-bridge service: ${def.name} is not installed (no ${def.files[0]!.path}); run codex-bridge service install`);
  return 1;
}

async function showStatus(def: ServiceDefinition, d: ServiceDeps): Promise<number> {
  const results = [];
  for (const step of def.status) results.push(await d.run(step));
  const s = def.parseStatus(results);
  const alive = s.pid !== null && d.processAlive(s.pid);
  d.out(`service ${def.name} (${def.manager}): ${s.installed ? "installed" : "not installed"}, ${s.running ? "running" : "not running"} (${s.detail})`);
  d.out(`tunnel-client: ${alive ? `running, PID ${s.pid}` : "not running"}`);
  d.out(`log: ${def.logFile}`);
  return s.installed && s.running && alive ? 0 : 3;
}

function showLogs(def: ServiceDefinition, lines: number, d: ServiceDeps): number {
  if (!existsSync(def.logFile)) {
    d.err(`codex-bridge service: no log yet at ${def.logFile}`);
    return 1;
  }
  const text = readFileSync(def.logFile, "utf8").replace(/^\uFEFF/, "");
  d.out(text.split(/\r?\n/).filter((l, i, all) => l !== "" || i < all.length - 1).slice(-lines).join("\n"));
  return 0;
}
