// codex-bridge service: the three definitions (systemd, launchd, Task Scheduler) generated into a temporary directory
// and checked, the unit verified by systemd-analyze where it exists, and the command run with the service manager
// injected, so nothing is ever installed on this machine.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Window } from "happy-dom";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import type { Captured, CommandLine } from "../../src/cli/run-command.ts";
import { definitionFor, runService } from "../../src/cli/autostart/command.ts";
import type { ServiceInputs } from "../../src/cli/autostart/spec.ts";
import { bundledCodexBin } from "../support/real-codex.ts";

const KEY = "sk-control-plane-secret-0123456789";
// Outside the temporary directory: a service must never point at a temporary copy of the bridge.
const BRIDGE = ["/opt/codex bridge/bin/codex-bridge"];

let dir: string;
let home: string;
let keyFile: string;
let tunnelClient: string;
beforeEach(() => {
  // A space and a percent sign in every path: the quoting of each format is part of what is checked.
  dir = mkdtempSync(join(tmpdir(), "cb service 100% "));
  home = join(dir, "home");
  mkdirSync(join(dir, "bin"), { recursive: true });
  mkdirSync(home);
  tunnelClient = join(dir, "bin", "tunnel-client");
  writeFileSync(tunnelClient, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  keyFile = join(dir, "control-plane.key");
  writeFileSync(keyFile, KEY + "\n", { mode: 0o600 });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function inputs(os: ServiceInputs["os"], extra: Partial<ServiceInputs> = {}): ServiceInputs {
  return {
    os,
    home: os === "win32" ? "C:\\Users\\Jane Doe" : home,
    env: os === "win32" ? { LOCALAPPDATA: "C:\\Users\\Jane Doe\\AppData\\Local", USERDOMAIN: "PC", USERNAME: "jane" } : { PATH: "/usr/bin:/bin" },
    uid: 501,
    tunnelClient: os === "win32" ? "C:\\Program Files\\tunnel-client\\tunnel-client.exe" : tunnelClient,
    tunnelProfile: "codex-bridge",
    bridgeArgv: os === "win32" ? ["C:\\Program Files\\codex-bridge\\codex-bridge.exe"] : BRIDGE,
    bridgeEnv: { CODEX_BIN: os === "win32" ? "C:\\tools\\codex.exe" : "/usr/local/bin/codex", CODEX_BRIDGE_CONFIG: os === "win32" ? "C:\\cfg\\config.toml" : "/etc/cb/config.toml" },
    keyFile: os === "win32" ? "C:\\Users\\Jane Doe\\key.txt" : keyFile,
    ...extra,
  };
}

/** Writes a definition's files below `dir/out/<os>` (their own paths may be another system's) and returns their text. */
function generate(i: ServiceInputs): { def: ReturnType<typeof definitionFor>; texts: string[]; written: string[] } {
  const def = definitionFor(i);
  const out = join(dir, "out", i.os);
  mkdirSync(out, { recursive: true });
  const written = def.files.map((f) => {
    const p = join(out, f.path.split(/[\\/]/).pop()!);
    writeFileSync(p, f.content, { mode: f.mode });
    return p;
  });
  const texts = def.files.map((f) => (typeof f.content === "string" ? f.content : decodeUtf16(f.content)));
  return { def, texts, written };
}

function decodeUtf16(bytes: Uint8Array): string {
  expect([...bytes.slice(0, 2)]).toEqual([0xff, 0xfe]);
  return Buffer.from(bytes.slice(2)).toString("utf16le");
}

function parseXml(text: string): Document {
  const doc = new new Window().DOMParser().parseFromString(text, "application/xml") as unknown as Document;
  expect(doc.getElementsByTagName("parsererror")).toHaveLength(0);
  return doc;
}

/** systemd's own quoting, undone: what each word of ExecStart reaches tunnel-client as. */
function unitWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)) words.push((m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : m[2]!).replace(/%%/g, "%").replace(/\$\$/g, "$"));
  return words;
}

