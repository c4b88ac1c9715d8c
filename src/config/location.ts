// Where config.toml lives. The env vars win; otherwise the OS config dir, with the
// pre-rename location honoured when that is the only file a user has.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

export type ConfigSource =
  | "CODEX_BRIDGE_CONFIG"
  | "CODEX_SUPERVISOR_CONFIG"
  | "default"
  | "legacy-default"
  | "explicit";

export interface ConfigLocation {
  path: string;
  source: ConfigSource;
}

export const CONFIG_DIR_NAME = "codex-bridge";
export const LEGACY_CONFIG_DIR_NAME = "codex-supervisor-mcp";
export const CONFIG_FILE_NAME = "config.toml";

export interface ResolveConfigPathOptions {
  env: Record<string, string | undefined>;
  /** The OS config dir (e.g. ~/.config on Linux), from the platform layer. */
  configDir: string;
  /** Overrides everything, e.g. a `--config` flag. */
  path?: string;
}

/** Env-named files must exist (the user asked for them); a missing default file is an empty config. */
export function envNamesFile(source: ConfigSource): boolean {
  return source !== "default" && source !== "legacy-default";
}

export function resolveConfigPath(opts: ResolveConfigPathOptions): ConfigLocation {
  if (opts.path) return { path: resolve(opts.path), source: "explicit" };
  const fromEnv = opts.env.CODEX_BRIDGE_CONFIG?.trim();
  if (fromEnv) return { path: resolve(fromEnv), source: "CODEX_BRIDGE_CONFIG" };
  const legacyEnv = opts.env.CODEX_SUPERVISOR_CONFIG?.trim();
  if (legacyEnv) return { path: resolve(legacyEnv), source: "CODEX_SUPERVISOR_CONFIG" };
  const current = join(opts.configDir, CONFIG_DIR_NAME, CONFIG_FILE_NAME);
  const legacy = join(opts.configDir, LEGACY_CONFIG_DIR_NAME, CONFIG_FILE_NAME);
  if (!existsSync(current) && existsSync(legacy)) return { path: legacy, source: "legacy-default" };
  return { path: current, source: "default" };
}
