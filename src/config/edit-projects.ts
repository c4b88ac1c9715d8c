// `codex-bridge projects add|remove` as edits of the config file's text. smol-toml reads TOML but writes it back
// without comments and in its own order, so the file is never re-serialized: a [projects.<id>] table is inserted
// after the last project table (or at the end) or its lines are cut out, and the result is accepted only when the
// real loader reads it and finds every other key exactly as before (anything the line edit cannot do safely, such
// as a project written as an inline table, is refused with a sentence saying to edit by hand).
import { isDeepStrictEqual } from "node:util";
import { parse as parseToml } from "smol-toml";
import { parseConfigText, type ParsedConfig } from "./load.ts";
import { ID_PATTERN, ID_RULE } from "./schema.ts";

export class EditRefused extends Error {}

const HEADER = /^\s*\[\s*(?:projects|"projects")\s*\.\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*\]\s*(?:#.*)?$/;
const ANY_HEADER = /^\s*\[/;
const CONTENT = /^\s*[^\s#]/;

const key = (id: string) => (/^[A-Za-z0-9_-]+$/.test(id) ? id : JSON.stringify(id));
const tomlString = (s: string) => JSON.stringify(s);

function headerId(line: string): string | undefined {
  const m = HEADER.exec(line);
  if (!m) return undefined;
  if (m[1] !== undefined) return JSON.parse(`"${m[1]}"`) as string;
  return m[2] ?? m[3];
}

interface Lines {
  lines: string[];
  eol: string;
}

function split(text: string): Lines {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  return { lines: text.split(eol), eol };
}

/** The last line holding a key of the table whose header is at `h` (its comments and blanks before the next header stay). */
function tableEnd(lines: string[], h: number): number {
  let end = h;
  for (let i = h + 1; i < lines.length && !ANY_HEADER.test(lines[i]!); i++) if (CONTENT.test(lines[i]!)) end = i;
  return end;
}

function rawOf(text: string, path: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (err) {
    throw new EditRefused(`${path} is not valid TOML now (${(err as Error).message.split("\n")[0]}); fix it first (codex-bridge doctor shows what is wrong)`);
  }
}

/** The raw tables without `projects.<id>`, to compare everything an edit must leave alone. */
function without(raw: Record<string, unknown>, id: string): Record<string, unknown> {
  const projects = { ...((raw.projects ?? {}) as Record<string, unknown>) };
  delete projects[id];
  return { ...raw, projects };
}

export interface NewProject {
  id: string;
  /** The directory's real path. */
  cwd: string;
  aliases: string[];
}

/** The config text with [projects.<id>] added, checked by the real loader; throws EditRefused saying why not. */
export function addProject(text: string, path: string, p: NewProject): { text: string; parsed: ParsedConfig } {
  if (!ID_PATTERN.test(p.id)) throw new EditRefused(`"${p.id}" is not a valid project id: ${ID_RULE}`);
  for (const a of p.aliases) if (!ID_PATTERN.test(a)) throw new EditRefused(`alias "${a}" is not valid: ${ID_RULE}`);
  const before = rawOf(text, path);
  try {
    parseConfigText(text, { path, strict: false });
  } catch (err) {
    throw new EditRefused(`the config does not load now, so it is left as it is: ${(err as Error).message}`);
  }
  const taken = new Map<string, string>();
  for (const [id, raw] of Object.entries((before.projects ?? {}) as Record<string, { aliases?: unknown }>)) {
    taken.set(id, id);
    for (const a of Array.isArray(raw.aliases) ? raw.aliases : []) taken.set(String(a), id);
  }
  for (const name of [p.id, ...p.aliases]) {
    const owner = taken.get(name);
    if (owner !== undefined) throw new EditRefused(owner === name ? `project "${name}" already exists in ${path} (codex-bridge projects remove ${name} first to replace it)` : `"${name}" is already an alias of project "${owner}"`);
  }
  const { lines, eol } = split(text);
  const block = ["", `[projects.${key(p.id)}]`, `cwd = ${tomlString(p.cwd)}`, ...(p.aliases.length ? [`aliases = [${p.aliases.map(tomlString).join(", ")}]`] : [])];
  const headers = lines.map((l, i) => (headerId(l) !== undefined ? i : -1)).filter((i) => i >= 0);
  let at = headers.length ? tableEnd(lines, headers.at(-1)!) + 1 : lines.length;
  // At the end of a file that ends with a newline, the new table goes before that last empty piece.
  if (!headers.length && lines.at(-1) === "") at = lines.length - 1;
  if (at === 0) block.shift();
  const out = [...lines.slice(0, at), ...block, ...lines.slice(at)].join(eol);
  const parsed = check(out, path, before, p.id);
  const added = parsed.config.projects[p.id];
  if (!added) {
    const issue = parsed.projectIssues.find((i) => i.id === p.id);
    throw new EditRefused(`the bridge would not load project "${p.id}": ${issue?.problem ?? "it is missing after the edit"}`);
  }
  return { text: out, parsed };
}

/** The config text without [projects.<id>], checked by the real loader; throws EditRefused saying why not. */
export function removeProject(text: string, path: string, id: string): { text: string; parsed: ParsedConfig } {
  const before = rawOf(text, path);
  if (!((before.projects ?? {}) as Record<string, unknown>)[id]) {
    const known = Object.keys((before.projects ?? {}) as Record<string, unknown>);
    throw new EditRefused(`no project "${id}" in ${path}; projects: ${known.join(", ") || "none"}`);
  }
  const { lines, eol } = split(text);
  const h = lines.findIndex((l) => headerId(l) === id);
  if (h < 0) throw new EditRefused(`project "${id}" is not written as a [projects.${key(id)}] table in ${path}; edit that file by hand`);
  const end = tableEnd(lines, h);
  const from = h > 0 && lines[h - 1]!.trim() === "" ? h - 1 : h;
  const out = [...lines.slice(0, from), ...lines.slice(end + 1)].join(eol);
  const parsed = check(out, path, before, id);
  if (parsed.config.projects[id] || parsed.projectIssues.some((i) => i.id === id)) throw new EditRefused(`project "${id}" is still defined in ${path} after removing its table; edit that file by hand`);
  return { text: out, parsed };
}

/** The edited text must load, and differ from the old one in projects.<id> only. */
function check(out: string, path: string, before: Record<string, unknown>, id: string): ParsedConfig {
  let parsed: ParsedConfig;
  try {
    parsed = parseConfigText(out, { path, strict: false });
  } catch (err) {
    throw new EditRefused(`the edited config would not load, so ${path} is left as it was: ${(err as Error).message}`);
  }
  if (!isDeepStrictEqual(without(rawOf(out, path), id), without(before, id))) {
    throw new EditRefused(`a line edit of ${path} would change more than project "${id}" (the file is laid out in a way this command does not edit); edit it by hand`);
  }
  return parsed;
}
