// The Windows definition: a Task Scheduler task, started at logon, that runs a small PowerShell loop keeping
// tunnel-client running (it exits with status 0 when the bridge exits, which Task Scheduler would not restart).
import type { Captured } from "../run-command.ts";
import { joinFor, logDir, logFile, serviceName, tunnelArgv, type ServiceDefinition, type ServiceInputs, type ServiceState } from "./spec.ts";

const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
/** A PowerShell single-quoted string: nothing inside is expanded; a quote is doubled. */
const psString = (s: string) => `'${s.replace(/'/g, "''")}'`;

function serviceDir(i: ServiceInputs): string {
  return joinFor("win32", i.env.LOCALAPPDATA || joinFor("win32", i.home, "AppData", "Local"), "codex-bridge", "service");
}

export function windowsScriptText(i: ServiceInputs): string {
  const [exe, ...args] = tunnelArgv(i);
  return [
    `# Written by codex-bridge service install for tunnel-client profile ${i.tunnelProfile}. No key in here.`,
    "# Keeps tunnel-client running: it ends (with status 0) whenever the bridge ends; start it again after a pause.",
    "$ErrorActionPreference = 'Continue'",
    ...Object.entries(i.bridgeEnv).map(([k, v]) => `$env:${k} = ${psString(v)}`),
    `$log = ${psString(logFile(i))}`,
    "while ($true) {",
    `  & ${psString(exe!)} ${args.map(psString).join(" ")} 2>&1 | ForEach-Object { "$_" } | Add-Content -LiteralPath $log -Encoding UTF8`,
    "  Start-Sleep -Seconds 5",
    "}",
    "",
  ].join("\r\n");
}

export function windowsTaskXml(i: ServiceInputs, scriptPath: string): string {
  const user = i.env.USERDOMAIN && i.env.USERNAME ? `${i.env.USERDOMAIN}\\${i.env.USERNAME}` : i.env.USERNAME;
  return [
    `<?xml version="1.0" encoding="UTF-16"?>`,
    `<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">`,
    `  <RegistrationInfo>`,
    `    <Description>codex-bridge through the Secure MCP Tunnel (tunnel-client profile ${xml(i.tunnelProfile)}). Written by codex-bridge service install.</Description>`,
    `  </RegistrationInfo>`,
    `  <Triggers>`,
    `    <LogonTrigger>`,
    `      <Enabled>true</Enabled>`,
    ...(user ? [`      <UserId>${xml(user)}</UserId>`] : []),
    `    </LogonTrigger>`,
    `  </Triggers>`,
    `  <Principals>`,
    `    <Principal id="Author">`,
    ...(user ? [`      <UserId>${xml(user)}</UserId>`] : []),
    `      <LogonType>InteractiveToken</LogonType>`,
    `      <RunLevel>LeastPrivilege</RunLevel>`,
    `    </Principal>`,
    `  </Principals>`,
    `  <Settings>`,
    `    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>`,
    `    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>`,
    `    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>`,
    `    <StartWhenAvailable>true</StartWhenAvailable>`,
    `    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>`,
    `    <RestartOnFailure>`,
    `      <Interval>PT1M</Interval>`,
    `      <Count>999</Count>`,
    `    </RestartOnFailure>`,
    `    <Enabled>true</Enabled>`,
    `  </Settings>`,
    `  <Actions Context="Author">`,
    `    <Exec>`,
    `      <Command>powershell.exe</Command>`,
    `      <Arguments>${xml(`-NoProfile -NonInteractive -ExecutionPolicy Bypass -WindowStyle Hidden -File "${scriptPath}"`)}</Arguments>`,
    `      <WorkingDirectory>${xml(i.home)}</WorkingDirectory>`,
    `    </Exec>`,
    `  </Actions>`,
    `</Task>`,
    ``,
  ].join("\r\n");
}

/** schtasks reads task XML reliably as UTF-16 with a byte order mark. */
function utf16(text: string): Uint8Array {
  const body = Buffer.from(text, "utf16le");
  return Buffer.concat([Buffer.from([0xff, 0xfe]), body]);
}

function parseQuery(results: Captured[]): ServiceState {
  const [query, tasks] = results;
  if (!query || query.code !== 0) return { installed: false, running: false, pid: null, detail: "no such scheduled task" };
  // CSV without header: "\name","next run","status"; the status word is in the system's language.
  const status = /"([^"]*)"\s*$/m.exec(query.stdout.trim())?.[1] ?? "?";
  const pid = Number(/^"tunnel-client\.exe","(\d+)"/im.exec(tasks?.stdout ?? "")?.[1] ?? 0);
  return { installed: true, running: /running/i.test(status) || pid > 0, pid: pid > 0 ? pid : null, detail: `task ${status}` };
}

export function schtasksDefinition(i: ServiceInputs): ServiceDefinition {
  const name = serviceName(i.tunnelProfile);
  const dir = serviceDir(i);
  const script = joinFor("win32", dir, `${name}.ps1`);
  const taskXml = joinFor("win32", dir, `${name}.xml`);
  const sch = (...args: string[]) => ({ command: "schtasks", args });
  return {
    manager: "Task Scheduler",
    name,
    files: [
      { path: script, content: windowsScriptText(i), mode: 0o600 },
      { path: taskXml, content: utf16(windowsTaskXml(i, script)), mode: 0o600 },
    ],
    dirs: [dir, logDir(i)],
    logFile: logFile(i),
    install: [{ ...sch("/End", "/TN", name), mayFail: true }, sch("/Create", "/TN", name, "/XML", taskXml, "/F"), sch("/Run", "/TN", name)],
    start: [sch("/Run", "/TN", name)],
    stop: [sch("/End", "/TN", name)],
    uninstall: [{ ...sch("/End", "/TN", name), mayFail: true }, sch("/Delete", "/TN", name, "/F")],
    cleanup: [],
    status: [sch("/Query", "/TN", name, "/FO", "CSV", "/NH"), { command: "tasklist", args: ["/FI", "IMAGENAME eq tunnel-client.exe", "/FO", "CSV", "/NH"], mayFail: true }],
    parseStatus: parseQuery,
  };
}
