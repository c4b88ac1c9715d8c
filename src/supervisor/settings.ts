import { builtinProfile } from "../config/schema.ts";

// What the supervisor needs from the configuration, independent of how the TOML is laid out.
export interface ProjectSpec {
  id: string;
  cwd: string;
  /** Other names the supervisor may use for this project; they only select the directory. */
  aliases?: string[];
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
  high_risk_patterns: string[];
  forbidden_patterns: string[];
}

export interface SupervisorSettings {
  projects: Record<string, ProjectSpec>;
  profiles: Record<string, ProfileSpec>;
  relay: { enabled: boolean; max_result_bytes: number };
  /** How long a mutating request may go unacknowledged before it is UNKNOWN. */
  ackTimeoutMs: number;
  /** Longest codex_wait a caller may ask for. */
  maxWaitSeconds: number;
}

/** The profile used when the config names none: the config's own built-in defaults, so they are written once. */
export const DEFAULT_PROFILE: ProfileSpec = builtinProfile("default");
