// What the supervisor needs from the configuration, independent of how the TOML is laid out, and the one project
// lookup every tool uses (ids and aliases alike).
import { statSync } from "node:fs";
import { BridgeError } from "../bridge-error.ts";
import type { LoadedConfig } from "./load.ts";
import { builtinProfile } from "./schema.ts";

export interface ProjectSpec {
  id: string;
  cwd: string;
  /** Other names the supervisor may use for this project; they only select the directory. */
  aliases?: string[];
  /** Serve files with several names (hard links), which may hold content from outside the project. */
  allow_hard_links?: boolean;
}

export interface ProfileSpec {
  id: string;
  model: string;
  effort: string;
  service_tier: string;
  approval_policy: "untrusted" | "on-request" | "never";
  sandbox_type: "read-only" | "workspace-write" | "danger-full-access";
  network_access: boolean;
  wait_timeout_seconds: number;
  /** Who answers approvals and questions: the supervisor (model), the person on the task card, or either. */
  approvals: "supervisor" | "person" | "either";
  high_risk_patterns: string[];
  forbidden_patterns: string[];
  /** Its own CODEX_HOME; absent: the bridge's. Each distinct home (and environment) gets its own app-server. */
  codex_home?: string;
  child_env: "inherit" | "minimal";
  env_allow: string[];
  env_deny: string[];
  /** "spawn": the bridge runs its own app-server; "shared": it attaches to the home's shared one (Codex's daemon). */
  runtime: "spawn" | "shared";
  /** With runtime "shared": start the shared server when none runs (`codex app-server daemon start`). */
  start_shared: boolean;
}

export interface TaskSettings {
  projects: Record<string, ProjectSpec>;
  profiles: Record<string, ProfileSpec>;
  relay: { enabled: boolean; max_result_bytes: number };
  /** How long a mutating request may go unacknowledged before it is UNKNOWN. */
  ackTimeoutMs: number;
  /** How long a timed-out mutating request stays correlated to evidence (default 15 min). */
  unknownTtlMs?: number;
  /** Longest codex_wait a caller may ask for. */
  maxWaitSeconds: number;
}

/** The profile used when the config names none: the config's own built-in defaults, so they are written once. */
export const DEFAULT_PROFILE: ProfileSpec = builtinProfile("default");

/** The project named by id or alias; the error names the configured ids. */
export function resolveProject(projects: Record<string, ProjectSpec>, id: string | undefined): ProjectSpec {
  const ids = Object.keys(projects);
  if (!id) throw new BridgeError(`project_id is required; configured projects: ${ids.join(", ") || "none (add [projects.<id>] to the config)"}`, "project_id");
  const p = (Object.prototype.hasOwnProperty.call(projects, id) ? projects[id] : undefined) ?? Object.values(projects).find((x) => x.aliases?.includes(id));
  if (!p) throw new BridgeError(`project_id "${id}" is not configured; use one of: ${ids.join(", ") || "none (add [projects.<id>] to the config)"}`, "project_id");
  return p;
}

export function taskSettings(config: LoadedConfig["config"], env: Record<string, string | undefined>): TaskSettings {
  const projects: TaskSettings["projects"] = {};
  for (const [id, p] of Object.entries(config.projects)) projects[id] = { id, cwd: p.real_cwd || p.cwd, aliases: p.aliases, allow_hard_links: p.allow_hard_links };
  const profiles: Record<string, ProfileSpec> = {};
  for (const [id, p] of Object.entries(config.profiles)) profiles[id] = { ...p, id };
  const ack = Number(env.CODEX_BRIDGE_ACK_TIMEOUT_MS ?? "");
  const ttl = Number(env.CODEX_BRIDGE_UNKNOWN_TTL_MS ?? "");
  return {
    projects,
    profiles,
    relay: config.relay,
    ackTimeoutMs: Number.isFinite(ack) && ack > 0 ? ack : 20_000,
    ...(Number.isFinite(ttl) && ttl > 0 ? { unknownTtlMs: ttl } : {}),
    maxWaitSeconds: config.max_wait_seconds,
  };
}

/** Why `cwd` cannot be a project directory now (gone, or not a directory), or null when it is one. */
export function missingDirectory(cwd: string): string | null {
  try {
    return statSync(cwd).isDirectory() ? null : `the project directory ${cwd} is not a directory any more`;
  } catch {
    return `the project directory ${cwd} does not exist any more (moved or deleted?)`;
  }
}

/** The project, refused when its directory is gone: Codex would start a thread in a directory that is not there. */
export function requireProjectDir(p: ProjectSpec): ProjectSpec {
  const missing = missingDirectory(p.cwd);
  if (missing) throw new BridgeError(`project_id "${p.id}": ${missing}. Restore it, or point [projects.${p.id}] cwd at where it is now (the running bridge picks up the edited config).`, "project_id");
  return p;
}

/** Makes `next` the projects in use, in place: every holder of the record sees the change at once. */
export function replaceProjects(inUse: Record<string, ProjectSpec>, next: Record<string, ProjectSpec>): void {
  for (const id of Object.keys(inUse)) if (!(id in next)) delete inUse[id];
  Object.assign(inUse, next);
}
