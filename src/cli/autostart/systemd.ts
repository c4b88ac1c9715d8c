// The Linux definition: a systemd user unit that keeps tunnel-client running with the bridge as its stdio command.
// tunnel-client exits with status 0 when the bridge exits, so it restarts always, not only on failure.
import type { Captured } from "../run-command.ts";
import { joinFor, logDir, logFile, serviceName, tunnelArgv, type ServiceDefinition, type ServiceInputs, type ServiceState } from "./spec.ts";

/** One word of a unit file: specifiers (%) and, in command lines, variables ($) are doubled; quotes keep it one word. */
export function unitWord(s: string, inCommand = true): string {
  let out = s.replace(/%/g, "%%");
  if (inCommand) out = out.replace(/\$/g, "$$$$");
  if (/^[A-Za-z0-9_./:=@+,-]+$/.test(out)) return out;
  return `"${out.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

export function systemdUnitText(i: ServiceInputs): string {
  // Path settings take the rest of the line as it is: no quotes, only specifiers doubled.
  const path = (p: string) => p.replace(/%/g, "%%");
  const log = path(logFile(i));
  const env = { ...(i.env.PATH ? { PATH: i.env.PATH } : {}), ...i.bridgeEnv };
  return [
    `# Written by \`codex-bridge service install\` for tunnel-client profile ${i.tunnelProfile}; removed by \`codex-bridge service uninstall\`.`,
    "# No key in here: tunnel-client reads it from its profile or from the key file named below.",
    "[Unit]",
    `Description=codex-bridge through the Secure MCP Tunnel (tunnel-client profile ${i.tunnelProfile})`,
    "StartLimitIntervalSec=0",
    "",
    "[Service]",
    "Type=simple",
    `WorkingDirectory=${path(i.home)}`,
    `ExecStart=${tunnelArgv(i).map((w) => unitWord(w)).join(" ")}`,
    ...Object.entries(env).map(([k, v]) => `Environment=${unitWord(`${k}=${v}`, false)}`),
    "Restart=always",
    "RestartSec=5",
    "# Stopping reaches tunnel-client, the bridge and its Codex app-servers alike; whatever is left is killed after 20 s.",
    "KillMode=control-group",
    "TimeoutStopSec=20",
    "UMask=0077",
    `StandardOutput=append:${log}`,
    `StandardError=append:${log}`,
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}

function parseShow(results: Captured[]): ServiceState {
  const r = results[0];
  if (!r || r.code !== 0) return { installed: false, running: false, pid: null, detail: (r?.stderr || "systemctl --user did not answer").trim() };
  const props = Object.fromEntries(r.stdout.split("\n").filter((l) => l.includes("=")).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
  const pid = Number(props.MainPID ?? 0);
  return {
    installed: props.LoadState === "loaded",
    running: props.ActiveState === "active",
    pid: pid > 0 ? pid : null,
    detail: `${props.ActiveState ?? "?"} (${props.SubState ?? "?"}), ${props.UnitFileState ?? "?"}, restarted ${props.NRestarts ?? "?"} time(s)`,
  };
}

export function systemdDefinition(i: ServiceInputs): ServiceDefinition {
  const name = serviceName(i.tunnelProfile);
  const unit = `${name}.service`;
  const config = i.env.XDG_CONFIG_HOME?.startsWith("/") ? i.env.XDG_CONFIG_HOME : joinFor("linux", i.home, ".config");
  const unitDir = joinFor("linux", config, "systemd", "user");
  const ctl = (...args: string[]) => ({ command: "systemctl", args: ["--user", ...args] });
  return {
    manager: "systemd",
    name: unit,
    files: [{ path: joinFor("linux", unitDir, unit), content: systemdUnitText(i), mode: 0o644 }],
    dirs: [unitDir, logDir(i)],
    logFile: logFile(i),
    install: [ctl("daemon-reload"), ctl("enable", unit), ctl("restart", unit)],
    start: [ctl("start", unit)],
    stop: [ctl("stop", unit)],
    uninstall: [{ ...ctl("disable", "--now", unit), mayFail: true }],
    cleanup: [ctl("daemon-reload")],
    status: [ctl("show", unit, "--property=LoadState,ActiveState,SubState,MainPID,NRestarts,UnitFileState")],
    parseStatus: parseShow,
  };
}
