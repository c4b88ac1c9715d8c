// What every background-service definition is built from (absolute paths, names, the tunnel-client command line)
// and the shape each service manager's definition takes: the files to write and the commands to run. Pure code.
import { posix, win32 } from "node:path";
import { shellWord } from "../self-command.ts";
import type { Captured, CommandLine } from "../run-command.ts";

export type ServiceOs = "linux" | "darwin" | "win32";

export interface ServiceInputs {
  os: ServiceOs;
  /** The user's home directory. */
  home: string;
  /** The installing user's environment: XDG and Windows folders, PATH, the Windows user name. */
  env: Record<string, string | undefined>;
  /** launchd addresses the user's agents by uid. */
  uid?: number;
  /** Absolute path of the tunnel-client executable. */
  tunnelClient: string;
  /** The tunnel-client profile to run (its YAML holds the tunnel id). */
  tunnelProfile: string;
  /** How to start this bridge: its executable, or a runtime and the script, all absolute. */
  bridgeArgv: string[];
  /** Non-secret settings the bridge needs without a login shell: CODEX_BIN, CODEX_BRIDGE_CONFIG, CODEX_BRIDGE_STATE. */
  bridgeEnv: Record<string, string>;
  /** A 0600 file holding only the control-plane key; tunnel-client reads it itself (file: reference). */
  keyFile?: string;
}

export interface ServiceFile {
  path: string;
  content: string | Uint8Array;
  mode: number;
}

/** One service-manager step; a step that may fail (stopping what is not running) does not stop the command. */
export interface ServiceStep extends CommandLine {
  mayFail?: boolean;
}

export interface ServiceState {
  /** The definition is known to the service manager. */
  installed: boolean;
  /** The service manager says it is running. */
  running: boolean;
  /** The tunnel-client process, when the service manager names it. */
  pid: number | null;
  detail: string;
}

export interface ServiceDefinition {
  manager: "systemd" | "launchd" | "Task Scheduler";
  /** The unit, label or task name. */
  name: string;
  files: ServiceFile[];
  /** Directories to create first (the log directory among them). */
  dirs: string[];
  logFile: string;
  /** After the files are written. */
  install: ServiceStep[];
  start: ServiceStep[];
  stop: ServiceStep[];
  /** Before the files are removed. */
  uninstall: ServiceStep[];
  /** After the files are removed. */
  cleanup: ServiceStep[];
  status: ServiceStep[];
  parseStatus(results: Captured[]): ServiceState;
}

export const DEFAULT_TUNNEL_PROFILE = "codex-bridge";
export const TUNNEL_PROFILE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** codex-bridge-tunnel for the profile `codex-bridge init` suggests, codex-bridge-tunnel-NAME for any other. */
export function serviceName(tunnelProfile: string): string {
  return tunnelProfile === DEFAULT_TUNNEL_PROFILE ? "codex-bridge-tunnel" : `codex-bridge-tunnel-${tunnelProfile}`;
}

/** The user's log directory on each system. */
export function logDir(i: Pick<ServiceInputs, "os" | "home" | "env">): string {
  if (i.os === "win32") return win32.join(i.env.LOCALAPPDATA || win32.join(i.home, "AppData", "Local"), "codex-bridge", "logs");
  if (i.os === "darwin") return posix.join(i.home, "Library", "Logs", "codex-bridge");
  const state = i.env.XDG_STATE_HOME?.startsWith("/") ? i.env.XDG_STATE_HOME : posix.join(i.home, ".local", "state");
  return posix.join(state, "codex-bridge");
}

export function logFile(i: Pick<ServiceInputs, "os" | "home" | "env" | "tunnelProfile">): string {
  return joinFor(i.os, logDir(i), `${serviceName(i.tunnelProfile)}.log`);
}

/**
 * The bridge as tunnel-client's stdio command. On Linux and macOS `env -u` keeps the tunnel's key out of the bridge
 * even when tunnel-client has it in its environment; Windows has no `env`, and there the key comes from a file.
 */
export function mcpCommand(i: Pick<ServiceInputs, "os" | "bridgeArgv">): string {
  const argv = i.os === "win32" ? i.bridgeArgv : ["/usr/bin/env", "-u", "CONTROL_PLANE_API_KEY", ...i.bridgeArgv];
  return argv.map(shellWord).join(" ");
}

/** The tunnel-client command line every definition runs: `run` with the profile, the bridge, and the key file. */
export function tunnelArgv(i: ServiceInputs): string[] {
  return [
    i.tunnelClient,
    "run",
    `--profile=${i.tunnelProfile}`,
    `--mcp.command=${mcpCommand(i)}`,
    ...(i.keyFile ? [`--control-plane.api-key=file:${i.keyFile}`] : []),
  ];
}

/** Paths joined the way the target system writes them (tests build all three on one machine). */
export function joinFor(os: ServiceOs, ...parts: string[]): string {
  return (os === "win32" ? win32 : posix).join(...parts);
}
