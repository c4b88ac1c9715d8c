// Reads config.toml, validates it and resolves every default, so the rest of the bridge
// never sees an optional setting. Errors name the file, the key and what is allowed.
import { resolveNotify } from "./notify-schema.ts";
import { readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { parse as parseToml, TomlError } from "smol-toml";
import { isInside } from "../containment.ts";
import { ALWAYS_DROPPED_ENV, ENV_NAME_PATTERN } from "../env-names.ts";
import type { z } from "zod";
import {
  ALLOWED_KEYS,
  builtinProfile,
  configInputSchema,
  DEFAULT_INLINE_ARTIFACT_BYTES,
  DEFAULT_MAX_ARTIFACT_BYTES,
  DEFAULT_MAX_WAIT_SECONDS,
  DEFAULT_RETENTION_DAYS,
  DEFAULT_PROFILE_ID,
  DEFAULT_RELAY_MAX_RESULT_BYTES,
  DEFAULT_SENSITIVE_PATHS,
  ID_PATTERN,
  ID_RULE,
  type BridgeConfig,
  type ConfigInput,
  type Profile,
  type ProfileInput,
  type Project,
} from "./schema.ts";
import { envNamesFile, resolveConfigPath, type ConfigSource } from "./location.ts";
import { windowsCwdProblem } from "./windows-cwd.ts";

const MAX_LISTED_ISSUES = 6;

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(formatProblems(file, problems));
  }
}

function formatProblems(file: string, problems: string[]): string {
  if (problems.length === 1) return `Invalid config file ${file}: ${problems[0]}`;
  const shown = problems.slice(0, MAX_LISTED_ISSUES).map((p) => `  - ${p}`);
  if (problems.length > MAX_LISTED_ISSUES) shown.push(`  - and ${problems.length - MAX_LISTED_ISSUES} more`);
  return `Invalid config file ${file}:\n${shown.join("\n")}`;
}

export interface ProjectIssue {
  id: string;
  problem: string;
}

export interface ParseConfigOptions {
  /** Used in messages only. */
  path: string;
  /** Unresolvable projects become errors instead of projectIssues. */
  strict?: boolean;
  /** Check directories in Windows form (default: on Windows hosts). */
  windows?: boolean;
}

export interface ParsedConfig {
  config: BridgeConfig;
  projectIssues: ProjectIssue[];
}

export interface LoadConfigOptions {
  env: Record<string, string | undefined>;
  /** The OS config dir from the platform layer. */
  configDir: string;
  /** Explicit file, e.g. from a command-line flag; beats the env vars. */
  path?: string;
  strict?: boolean;
}

export interface LoadedConfig extends ParsedConfig {
  path: string;
  source: ConfigSource;
  /** false when the default location had no file and the empty config was used. */
  exists: boolean;
}

export function loadConfig(opts: LoadConfigOptions): LoadedConfig {
  const { path, source } = resolveConfigPath(opts);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !envNamesFile(source)) {
      return { ...parseConfigText("", { path, strict: opts.strict }), path, source, exists: false };
    }
    const why =
      code === "ENOENT"
        ? `the file does not exist (named by ${source}); create it with \`codex-bridge init\` or fix the path`
        : code === "EISDIR"
          ? "this is a directory, not a file"
          : `cannot be read (${code ?? (err as Error).message})`;
    throw new ConfigError(path, [why]);
  }
  return { ...parseConfigText(text, { path, strict: opts.strict }), path, source, exists: true };
}

export function parseConfigText(text: string, opts: ParseConfigOptions): ParsedConfig {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (err) {
    if (err instanceof TomlError) {
      const firstLine = err.message.split("\n")[0].replace(/^Invalid TOML document:\s*/, "");
      throw new ConfigError(opts.path, [`TOML syntax error at line ${err.line}, column ${err.column}: ${firstLine}`]);
    }
    throw err;
  }
  const checked = configInputSchema.safeParse(raw);
  if (!checked.success) throw new ConfigError(opts.path, describeIssues(checked.error.issues, raw));
  return resolveConfig(checked.data, opts);
}