describe("service definitions", () => {
  it("systemd: a user unit that always restarts tunnel-client running this bridge, logs to the state dir, and holds no key", () => {
    const i = inputs("linux");
    const { def, texts, written } = generate(i);
    const unit = texts[0]!;
    expect(def.files[0]!.path).toBe(join(home, ".config", "systemd", "user", "codex-bridge-tunnel.service"));
    const exec = unit.split("\n").find((l) => l.startsWith("ExecStart="))!.slice("ExecStart=".length);
    expect(unitWords(exec)).toEqual([
      tunnelClient,
      "run",
      "--profile=codex-bridge",
      `--mcp.command=/usr/bin/env -u CONTROL_PLANE_API_KEY '/opt/codex bridge/bin/codex-bridge'`,
      `--control-plane.api-key=file:${keyFile}`,
    ]);
    expect(unit).toMatch(/^Restart=always$/m);
    expect(unit).toMatch(/^WantedBy=default\.target$/m);
    const log = join(home, ".local", "state", "codex-bridge", "codex-bridge-tunnel.log");
    expect(def.logFile).toBe(log);
    expect(unit).toContain(`StandardOutput=append:${log.replace(/%/g, "%%")}`);
    expect(unit).toContain("Environment=CODEX_BRIDGE_CONFIG=/etc/cb/config.toml");
    expect(unit).not.toContain(KEY);

    const analyze = spawnSync("systemd-analyze", ["verify", written[0]!], { encoding: "utf8" });
    if (analyze.error) {
      console.log(`systemd-analyze verify skipped: ${analyze.error.message}`);
      return;
    }
    // System mode: a user manager needs a login session this test may not have; the unit's syntax is the same.
    expect(analyze.status, analyze.stderr).toBe(0);
    expect(analyze.stderr + analyze.stdout).not.toMatch(/codex-bridge-tunnel\.service:\d+|ignoring|Invalid|not executable/);
  });

  it("launchd: an agent kept alive, started at load, logging to ~/Library/Logs, with the same arguments and no key", () => {
    const { def, texts } = generate(inputs("darwin"));
    expect(def.name).toBe("local.codex-bridge-tunnel");
    expect(def.files[0]!.path).toBe(join(home, "Library", "LaunchAgents", "local.codex-bridge-tunnel.plist"));
    const doc = parseXml(texts[0]!);
    const keys = [...doc.getElementsByTagName("key")];
    const after = (name: string) => keys.find((k) => k.textContent === name)!.nextElementSibling!;
    expect([...after("ProgramArguments").getElementsByTagName("string")].map((s) => s.textContent)).toEqual([
      tunnelClient,
      "run",
      "--profile=codex-bridge",
      `--mcp.command=/usr/bin/env -u CONTROL_PLANE_API_KEY '/opt/codex bridge/bin/codex-bridge'`,
      `--control-plane.api-key=file:${keyFile}`,
    ]);
    expect(after("KeepAlive").tagName.toLowerCase()).toBe("true");
    expect(after("RunAtLoad").tagName.toLowerCase()).toBe("true");
    expect(after("StandardOutPath").textContent).toBe(join(home, "Library", "Logs", "codex-bridge", "codex-bridge-tunnel.log"));
    expect(texts[0]).not.toContain(KEY);
    expect(def.install.map((s) => [s.command, ...s.args].join(" "))).toEqual([
      "launchctl bootout gui/501/local.codex-bridge-tunnel",
      `launchctl bootstrap gui/501 ${def.files[0]!.path}`,
    ]);
  });

  it("Task Scheduler: a logon task (UTF-16 XML) running a PowerShell loop that restarts tunnel-client and appends to the log", () => {
    const { def, texts } = generate(inputs("win32", { tunnelProfile: "work" }));
    expect(def.name).toBe("codex-bridge-tunnel-work");
    const [script, taskXml] = texts as [string, string];
    const doc = parseXml(taskXml.replace(/^<\?xml[^>]*\?>/, ""));
    expect(doc.getElementsByTagName("LogonTrigger")).toHaveLength(1);
    expect(doc.getElementsByTagName("UserId")[0]!.textContent).toBe("PC\\jane");
    expect(doc.getElementsByTagName("Command")[0]!.textContent).toBe("powershell.exe");
    const scriptPath = "C:\\Users\\Jane Doe\\AppData\\Local\\codex-bridge\\service\\codex-bridge-tunnel-work.ps1";
    expect(def.files[0]!.path).toBe(scriptPath);
    expect(doc.getElementsByTagName("Arguments")[0]!.textContent).toBe(`-NoProfile -NonInteractive -ExecutionPolicy Bypass -WindowStyle Hidden -File "${scriptPath}"`);
    expect(doc.getElementsByTagName("ExecutionTimeLimit")[0]!.textContent).toBe("PT0S");
    expect(script).toContain("while ($true) {");
    expect(script).toContain(
      `& 'C:\\Program Files\\tunnel-client\\tunnel-client.exe' 'run' '--profile=work' '--mcp.command=''C:\\Program Files\\codex-bridge\\codex-bridge.exe''' '--control-plane.api-key=file:C:\\Users\\Jane Doe\\key.txt'`,
    );
    expect(script).toContain(`$env:CODEX_BIN = 'C:\\tools\\codex.exe'`);
    expect(script).toContain(`Add-Content -LiteralPath $log`);
    expect(script).toContain(`$log = 'C:\\Users\\Jane Doe\\AppData\\Local\\codex-bridge\\logs\\codex-bridge-tunnel-work.log'`);
    expect(script + taskXml).not.toContain(KEY);
    expect(def.install.map((s) => s.args[0])).toEqual(["/End", "/Create", "/Run"]);
  });
});

