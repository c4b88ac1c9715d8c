// Emulator aid (not part of the product): runs the windows-x64 release executable under Wine, as a Windows user
// would: --version, doctor, init (and the doctor line it prints, run by cmd.exe), an MCP session over stdio with
// codex_files and codex_artifact on a Z:\ (a Unix directory) and a C:\ project, a link to outside the project that
// Windows sees as a plain directory, the hostile Windows paths, and the service definitions. Two emulator aids from
// test/emulators/wine/ make Wine 8 able to run it at all (the ProcessPrng stand-in DLL in the prefix, and relay.exe
// that hands the bridge a Windows pipe as stdin); .ci/run builds them and prepares the prefix. The Windows Codex
// cannot run under Wine 8 (NtLockFile is not implemented), so no Codex task runs here.
// Usage: bun test/emulators/windows-x64.ts BRIDGE_EXE RELAY_EXE   (WINEPREFIX set, the DLL in place)
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, existsSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { connect, finish, step, text, type Session } from "./session.ts";

const [bridgeUnix, relayUnix] = process.argv.slice(2).map((p) => resolve(p));
const prefix = process.env.WINEPREFIX;
if (!bridgeUnix || !relayUnix || !prefix) {
  console.error("usage: WINEPREFIX=... bun test/emulators/windows-x64.ts BRIDGE_EXE RELAY_EXE");
  process.exit(2);
}
/** Wine's Z: drive is the Unix root. */
const z = (unix: string) => `Z:${unix.replace(/\//g, "\\")}`;
const cDrive = join(prefix, "drive_c");
const c = (unix: string) => `C:${unix.slice(cDrive.length).replace(/\//g, "\\")}`;

const root = mkdtempSync(join(tmpdir(), "codex-bridge-wine-"));
const outside = join(root, "outside");
mkdirSync(outside);
writeFileSync(join(outside, "marker-outside.txt"), "must never be listed or read\n");
const zProject = join(root, "zproj");
const cProjectUnix = join(cDrive, `cb-${process.pid}`, "cproj");
for (const p of [zProject, cProjectUnix]) {
  mkdirSync(join(p, "sub"), { recursive: true });
  writeFileSync(join(p, "sub", "notes.txt"), "notes on a drive-letter project\n");
  writeFileSync(join(p, ".env"), "TOKEN=1\n");
  // A Unix symlink: Windows programs under Wine see it as a plain directory (as junctions and mount points can be).
  symlinkSync(outside, join(p, "outside"));
}
const configUnix = join(cDrive, `cb-${process.pid}`, "config.toml");
writeFileSync(
  configUnix,
  [`[projects.zp]`, `cwd = ${JSON.stringify(z(zProject))}`, ``, `[projects.cp]`, `cwd = ${JSON.stringify(c(cProjectUnix))}`, ``].join("\n"),
);
const env: Record<string, string> = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: process.env.HOME ?? root,
  WINEPREFIX: prefix,
  WINEDEBUG: "-all",
  CODEX_BRIDGE_CONFIG: c(configUnix),
  CODEX_BRIDGE_STATE: c(join(cDrive, `cb-${process.pid}`, "state.sqlite3")),
};
const bridge = z(bridgeUnix);
const wine = (args: string[], extra: Record<string, string> = {}) =>
  spawnSync("wine", args, { cwd: root, env: { ...env, ...extra }, encoding: "utf8", timeout: 120_000 });

const HOSTILE = [
  "..\\marker-outside.txt", "sub\\..\\..\\outside\\marker-outside.txt", "C:\\Windows\\win.ini", "c:/windows/win.ini",
  "\\\\?\\C:\\Windows\\win.ini", "\\\\.\\PhysicalDrive0", "\\\\localhost\\C$\\Windows\\win.ini", "\\\\127.0.0.1\\c$\\x",
  "\\Windows\\win.ini", "/etc/passwd", "~\\x", "sub\\notes.txt::$DATA", "sub\\notes.txt:hidden", "CON", "con.txt",
  "NUL", "COM1", "LPT1.log", "AUX", "PRN", "CONIN$", ".env", ".env.", ".ENV", ".env ", "%2e%2e\\x", "..%5cx",
  "...\\x", ". .\\x", "outside\\marker-outside.txt", "OUTSIDE\\MARKER-OUTSIDE.TXT",
];

