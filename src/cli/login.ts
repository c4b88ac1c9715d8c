// `codex-bridge login|logout [--profile NAME]`: Codex's own login (or logout) run in a profile's codex_home, so the
// profile's app-server has its own credentials. The user's default Codex home is never touched.
import { mkdirSync } from "node:fs";
import type { Platform } from "../../platform/types.ts";
import { resolveCodex } from "../app/assemble.ts";
import { ConfigError, loadConfig } from "../config/load.ts";
import { DEFAULT_PROFILE_ID } from "../config/schema.ts";
import { foregroundWith, type CommandLine, type ForegroundRunner } from "./run-command.ts";

export type LoginMethod = "device" | "browser" | "api-key";

export interface AccountDeps {
  env: Record<string, string | undefined>;
  run: ForegroundRunner;
  err: (text: string) => void;
}

/**
 * The Codex command for this home: only CODEX_HOME differs from the caller's environment, so Codex finds the same
 * proxies, certificates and browser the user has, and writes its login into that home alone.
 */
export function accountCommand(codexBin: string, codexHome: string, action: "login" | "logout", method: LoginMethod, env: Record<string, string | undefined>): CommandLine {
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && k !== "CODEX_HOME" && !(process.platform === "win32" && k.toUpperCase() === "CODEX_HOME")) childEnv[k] = v;
  childEnv.CODEX_HOME = codexHome;
  const args = action === "logout" ? ["logout"] : method === "device" ? ["login", "--device-auth"] : method === "browser" ? ["login"] : ["login", "--with-api-key"];
  return { command: codexBin, args, env: childEnv };
}

const USAGE = {
  login: "codex-bridge login [--profile NAME] [--browser | --with-api-key]",
  logout: "codex-bridge logout [--profile NAME]",
};

export async function runAccount(platform: Platform, action: "login" | "logout", args: string[], deps: Partial<AccountDeps> = {}): Promise<number> {
  const env = deps.env ?? process.env;
  const err = deps.err ?? ((t: string) => void process.stderr.write(t + "\n"));
  const run = deps.run ?? foregroundWith(platform);
  let profileId = DEFAULT_PROFILE_ID;
  const methods = new Set<LoginMethod>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--profile") {
      const v = args[++i];
      if (!v || v.startsWith("--")) return usage(err, action, "--profile needs a profile name");
      profileId = v;
    } else if (action === "login" && (a === "--browser" || a === "--with-api-key")) methods.add(a === "--browser" ? "browser" : "api-key");
    else return usage(err, action, `unknown option ${a}`);
  }
  if (methods.size > 1) return usage(err, action, "--browser and --with-api-key exclude each other");
  const method: LoginMethod = [...methods][0] ?? "device";
  let profiles;
  let configBin: string | undefined;
  try {
    const loaded = loadConfig({ env, configDir: platform.dirs().config });
    profiles = loaded.config.profiles;
    configBin = loaded.config.codex.bin;
  } catch (e) {
    err(`codex-bridge ${action}: ${e instanceof ConfigError ? e.message : String(e)}`);
    return 1;
  }
  const profile = profiles[profileId];
  if (!profile) return usage(err, action, `profile "${profileId}" is not configured; configured: ${Object.keys(profiles).join(", ")}`);
  if (!profile.codex_home) {
    err(
      `codex-bridge ${action}: profile "${profileId}" has no codex_home, so it uses your own Codex home, which this command never touches. ` +
        `Set codex_home = "/absolute/dir" in [profiles.${profileId}] for a separate login, or run \`codex ${action}\` yourself.`,
    );
    return 1;
  }
  const codex = resolveCodex(env, configBin);
  if (!codex.bin) {
    err(`codex-bridge ${action}: ${codex.error}`);
    return 1;
  }
  // Codex refuses a CODEX_HOME that does not exist; it holds a login, so only the user may read it.
  mkdirSync(profile.codex_home, { recursive: true, mode: 0o700 });
  err(`codex-bridge ${action}: profile "${profileId}", CODEX_HOME=${profile.codex_home}`);
  const code = await run(accountCommand(codex.bin, profile.codex_home, action, method, env), { stdin: method === "api-key" });
  if (code === 0) err(`codex-bridge ${action}: done. \`codex-bridge doctor\` shows each profile's login state.`);
  else err(`codex-bridge ${action}: codex ${action} ended with exit status ${code}.`);
  return code;
}

function usage(err: (t: string) => void, action: "login" | "logout", problem: string): number {
  err(`codex-bridge ${action}: ${problem}; usage: ${USAGE[action]}`);
  return 2;
}
