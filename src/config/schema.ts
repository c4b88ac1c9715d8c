// The shape of config.toml, checked with zod. Keys stay snake_case, exactly as users write them,
// so an error message can name the key the user has to fix.
import { z } from "zod";
import { DEFAULT_SENSITIVE_PATHS as BUILTIN_SENSITIVE_PATHS } from "../artifacts/sensitive-paths.ts";
import { notifyInputSchema, type NotifySettings } from "./notify-schema.ts";

export const MIB = 1024 * 1024;
export const DEFAULT_MAX_ARTIFACT_BYTES = 32 * MIB;
/**
 * Finished tasks older than this many days are compacted (see src/tasks/retention.ts); 0 keeps everything. A week of
 * whole tasks keeps a year of 40 tasks a day under 200 MB (npm run test:scale measures it).
 */
export const DEFAULT_RETENTION_DAYS = 7;
export const MAX_RETENTION_DAYS = 36_500;
export const MAX_MAX_ARTIFACT_BYTES = 256 * MIB;
export const DEFAULT_INLINE_ARTIFACT_BYTES = 4 * MIB;
export const DEFAULT_RELAY_MAX_RESULT_BYTES = 256 * 1024;
export const DEFAULT_WAIT_TIMEOUT_SECONDS = 25;
export const MAX_WAIT_TIMEOUT_SECONDS = 300;
/** The longest one codex_wait holds unless max_wait_seconds raises it: under every known host's tool-call limit (60 s). */
export const DEFAULT_MAX_WAIT_SECONDS = 55;
export const DEFAULT_PROFILE_ID = "default";

export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const ID_RULE = "1-64 characters: letters, digits, '.', '_' or '-', starting with a letter or digit";

/** Always refused for artifact transfer unless the user sets replace_default_sensitive_paths = true. */
export const DEFAULT_SENSITIVE_PATHS: readonly string[] = BUILTIN_SENSITIVE_PATHS;

export const APPROVAL_POLICIES = ["untrusted", "on-request", "never"] as const;
export const SANDBOX_TYPES = ["read-only", "workspace-write", "danger-full-access"] as const;
export const CHILD_ENV_MODES = ["inherit", "minimal"] as const;
/** How a profile reaches Codex: its own app-server child, or the Codex home's shared background app-server. */
export const RUNTIMES = ["spawn", "shared"] as const;
/** Who may answer Codex's approvals and questions: the supervising model, the person on the task card, or both. */
export const APPROVERS = ["supervisor", "person", "either"] as const;

const oneOf = (values: readonly string[]) => `must be one of ${values.map((v) => `"${v}"`).join(", ")}`;

const intRange = (min: number, max: number, unit = "") => {
  const msg = `must be a whole number from ${min} to ${max}${unit}`;
  return z.number({ error: msg }).int({ error: msg }).min(min, { error: msg }).max(max, { error: msg });
};

const regexSource = z.string({ error: "must be a string holding a regular expression" }).superRefine((src, ctx) => {
  try {
    new RegExp(src);
  } catch (err) {
    ctx.addIssue({ code: "custom", message: `is not a valid regular expression (${(err as Error).message})` });
  }
});

const absolutePath = z
  .string({ error: "must be a string holding an absolute path" })
  .min(1, { error: "must be an absolute path, not empty" });

const stringList = (what: string) => z.array(z.string({ error: `must be a list of ${what}` }), { error: `must be a list of ${what}` });

export const profileInputSchema = z.strictObject({
  model: z.string({ error: 'must be a string (use "" to inherit Codex\'s default)' }).optional(),
  effort: z.string({ error: 'must be a string (use "" to inherit Codex\'s default)' }).optional(),
  service_tier: z.string({ error: 'must be a string (use "" to inherit Codex\'s default)' }).optional(),
  approval_policy: z.enum(APPROVAL_POLICIES, { error: oneOf(APPROVAL_POLICIES) }).optional(),
  sandbox_type: z.enum(SANDBOX_TYPES, { error: oneOf(SANDBOX_TYPES) }).optional(),
  network_access: z.boolean({ error: "must be true or false" }).optional(),
  wait_timeout_seconds: intRange(1, MAX_WAIT_TIMEOUT_SECONDS, " (seconds)").optional(),
  approvals: z.enum(APPROVERS, { error: oneOf(APPROVERS) }).optional(),
  high_risk_patterns: z.array(regexSource, { error: "must be a list of regular expressions" }).optional(),
  forbidden_patterns: z.array(regexSource, { error: "must be a list of regular expressions" }).optional(),
  // Its own CODEX_HOME (login, config, history), so a profile's Codex never shares the user's, and what the
  // app-server child inherits from the bridge's environment.
  codex_home: absolutePath.optional(),
  child_env: z.enum(CHILD_ENV_MODES, { error: oneOf(CHILD_ENV_MODES) }).optional(),
  env_allow: stringList("environment variable names").optional(),
  env_deny: stringList("environment variable names").optional(),
  runtime: z.enum(RUNTIMES, { error: oneOf(RUNTIMES) }).optional(),
  start_shared: z.boolean({ error: "must be true or false" }).optional(),
});

export const projectInputSchema = z.strictObject({
  cwd: absolutePath,
  aliases: stringList("alias names").optional(),
  description: z.string({ error: "must be a string" }).optional(),
  /** Serve files that have several names (hard links) as artifacts; off because another name may lie outside. */
  allow_hard_links: z.boolean({ error: "must be true or false" }).optional(),
});

