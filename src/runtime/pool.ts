// One managed app-server per distinct Codex home and child environment: profiles that share both share a child,
// a profile with its own codex_home gets its own. Each child starts when first used (CodexRuntime is lazy).
import { join } from "node:path";
import type { AppServerClient } from "../codex/client.ts";
import { appServerEnv } from "../codex/child-env.ts";
import type { ProfileSpec } from "../config/settings.ts";
import type { CodexRuntime } from "./app-server.ts";

export interface RuntimeSlot {
  /** The profiles this app-server serves. */
  profiles: string[];
  /** The CODEX_HOME it runs with (Codex's default ~/.codex when the bridge has none). */
  home: string;
  /** true when a profile set codex_home: a home apart from the user's own. */
  isolated: boolean;
  runtime: CodexRuntime;
}

export interface RuntimePoolOptions {
  profiles: Record<string, ProfileSpec>;
  /** The bridge's own environment, from which each child's is derived. */
  env: Record<string, string | undefined>;
  /** The user's home directory, to name Codex's default home. */
  userHome: string;
  make(env: Record<string, string>, shared: { home: string; start: boolean } | undefined): CodexRuntime;
}

const DEFAULT_PROFILE = "default";

type EnvSettings = Pick<ProfileSpec, "codex_home" | "child_env" | "env_allow" | "env_deny" | "runtime" | "start_shared">;
const INHERIT: EnvSettings = { child_env: "inherit", env_allow: [], env_deny: [], runtime: "spawn", start_shared: false };

export class RuntimePool {
  private readonly slots: RuntimeSlot[] = [];
  private readonly byProfile = new Map<string, RuntimeSlot>();

  constructor(opts: RuntimePoolOptions) {
    const byEnv = new Map<string, RuntimeSlot>();
    const profiles: [string, EnvSettings][] = Object.entries(opts.profiles);
    if (!opts.profiles[DEFAULT_PROFILE]) profiles.unshift([DEFAULT_PROFILE, INHERIT]);
    for (const [id, p] of profiles) {
      const env = appServerEnv(opts.env, { mode: p.child_env, allow: p.env_allow, deny: p.env_deny, codexHome: p.codex_home });
      // Equal environments (home included) and the same runtime behave alike, so they share one app-server.
      const key = JSON.stringify([p.runtime, p.start_shared, Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
      let slot = byEnv.get(key);
      if (!slot) {
        const home = env.CODEX_HOME ?? join(opts.userHome, ".codex");
        const shared = p.runtime === "shared" ? { home, start: p.start_shared } : undefined;
        slot = { profiles: [], home, isolated: false, runtime: opts.make(env, shared) };
        byEnv.set(key, slot);
        this.slots.push(slot);
      }
      slot.profiles.push(id);
      if (p.codex_home !== undefined) slot.isolated = true;
      this.byProfile.set(id, slot);
    }
  }

  /** The app-server of the default profile: models, threads and the runtime tool use it. */
  get default(): CodexRuntime {
    return this.byProfile.get(DEFAULT_PROFILE)!.runtime;
  }

  /** The app-server a profile's tasks run on; an unknown profile gets the default one. */
  forProfile(profileId: string): CodexRuntime {
    return (this.byProfile.get(profileId) ?? this.byProfile.get(DEFAULT_PROFILE)!).runtime;
  }

  /** The live client with this connection id, whichever home it belongs to; null once that connection is gone. */
  clientFor(connectionId: string | null): AppServerClient | null {
    if (!connectionId) return null;
    for (const s of this.slots) if (s.runtime.current?.connectionId === connectionId) return s.runtime.current;
    return null;
  }

  all(): readonly RuntimeSlot[] {
    return this.slots;
  }

  /** Restarts the default app-server and every other one that is running; the others start when next used. */
  async restart(): Promise<void> {
    for (const s of this.slots) if (s.runtime === this.default || s.runtime.current) await s.runtime.restart();
  }

  /** Kills every running app-server (the default one restarted at once, the others when next used), saying why. */
  async forceRestart(why: string): Promise<void> {
    for (const s of this.slots) {
      if (s.runtime === this.default) await s.runtime.forceRestart(why);
      else if (s.runtime.current) await s.runtime.forceRestart(why);
    }
  }

  async stop(graceMs?: number): Promise<void> {
    await Promise.all(this.slots.map((s) => s.runtime.stop(graceMs)));
  }
}