function resolveConfig(input: ConfigInput, opts: ParseConfigOptions): ParsedConfig {
  const problems: string[] = [];

  const maxArtifact = input.max_artifact_bytes ?? DEFAULT_MAX_ARTIFACT_BYTES;
  let inline = input.inline_artifact_bytes ?? Math.min(DEFAULT_INLINE_ARTIFACT_BYTES, maxArtifact);
  if (inline > maxArtifact) {
    problems.push(`inline_artifact_bytes (${inline}) must be at most max_artifact_bytes (${maxArtifact})`);
    inline = maxArtifact;
  }

  const userSensitive = input.sensitive_paths ?? [];
  userSensitive.forEach((p, i) => {
    if (p.trim() === "") problems.push(`sensitive_paths[${i}] must be a non-empty glob pattern`);
  });
  const sensitive = input.replace_default_sensitive_paths
    ? [...userSensitive]
    : [...new Set([...DEFAULT_SENSITIVE_PATHS, ...userSensitive])];

  const windows = opts.windows ?? process.platform === "win32";
  const windowsProblem = (dir: string) => (windows ? windowsCwdProblem(dir) : null);
  let allowedRoots: string[] | undefined;
  if (input.allowed_roots) {
    allowedRoots = [];
    input.allowed_roots.forEach((root, i) => {
      const key = `allowed_roots[${i}]`;
      const win = windowsProblem(root);
      if (win) return problems.push(`${key} ${JSON.stringify(root)} ${win}`);
      if (!isAbsolute(root)) return problems.push(`${key} must be an absolute path (got ${JSON.stringify(root)})`);
      const dir = existingDirectory(resolve(root));
      if ("problem" in dir) return problems.push(`${key} ${dir.problem}`);
      allowedRoots!.push(dir.real);
    });
  }

  if (input.codex?.bin !== undefined && !isAbsolute(input.codex.bin)) {
    problems.push(`codex.bin must be an absolute path to the codex executable (got ${JSON.stringify(input.codex.bin)})`);
  }

  const profiles = resolveProfiles(input.profiles ?? {}, problems);

  const projects: Record<string, Project> = {};
  const projectIssues: ProjectIssue[] = [];
  const names = new Map<string, string>(); // id or alias -> owning project id
  for (const id of Object.keys(input.projects ?? {})) {
    if (!ID_PATTERN.test(id)) problems.push(`projects.${quoteKey(id)} is not a valid project id: ${ID_RULE}`);
    else names.set(id, id);
  }
  for (const [id, p] of Object.entries(input.projects ?? {})) {
    const key = `projects.${quoteKey(id)}`;
    for (const [i, alias] of (p.aliases ?? []).entries()) {
      if (!ID_PATTERN.test(alias)) {
        problems.push(`${key}.aliases[${i}] (${JSON.stringify(alias)}) is not a valid alias: ${ID_RULE}`);
        continue;
      }
      const owner = names.get(alias);
      if (owner !== undefined && !(owner === id && alias !== id)) {
        problems.push(`${key}.aliases[${i}] (${JSON.stringify(alias)}) is already used by project "${owner}"; aliases must be unique`);
        continue;
      }
      names.set(alias, id);
    }
    const win = windowsProblem(p.cwd);
    if (win) {
      problems.push(`${key}.cwd ${JSON.stringify(p.cwd)} ${win}`);
      continue;
    }
    if (!isAbsolute(p.cwd)) {
      problems.push(`${key}.cwd must be an absolute path (got ${JSON.stringify(p.cwd)})`);
      continue;
    }
    const cwd = resolve(p.cwd);
    const dir = existingDirectory(cwd);
    let problem = "problem" in dir ? `cwd ${JSON.stringify(cwd)} ${dir.problem}` : undefined;
    if (!problem && "real" in dir && allowedRoots && !allowedRoots.some((root) => isInside(root, dir.real, { foldCase: process.platform === "win32" || process.platform === "darwin" }))) {
      problem =
        allowedRoots.length === 0
          ? "allowed_roots is an empty list, so no project is allowed"
          : `cwd ${JSON.stringify(cwd)} is outside every allowed_roots entry (${allowedRoots.join(", ")})`;
    }
    if (problem) {
      if (opts.strict) problems.push(`${key}: ${problem}`);
      else projectIssues.push({ id, problem });
      continue;
    }
    projects[id] = {
      id,
      cwd,
      real_cwd: (dir as { real: string }).real,
      aliases: [...new Set(p.aliases ?? [])],
      description: p.description ?? "",
      allow_hard_links: p.allow_hard_links ?? false,
    };
  }

  if (problems.length > 0) throw new ConfigError(opts.path, problems);

  const config: BridgeConfig = {
    max_artifact_bytes: maxArtifact,
    inline_artifact_bytes: inline,
    retention_days: input.retention_days ?? DEFAULT_RETENTION_DAYS,
    sensitive_paths: sensitive,
    max_wait_seconds: input.max_wait_seconds ?? DEFAULT_MAX_WAIT_SECONDS,
    allowed_roots: allowedRoots,
    projects,
    profiles,
    relay: {
      enabled: input.relay?.enabled ?? true,
      max_result_bytes: input.relay?.max_result_bytes ?? DEFAULT_RELAY_MAX_RESULT_BYTES,
    },
    codex: {
      ...(input.codex?.bin !== undefined ? { bin: resolve(input.codex.bin) } : {}),
      ...(input.codex?.unresponsive_seconds !== undefined ? { unresponsive_seconds: input.codex.unresponsive_seconds } : {}),
      ...(input.codex?.unresponsive_restart_seconds !== undefined ? { unresponsive_restart_seconds: input.codex.unresponsive_restart_seconds } : {}),
    },
    notify: resolveNotify(input.notify),
  };
  return { config, projectIssues };
}