async function driveProject(s: Session, id: string, where: string): Promise<string> {
  const listed = await s.ok("codex_files", { project_id: id, recursive: true });
  const paths = (listed.entries as { path: string }[]).map((e) => e.path);
  if (!paths.includes("sub/notes.txt")) throw new Error(`sub/notes.txt not listed: ${JSON.stringify(paths)}`);
  const leaked = paths.filter((p) => /marker-outside|^outside\//i.test(p));
  if (leaked.length) throw new Error(`listed through the link to outside the project: ${leaked.join(", ")}`);
  if (paths.includes(".env")) throw new Error(".env listed");
  const inside = await s.call("codex_files", { project_id: id, path: "outside" });
  if (!inside.isError) throw new Error(`codex_files path=outside listed: ${text(inside)}`);
  for (const p of ["sub\\notes.txt", "SUB\\NOTES.TXT", "sub/notes.txt"]) {
    const a = await s.call("codex_artifact", { project_id: id, path: p });
    if (a.isError) throw new Error(`codex_artifact ${p}: ${text(a)}`);
    const sha = (a.structuredContent as Record<string, unknown>).sha256;
    if (typeof sha !== "string" || sha.length !== 64) throw new Error(`codex_artifact ${p}: no sha256`);
  }
  return `${where}: ${paths.length} entries listed, none through the link; sub\\notes.txt read under three spellings`;
}

try {
  await step("windows-x64 --version under Wine", () => {
    const r = wine([bridge, "--version"]);
    if (r.status !== 0 || !/target=bun-windows-x64/.test(r.stdout)) throw new Error(`exit ${r.status}: ${r.stdout}${r.stderr}`);
    return r.stdout.trim();
  });
  await step("windows-x64 doctor --json (config, projects and state on C:\\ and Z:\\; no Codex under Wine)", () => {
    const r = wine([bridge, "doctor", "--json"]);
    const report = JSON.parse(r.stdout) as Record<string, any>;
    const ok = (name: string) => report.checks.find((x: { name: string; ok: boolean }) => x.name === name)?.ok === true;
    if (report.bridge?.target !== "bun-windows-x64") throw new Error(`target ${report.bridge?.target}`);
    for (const name of ["config", "project zp", "project cp", "sqlite"]) if (!ok(name)) throw new Error(`${name} not ok: ${r.stdout}`);
    if (report.codex?.supported !== "0.147.0 to 0.171.0") throw new Error(`codex.supported ${report.codex?.supported}`);
    return `checks ok: config, project zp (Z:), project cp (C:), sqlite; codex: ${report.checks.find((x: { name: string }) => x.name === "codex" || x.name === "app-server")?.detail ?? "?"}`;
  });
  await step("windows-x64 init on a Z:\\ project; cmd.exe runs the doctor line it prints", () => {
    const initConfig = c(join(cDrive, `cb-${process.pid}`, "init", "config.toml"));
    const r = wine([bridge, "init", "--project-id", "web", "--cwd", z(zProject), "--config", initConfig]);
    if (r.status !== 0) throw new Error(`exit ${r.status}: ${r.stdout}${r.stderr}`);
    const after = r.stdout.split("Then check everything with:")[1] ?? "";
    const line = after.split("\n").map((l) => l.trim()).find((l) => l && !l.endsWith("(PowerShell)"))?.replace(/\s+\(cmd\.exe\)$/, "");
    if (!line) throw new Error(`no doctor line in: ${r.stdout}`);
    const run = wine(["cmd", "/c", line], { CODEX_BRIDGE_CONFIG: initConfig });
    // doctor ran when it printed its report (unhealthy only because no Codex runs under Wine).
    if (!/ok\s+config: /.test(run.stdout)) throw new Error(`cmd.exe /c ${line} → exit ${run.status}: ${run.stdout}${run.stderr}`);
    return `printed and ran: ${line}`;
  });
  const s = await connect("wine", [z(relayUnix), bridge, "serve"], env, root);
  try {
    await step("windows-x64 MCP session over stdio: initialize and tools/list", async () => {
      const health = await s.call("codex_health");
      if (!text(health).includes("codex-bridge")) throw new Error(text(health));
      return "codex_health answered";
    });
    await step("windows-x64 codex_files/codex_artifact on a Z:\\ project", () => driveProject(s, "zp", "Z:"));
    await step("windows-x64 codex_files/codex_artifact on a C:\\ project", () => driveProject(s, "cp", "C:"));
    await step(`windows-x64 ${HOSTILE.length} hostile Windows paths refused by codex_artifact and codex_files`, async () => {
      const served: string[] = [];
      for (const p of HOSTILE) {
        const a = await s.call("codex_artifact", { project_id: "zp", path: p });
        const f = await s.call("codex_files", { project_id: "zp", path: p });
        if (!a.isError) served.push(`artifact ${p}`);
        if (!f.isError) served.push(`files ${p}`);
      }
      if (served.length) throw new Error(`not refused: ${served.join(", ")}`);
      return `${HOSTILE.length} refused by both tools`;
    });
  } finally {
    await s.close();
  }
  await step("windows-x64 service install writes its PowerShell script and task XML", () => {
    const local = join(cDrive, "users", process.env.USER ?? "root", "AppData", "Local");
    const r = wine([bridge, "service", "install", "--tunnel-client", z(relayUnix)], { LOCALAPPDATA: c(local) });
    const wrote = [...r.stdout.matchAll(/^wrote (.+)$/gm)].map((m) => m[1]!.trim());
    const ps1 = wrote.find((f) => f.endsWith(".ps1"));
    const xml = wrote.find((f) => f.endsWith(".xml"));
    if (!ps1 || !xml) throw new Error(`exit ${r.status}: ${r.stdout}${r.stderr}`);
    const unix = (w: string) => join(cDrive, w.slice(3).replace(/\\/g, "/"));
    const script = readFileSync(unix(ps1), "utf8");
    if (!script.includes(`--mcp.command=''${bridge}''`)) throw new Error(`the script does not run tunnel-client with ${bridge} as its MCP command:\n${script}`);
    const task = readFileSync(unix(xml)).toString("utf16le");
    if (!task.includes("<LogonTrigger>") && !/Logon/i.test(task)) throw new Error(`no logon trigger in the task XML`);
    return `wrote ${ps1} and ${xml}; install exit ${r.status} (Wine's schtasks is a stub)`;
  });
} finally {
  rmSync(root, { recursive: true, force: true });
  rmSync(join(cDrive, `cb-${process.pid}`), { recursive: true, force: true });
}
finish("windows-x64 under Wine");
