// The part of assembling a bridge that can refuse to start: the config, then the state database (locked against a
// second bridge, migrated). Kept apart from the rest so `serve` can know it will start before it loads the rest.
import type { Platform } from "../../platform/types.ts";
import type { Logger } from "../log.ts";
import { ConfigError, loadConfig, type LoadedConfig } from "../config/load.ts";
import { resolveStatePath } from "../store/location.ts";
import { MIGRATIONS } from "../store/migrations.ts";
import { openStateDatabase, type OpenedStore } from "../store/open.ts";

export interface OpenedState {
  config: LoadedConfig;
  store: OpenedStore;
}

export interface OpenStateOptions {
  env: Record<string, string | undefined>;
  cwd: string;
  lockWaitMs?: number;
  /** How much of the state file is checked before use (doctor checks all of it). */
  integrity?: "quick" | "full";
}

export async function openBridgeState(platform: Platform, opts: OpenStateOptions): Promise<OpenedState> {
  const dirs = platform.dirs();
  const config = loadConfig({ env: opts.env, configDir: dirs.config });
  const state = resolveStatePath({ env: opts.env, dataDir: dirs.data, cwd: opts.cwd });
  const store = await openStateDatabase(platform, state.path, MIGRATIONS, { lockWaitMs: opts.lockWaitMs, integrity: opts.integrity });
  return { config, store };
}

/** The config and state of a server command, or null after saying on stderr (through the logger) why it cannot start. */
export async function openStateForServe(platform: Platform, logger: Logger): Promise<OpenedState | null> {
  try {
    return await openBridgeState(platform, { env: process.env, cwd: process.cwd() });
  } catch (err) {
    logger.say("error", "startup_failed", describeStartupError(err));
    return null;
  }
}

export function describeStartupError(err: unknown): string {
  if (err instanceof ConfigError) return err.message;
  return err instanceof Error ? err.message : String(err);
}
