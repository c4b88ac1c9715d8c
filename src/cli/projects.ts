// `codex-bridge projects add ID DIR [--alias NAME]… | list [--json] | remove ID`: the config's projects from the
// command line, edited in place (comments, order and every other key kept; see config/edit-projects.ts), refused
// when init or the loader would refuse it. A running bridge reads its config when it starts, so it is told to restart.
import { chmodSync, existsSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { isAbsolute, resolve } from "node:path";
import type { Platform } from "../../platform/types.ts";
import { addProject, EditRefused, removeProject } from "../config/edit-projects.ts";
import { ConfigError, loadConfig } from "../config/load.ts";
import { resolveConfigPath } from "../config/location.ts";
import { commandHelp } from "./help.ts";
import { ControlUnavailable, locate, open } from "./person/client.ts";

const out = (s: string) => process.stdout.write(`${s}\n`);
const err = (s: string) => process.stderr.write(`${s}\n`);

export async function runProjects(platform: Platform, args: string[]): Promise<number> {
  const [action, ...rest] = args;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options: { alias: { type: "string", multiple: true }, json: { type: "boolean" } }, allowPositionals: true, strict: true });
  } catch (e) {
    err(`codex-bridge projects: ${(e as Error).message}\n\n${commandHelp("projects")}`);
    return 2;
  }
  const { values, positionals } = parsed as { values: { alias?: string[]; json?: boolean }; positionals: string[] };
  const wants = action === "add" ? 2 : action === "remove" ? 1 : action === "list" ? 0 : -1;
  if (wants < 0 || positionals.length !== wants || (action !== "add" && values.alias) || (action !== "list" && values.json)) {
    err(`codex-bridge projects: expected add ID DIR [--alias NAME]…, list [--json] or remove ID\n\n${commandHelp("projects")}`);
    return 2;
  }
  const dirs = platform.dirs();
  if (action === "list") return list(platform, values.json === true);
  const path = resolveConfigPath({ env: process.env, configDir: dirs.config }).path;
  if (!existsSync(path)) {
    err(`codex-bridge projects: there is no config at ${path}; codex-bridge init --project-id ID --cwd DIR writes one with its first project`);
    return 1;
  }
  const text = readFileSync(path, "utf8");
  try {
    if (action === "add") {
      const [id, dirArg] = positionals as [string, string];
      const dir = isAbsolute(dirArg) ? dirArg : resolve(process.cwd(), dirArg);
      if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new EditRefused(`${dir} is not an existing directory`);
      const edit = addProject(text, path, { id, cwd: realpathSync(dir), aliases: values.alias ?? [] });
      write(path, edit.text);
      out(`added project "${id}" → ${edit.parsed.config.projects[id]!.real_cwd} to ${path}`);
    } else {
      const [id] = positionals as [string];
      write(path, removeProject(text, path, id).text);
      out(`removed project "${id}" from ${path}`);
    }
  } catch (e) {
    if (!(e instanceof EditRefused)) throw e;
    err(`codex-bridge projects ${action}: ${e.message}`);
    return 1;
  }
  await sayRestart(platform);
  return 0;
}

/** Replaces the file in one rename, with the mode it had. */
function write(path: string, text: string): void {
  const mode = statSync(path).mode & 0o777;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, path);
}

async function sayRestart(platform: Platform): Promise<void> {
  let running = false;
  try {
    const c = await open(locate(platform), { cmd: "tasks", all: false });
    running = (await c.next(3_000)) !== null;
    c.close();
  } catch (e) {
    if (!(e instanceof ControlUnavailable)) throw e;
  }
  if (running) {
    out("A codex-bridge is running with the projects it read when it started: restart it to use this change (close and reopen the MCP client that runs it, or codex-bridge service stop, then start).");
  }
}

function list(platform: Platform, json: boolean): number {
  let loaded: ReturnType<typeof loadConfig>;
  try {
    loaded = loadConfig({ env: process.env, configDir: platform.dirs().config });
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    err(e.message);
    return 1;
  }
  const rows = Object.values(loaded.config.projects).map((p) => ({ id: p.id, cwd: p.cwd, aliases: p.aliases, ok: true as boolean, problem: undefined as string | undefined }));
  for (const i of loaded.projectIssues) rows.push({ id: i.id, cwd: "", aliases: [], ok: false, problem: i.problem });
  if (json) {
    out(JSON.stringify({ config: loaded.path, projects: rows }, null, 1));
    return 0;
  }
  if (!loaded.exists) out(`No config at ${loaded.path} (codex-bridge init writes one).`);
  else if (rows.length === 0) out(`No projects in ${loaded.path} (codex-bridge projects add ID DIR adds one).`);
  for (const r of rows) out(r.ok ? `${r.id}  ${r.cwd}${r.aliases.length ? `  (aliases: ${r.aliases.join(", ")})` : ""}` : `${r.id}  NOT LOADED: ${r.problem}`);
  return 0;
}
