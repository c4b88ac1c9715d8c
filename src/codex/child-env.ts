// The environment a `codex app-server` child starts with, per profile: the bridge's own ("inherit") or only what a
// process needs to run ("minimal": the OS basics, no secrets of the bridge's); the tunnel's key, the HTTP token and the profile's env_deny never pass.
import { ALWAYS_DROPPED_ENV } from "../env-names.ts";

export type ChildEnvMode = "inherit" | "minimal";

export interface ChildEnvSpec {
  mode: ChildEnvMode;
  /** Extra names passed through from the bridge's environment in minimal mode. */
  allow?: readonly string[];
  /** Names dropped in every mode. */
  deny?: readonly string[];
  /** The profile's own CODEX_HOME; absent: whatever the bridge has (or Codex's default home). */
  codexHome?: string;
}

/** What a process needs to start and print text on Windows; without SYSTEMROOT not even DNS works there. */
const WINDOWS_ESSENTIALS = ["SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "TEMP", "TMP"];

const MINIMAL_KEPT = ["HOME", "CODEX_HOME", "TMPDIR", "LANG", "LANGUAGE"];

/** The PATH of a minimal child: the system's own directories, nothing the user added. */
export function minimalPath(platform: NodeJS.Platform, env: Record<string, string | undefined>): string {
  if (platform === "win32") {
    const root = env.SystemRoot ?? env.SYSTEMROOT ?? "C:\\Windows";
    return [`${root}\\System32`, root, `${root}\\System32\\Wbem`, `${root}\\System32\\WindowsPowerShell\\v1.0`].join(";");
  }
  return "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
}

export function appServerEnv(
  base: Record<string, string | undefined>,
  spec: ChildEnvSpec = { mode: "inherit" },
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  // Windows spells names in any case (Path, SystemRoot): compare them upper-cased there.
  const norm = (name: string) => (platform === "win32" ? name.toUpperCase() : name);
  const dropped = new Set([...ALWAYS_DROPPED_ENV, ...(spec.deny ?? [])].map(norm));
  const kept = new Set([...MINIMAL_KEPT, ...(platform === "win32" ? WINDOWS_ESSENTIALS : []), ...(spec.allow ?? [])].map(norm));
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || dropped.has(norm(name))) continue;
    if (spec.mode === "inherit" || kept.has(norm(name)) || norm(name).startsWith("LC_")) env[name] = value;
  }
  if (spec.mode === "minimal" && !(spec.allow ?? []).some((n) => norm(n) === norm("PATH"))) {
    for (const name of Object.keys(env)) if (norm(name) === "PATH") delete env[name];
    env.PATH = minimalPath(platform, base);
  }
  if (spec.codexHome !== undefined) {
    for (const name of Object.keys(env)) if (norm(name) === "CODEX_HOME") delete env[name];
    env.CODEX_HOME = spec.codexHome;
  }
  return env;
}
