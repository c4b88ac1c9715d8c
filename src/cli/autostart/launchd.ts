// The macOS definition: a per-user launchd agent that keeps tunnel-client running (KeepAlive) with the bridge as its
// stdio command, started at login and now, its output appended to ~/Library/Logs/codex-bridge.
import type { Captured } from "../run-command.ts";
import { joinFor, logDir, logFile, serviceName, tunnelArgv, type ServiceDefinition, type ServiceInputs, type ServiceState } from "./spec.ts";

const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const str = (s: string) => `<string>${xml(s)}</string>`;

export function launchdLabel(tunnelProfile: string): string {
  return `local.${serviceName(tunnelProfile)}`;
}

export function launchdPlistText(i: ServiceInputs): string {
  const env = { ...(i.env.PATH ? { PATH: i.env.PATH } : {}), ...i.bridgeEnv };
  const log = logFile(i);
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">`,
    `<!-- Written by codex-bridge service install for tunnel-client profile ${xml(i.tunnelProfile)}. No key in here. -->`,
    `<plist version="1.0">`,
    `<dict>`,
    `  <key>Label</key>${str(launchdLabel(i.tunnelProfile))}`,
    `  <key>ProgramArguments</key>`,
    `  <array>`,
    ...tunnelArgv(i).map((a) => `    ${str(a)}`),
    `  </array>`,
    `  <key>EnvironmentVariables</key>`,
    `  <dict>`,
    ...Object.entries(env).map(([k, v]) => `    <key>${xml(k)}</key>${str(v)}`),
    `  </dict>`,
    `  <key>WorkingDirectory</key>${str(i.home)}`,
    `  <key>RunAtLoad</key><true/>`,
    `  <!-- tunnel-client exits with status 0 when the bridge exits: restart it whatever the status. -->`,
    `  <key>KeepAlive</key><true/>`,
    `  <key>ThrottleInterval</key><integer>5</integer>`,
    `  <key>Umask</key><integer>63</integer>`,
    `  <key>StandardOutPath</key>${str(log)}`,
    `  <key>StandardErrorPath</key>${str(log)}`,
    `</dict>`,
    `</plist>`,
    ``,
  ].join("\n");
}

function parsePrint(results: Captured[]): ServiceState {
  const r = results[0];
  // launchctl print fails (113) for a label that is not loaded.
  if (!r || r.code !== 0) return { installed: false, running: false, pid: null, detail: "not loaded in launchd" };
  const state = /^\s*state = (.+)$/m.exec(r.stdout)?.[1]?.trim() ?? "?";
  const pid = Number(/^\s*pid = (\d+)$/m.exec(r.stdout)?.[1] ?? 0);
  const runs = /^\s*runs = (\d+)$/m.exec(r.stdout)?.[1];
  return { installed: true, running: state === "running", pid: pid > 0 ? pid : null, detail: `${state}${runs ? `, started ${runs} time(s)` : ""}` };
}

export function launchdDefinition(i: ServiceInputs): ServiceDefinition {
  const label = launchdLabel(i.tunnelProfile);
  const agents = joinFor("darwin", i.home, "Library", "LaunchAgents");
  const plist = joinFor("darwin", agents, `${label}.plist`);
  if (i.uid === undefined) throw new Error("launchd needs the user id (gui/<uid>) to address the agent");
  const domain = `gui/${i.uid}`;
  const ctl = (...args: string[]) => ({ command: "launchctl", args });
  return {
    manager: "launchd",
    name: label,
    files: [{ path: plist, content: launchdPlistText(i), mode: 0o644 }],
    dirs: [agents, logDir(i)],
    logFile: logFile(i),
    // A loaded agent keeps its old definition: unload it first (which fails harmlessly when it was not loaded).
    install: [{ ...ctl("bootout", `${domain}/${label}`), mayFail: true }, ctl("bootstrap", domain, plist)],
    start: [{ ...ctl("bootstrap", domain, plist), mayFail: true }, ctl("kickstart", `${domain}/${label}`)],
    // With KeepAlive launchd restarts a killed agent: stopping means unloading it (until start or the next login).
    stop: [ctl("bootout", `${domain}/${label}`)],
    uninstall: [{ ...ctl("bootout", `${domain}/${label}`), mayFail: true }],
    cleanup: [],
    status: [ctl("print", `${domain}/${label}`)],
    parseStatus: parsePrint,
  };
}