export const relayInputSchema = z.strictObject({
  enabled: z.boolean({ error: "must be true or false" }).optional(),
  max_result_bytes: intRange(1024, 16 * MIB, " (bytes)").optional(),
});

export const codexInputSchema = z.strictObject({
  bin: absolutePath.optional(),
  /** Silence (with something awaited) after which the app-server counts as not answering. */
  unresponsive_seconds: intRange(3, 600, " (seconds)").optional(),
  /** Not answering this long: killed and replaced by itself (0 never). */
  unresponsive_restart_seconds: intRange(0, 86_400, " (seconds; 0 never)").optional(),
});

const table = <T extends z.ZodType>(value: T) => z.record(z.string(), value, { error: "must be a table" });

export const configInputSchema = z.strictObject({
  max_artifact_bytes: intRange(1, MAX_MAX_ARTIFACT_BYTES, " (bytes, at most 256 MiB)").optional(),
  retention_days: intRange(0, MAX_RETENTION_DAYS, " (days; 0 keeps every task whole)").optional(),
  inline_artifact_bytes: intRange(1, MAX_MAX_ARTIFACT_BYTES, " (bytes, at most max_artifact_bytes)").optional(),
  sensitive_paths: stringList("glob patterns").optional(),
  replace_default_sensitive_paths: z.boolean({ error: "must be true or false" }).optional(),
  max_wait_seconds: intRange(1, MAX_WAIT_TIMEOUT_SECONDS, " (seconds)").optional(),
  allowed_roots: z.array(absolutePath, { error: "must be a list of absolute directory paths" }).optional(),
  projects: table(projectInputSchema).optional(),
  profiles: table(profileInputSchema).optional(),
  relay: relayInputSchema.optional(),
  codex: codexInputSchema.optional(),
  notify: notifyInputSchema.optional(),
});

/** Keys accepted in each kind of table, used to say what is allowed when a key is unknown. */
export const ALLOWED_KEYS = {
  top: Object.keys(configInputSchema.shape),
  project: Object.keys(projectInputSchema.shape),
  profile: Object.keys(profileInputSchema.shape),
  relay: Object.keys(relayInputSchema.shape),
  codex: Object.keys(codexInputSchema.shape),
  notify: Object.keys(notifyInputSchema.shape),
} as const;

export type ConfigInput = z.infer<typeof configInputSchema>;
export type ProfileInput = z.infer<typeof profileInputSchema>;

// The resolved config handed to the rest of the bridge. Every default is filled in.
export const profileSchema = z.object({
  id: z.string(),
  /** "" means: let Codex choose. */
  model: z.string(),
  effort: z.string(),
  service_tier: z.string(),
  approval_policy: z.enum(APPROVAL_POLICIES),
  sandbox_type: z.enum(SANDBOX_TYPES),
  network_access: z.boolean(),
  wait_timeout_seconds: z.number().int(),
  approvals: z.enum(APPROVERS),
  high_risk_patterns: z.array(z.string()),
  forbidden_patterns: z.array(z.string()),
  /** Absent: the bridge's own CODEX_HOME (or Codex's default home). */
  codex_home: z.string().optional(),
  child_env: z.enum(CHILD_ENV_MODES),
  env_allow: z.array(z.string()),
  env_deny: z.array(z.string()),
  runtime: z.enum(RUNTIMES),
  start_shared: z.boolean(),
});

export const projectSchema = z.object({
  id: z.string(),
  /** As written in the config (absolute, normalized). */
  cwd: z.string(),
  /** The same directory with symlinks resolved; every containment check uses this one. */
  real_cwd: z.string(),
  aliases: z.array(z.string()),
  description: z.string(),
  allow_hard_links: z.boolean(),
});

export const bridgeConfigSchema = z.object({
  max_artifact_bytes: z.number().int(),
  inline_artifact_bytes: z.number().int(),
  retention_days: z.number().int(),
  /** The effective list: defaults plus the user's, or only the user's when replaced. */
  sensitive_paths: z.array(z.string()),
  max_wait_seconds: z.number().int(),
  /** Real paths; undefined = no restriction, [] = every project refused. */
  allowed_roots: z.array(z.string()).optional(),
  projects: z.record(z.string(), projectSchema),
  profiles: z.record(z.string(), profileSchema),
  relay: z.object({ enabled: z.boolean(), max_result_bytes: z.number().int() }),
  codex: z.object({ bin: z.string().optional(), unresponsive_seconds: z.number().int().optional(), unresponsive_restart_seconds: z.number().int().optional() }),
  notify: z.custom<NotifySettings>(),
});

export type Profile = z.infer<typeof profileSchema>;
export type Project = z.infer<typeof projectSchema>;
export type BridgeConfig = z.infer<typeof bridgeConfigSchema>;

export function builtinProfile(id: string): Profile {
  return {
    id,
    model: "",
    effort: "",
    service_tier: "",
    approval_policy: "on-request",
    sandbox_type: "workspace-write",
    network_access: false,
    wait_timeout_seconds: DEFAULT_WAIT_TIMEOUT_SECONDS,
    approvals: "supervisor",
    high_risk_patterns: [],
    forbidden_patterns: [],
    child_env: "inherit",
    env_allow: [],
    env_deny: [],
    runtime: "spawn",
    start_shared: false,
  };
}
