// The config file as a running bridge sees it over time: read again when it changes on disk (looked at on the calls
// that use it, by size and modification time), projects added, removed or moved applied at once, anything else named
// as needing a restart, and a file that no longer loads said as such while the bridge keeps the config it has.
// `codex-bridge projects add/remove` edits the file and relies on this to be picked up.
import { statSync } from "node:fs";
import type { LoadedConfig } from "./load.ts";

export interface ConfigView {
  /** The config in use: the last one that loaded. */
  current: LoadedConfig;
  /** Why the file on disk does not load now, or null. */
  error: string | null;
  /** Settings changed on disk that only a restart applies (by top-level key), empty when none. */
  restartNeeded: string[];
}

function stampOf(path: string): string {
  try {
    const st = statSync(path);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return "missing";
  }
}

/** Top-level settings whose value differs, projects aside (they apply without a restart). */
function needsRestart(started: LoadedConfig["config"], now: LoadedConfig["config"]): string[] {
  const keys = new Set([...Object.keys(started), ...Object.keys(now)]);
  keys.delete("projects");
  const a = started as Record<string, unknown>;
  const b = now as Record<string, unknown>;
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();
}

export class ConfigWatch {
  private stamp: string;
  private view: ConfigView;
  private readonly started: LoadedConfig;

  constructor(
    loaded: LoadedConfig,
    /** Reads and validates the file again (throws ConfigError when it does not load). */
    private readonly reload: () => LoadedConfig,
    /** Makes a newly loaded config's projects the ones in use. */
    private readonly applyProjects: (next: LoadedConfig) => void,
  ) {
    this.started = loaded;
    this.stamp = stampOf(loaded.path);
    this.view = { current: loaded, error: null, restartNeeded: [] };
  }

  /** Looks at the file; when it changed, loads it again and applies what can be applied. Never throws. */
  refresh(): ConfigView {
    const stamp = stampOf(this.view.current.path);
    if (stamp === this.stamp) return this.view;
    this.stamp = stamp;
    let next: LoadedConfig;
    try {
      next = this.reload();
    } catch (err) {
      this.view = { ...this.view, error: err instanceof Error ? err.message : String(err) };
      return this.view;
    }
    this.applyProjects(next);
    this.view = { current: next, error: null, restartNeeded: needsRestart(this.started.config, next.config) };
    return this.view;
  }
}