// Unset profile fields come from [profiles.default], then from the built-in defaults. Pattern
// lists are added to the default profile's, so a profile can tighten the policy but never loosen it.
function resolveProfiles(inputs: Record<string, ProfileInput>, problems: string[]): Record<string, Profile> {
  const base = { ...builtinProfile(DEFAULT_PROFILE_ID), ...definedOnly(inputs[DEFAULT_PROFILE_ID] ?? {}) };
  const out: Record<string, Profile> = { [DEFAULT_PROFILE_ID]: base };
  for (const [id, p] of Object.entries(inputs)) {
    if (!ID_PATTERN.test(id)) {
      problems.push(`profiles.${quoteKey(id)} is not a valid profile id: ${ID_RULE}`);
      continue;
    }
    checkChildEnv(id, p, problems);
    if (id === DEFAULT_PROFILE_ID) continue;
    const own = definedOnly(p);
    out[id] = {
      ...base,
      ...own,
      id,
      high_risk_patterns: [...new Set([...base.high_risk_patterns, ...(p.high_risk_patterns ?? [])])],
      forbidden_patterns: [...new Set([...base.forbidden_patterns, ...(p.forbidden_patterns ?? [])])],
      env_deny: [...new Set([...base.env_deny, ...(p.env_deny ?? [])])],
    };
  }
  for (const p of Object.values(out)) if (p.codex_home !== undefined) p.codex_home = resolve(p.codex_home);
  return out;
}

function checkChildEnv(id: string, p: ProfileInput, problems: string[]): void {
  const key = `profiles.${quoteKey(id)}`;
  if (p.codex_home !== undefined && !isAbsolute(p.codex_home)) {
    problems.push(`${key}.codex_home must be an absolute directory (got ${JSON.stringify(p.codex_home)}); codex-bridge login --profile ${id} creates it`);
  }
  for (const list of ["env_allow", "env_deny"] as const) {
    (p[list] ?? []).forEach((name, i) => {
      if (!ENV_NAME_PATTERN.test(name)) problems.push(`${key}.${list}[${i}] (${JSON.stringify(name)}) is not an environment variable name`);
      else if (list === "env_allow" && ALWAYS_DROPPED_ENV.includes(name.toUpperCase())) {
        problems.push(`${key}.env_allow[${i}] names ${name}, which the bridge never passes to Codex; remove it`);
      }
    });
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function existingDirectory(path: string): { real: string } | { problem: string } {
  let real: string;
  try {
    real = realpathSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { problem: code === "ENOENT" ? "does not exist" : `cannot be resolved (${code ?? "error"})` };
  }
  try {
    if (!statSync(real).isDirectory()) return { problem: "is not a directory" };
  } catch (err) {
    return { problem: `cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"})` };
  }
  return { real };
}


/** The project with this id, or the one that lists it as an alias. */

// ---- zod issues -> one plain line each -------------------------------------------------------

type Issue = z.core.$ZodIssue;

function describeIssues(issues: readonly Issue[], raw: unknown): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
    if (issue.code === "unrecognized_keys") {
      const allowed = allowedKeysAt(path);
      for (const key of issue.keys) {
        const hint = allowed ? ` (allowed here: ${allowed.join(", ")})` : "";
        lines.push(`${formatPath([...path, key])} is not a known setting; check the spelling${hint}`);
      }
      continue;
    }
    const value = valueAt(raw, path);
    if (value === undefined) {
      lines.push(`${formatPath(path)} is missing: it ${issue.message}`);
    } else {
      lines.push(`${formatPath(path)} ${issue.message}${gotSuffix(value)}`);
    }
  }
  return [...new Set(lines)];
}

function allowedKeysAt(path: (string | number)[]): readonly string[] | undefined {
  if (path.length === 0) return ALLOWED_KEYS.top;
  if (path.length === 1 && path[0] === "relay") return ALLOWED_KEYS.relay;
  if (path.length === 1 && path[0] === "codex") return ALLOWED_KEYS.codex;
  if (path.length === 1 && path[0] === "notify") return ALLOWED_KEYS.notify;
  if (path.length === 2 && path[0] === "projects") return ALLOWED_KEYS.project;
  if (path.length === 2 && path[0] === "profiles") return ALLOWED_KEYS.profile;
  return undefined;
}

function valueAt(raw: unknown, path: (string | number)[]): unknown {
  let cur: unknown = raw;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, unknown>)[key];
  }
  return cur;
}

function gotSuffix(value: unknown): string {
  if (typeof value === "string") return ` (got ${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)})`;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return ` (got ${value})`;
  if (Array.isArray(value)) return " (got a list)";
  if (value && typeof value === "object") return " (got a table)";
  return "";
}

function quoteKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

function formatPath(path: (string | number)[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out === "" ? quoteKey(p) : `.${quoteKey(p)}`;
  }
  return out === "" ? "(top level)" : out;
}