/** A service manager that records what it is asked and answers like systemctl on a running unit. */
function fakeManager(answers: Record<string, Partial<Captured>> = {}): { calls: string[]; run: (l: CommandLine) => Promise<Captured> } {
  const calls: string[] = [];
  return {
    calls,
    run: async (l) => {
      const line = [l.command, ...l.args].join(" ");
      calls.push(line);
      const answer = Object.entries(answers).find(([prefix]) => line.startsWith(prefix))?.[1];
      return { code: 0, stdout: "", stderr: "", ...answer };
    },
  };
}

describe("codex-bridge service (service manager injected)", () => {
  async function service(args: string[], manager = fakeManager(), os: NodeJS.Platform = "linux") {
    const out: string[] = [];
    const err: string[] = [];
    const config = join(dir, "config.toml");
    writeFileSync(config, "");
    const code = await runService(await getPlatform(), args, {
      os,
      home,
      uid: 501,
      env: { PATH: join(dir, "bin"), CODEX_BIN: bundledCodexBin(), CODEX_BRIDGE_CONFIG: config, CONTROL_PLANE_API_KEY: KEY },
      run: manager.run,
      bridgeArgv: BRIDGE,
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      processAlive: (pid) => pid === 4242,
    });
    return { code, out: out.join("\n"), err: err.join("\n"), calls: manager.calls };
  }

  it("install writes the unit, enables and restarts it; status, stop, start, logs and uninstall do what they say", async () => {
    const installed = await service(["install", "--key-file", keyFile]);
    expect(installed.code, installed.err).toBe(0);
    const unitPath = join(home, ".config", "systemd", "user", "codex-bridge-tunnel.service");
    expect(installed.calls).toEqual(["systemctl --user daemon-reload", "systemctl --user enable codex-bridge-tunnel.service", "systemctl --user restart codex-bridge-tunnel.service"]);
    const unit = readFileSync(unitPath, "utf8");
    expect(unit).toContain(tunnelClient.replace(/%/g, "%%"));
    expect(unit).toContain(`CODEX_BIN=${bundledCodexBin()}`);
    // The key in the installer's environment goes nowhere.
    expect(unit).not.toContain(KEY);
    expect(installed.out).toContain(`wrote ${unitPath}`);
    expect(statSync(join(home, ".local", "state", "codex-bridge")).isDirectory()).toBe(true);

    const running = fakeManager({ "systemctl --user show": { stdout: "LoadState=loaded\nActiveState=active\nSubState=running\nMainPID=4242\nNRestarts=2\nUnitFileState=enabled\n" } });
    const status = await service(["status"], running);
    expect(status.code).toBe(0);
    expect(status.out).toContain("service codex-bridge-tunnel.service (systemd): installed, running (active (running), enabled, restarted 2 time(s))");
    expect(status.out).toContain("tunnel-client: running, PID 4242");
    const stopped = await service(["status"], fakeManager({ "systemctl --user show": { stdout: "LoadState=loaded\nActiveState=inactive\nSubState=dead\nMainPID=0\n" } }));
    expect(stopped.code).toBe(3);
    expect(stopped.out).toContain("tunnel-client: not running");

    expect((await service(["stop"])).calls).toEqual(["systemctl --user stop codex-bridge-tunnel.service"]);
    expect((await service(["start"])).calls).toEqual(["systemctl --user start codex-bridge-tunnel.service"]);

    writeFileSync(join(home, ".local", "state", "codex-bridge", "codex-bridge-tunnel.log"), "one\ntwo\nthree\n");
    const logs = await service(["logs", "--lines", "2"]);
    expect(logs.out).toBe("two\nthree");

    const removed = await service(["uninstall"]);
    expect(removed.code).toBe(0);
    expect(removed.calls).toEqual(["systemctl --user disable --now codex-bridge-tunnel.service", "systemctl --user daemon-reload"]);
    expect(existsSync(unitPath)).toBe(false);
    expect(existsSync(join(home, ".local", "state", "codex-bridge", "codex-bridge-tunnel.log"))).toBe(true);
    expect((await service(["start"])).code).toBe(1);
  });

  it("on macOS it bootstraps a launchd agent for another tunnel profile", async () => {
    const r = await service(["install", "--tunnel-profile", "work", "--key-file", keyFile], fakeManager({ "launchctl bootout": { code: 113 } }), "darwin");
    expect(r.code, r.err).toBe(0);
    const plist = join(home, "Library", "LaunchAgents", "local.codex-bridge-tunnel-work.plist");
    expect(r.calls).toEqual(["launchctl bootout gui/501/local.codex-bridge-tunnel-work", `launchctl bootstrap gui/501 ${plist}`]);
    expect(readFileSync(plist, "utf8")).toContain("<string>--profile=work</string>");
  });

  it("refuses a key file others can read, a tunnel-client that is not there, and a bridge in a temporary directory", async () => {
    chmodSync(keyFile, 0o644);
    const open = await service(["install", "--key-file", keyFile]);
    expect(open.code).toBe(1);
    expect(open.err).toContain("can be read by others (mode 644)");
    expect(open.calls).toEqual([]);
    const missing = await service(["install", "--tunnel-client", join(dir, "nope")]);
    expect(missing.err).toContain("is not a file");
    const out: string[] = [];
    const temp = await runService(await getPlatform(), ["install"], {
      os: "linux",
      home,
      env: { PATH: join(dir, "bin"), CODEX_BIN: bundledCodexBin(), CODEX_BRIDGE_CONFIG: join(dir, "none.toml") },
      bridgeArgv: [join(tmpdir(), "codex-bridge")],
      run: fakeManager().run,
      out: (l) => out.push(l),
      err: (l) => out.push(l),
    });
    expect(temp).toBe(1);
    expect(out.join("\n")).toMatch(/temporary copy of codex-bridge/);
    expect(existsSync(join(home, ".config", "systemd"))).toBe(false);
  });

  it("warns when the tunnel-client profile reads the key from an environment the service does not have", async () => {
    mkdirSync(join(home, ".config", "tunnel-client"), { recursive: true });
    writeFileSync(join(home, ".config", "tunnel-client", "codex-bridge.yaml"), "control_plane:\n  api_key: env:CONTROL_PLANE_API_KEY\n");
    const r = await service(["install"]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain("takes the control-plane key from the environment (env:CONTROL_PLANE_API_KEY)");
    expect(readFileSync(join(home, ".config", "systemd", "user", "codex-bridge-tunnel.service"), "utf8")).not.toContain("api-key");
  });
});
