// What a service definition is built from on this machine: tunnel-client and a stable bridge as absolute paths, the
// Codex and config paths the bridge needs without a shell, a 0600 key file (its path only), tunnel-profile warnings.
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { resolveCodex } from "../../app/assemble.ts";
import type { Platform } from "../../../platform/types.ts";
import type { ServiceOs } from "./spec.ts";

export class ServiceSetupError extends Error {}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** --tunnel-client, else the first tunnel-client on PATH; always absolute. */
export function findTunnelClient(given: string | undefined, env: Record<string, string | undefined>, os: ServiceOs): string {
  if (given !== undefined) {
    const p = resolve(given);
    if (!isFile(p)) throw new ServiceSetupError(`--tunnel-client ${p} is not a file`);
    return p;
  }
  const names = os === "win32" ? ["tunnel-client.exe"] : ["tunnel-client"];
  for (const dir of (env.PATH ?? env.Path ?? "").split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    for (const n of names) if (isFile(join(dir, n))) return join(dir, n);
  }
  throw new ServiceSetupError("tunnel-client was not found on PATH; install it or pass --tunnel-client FILE");
}

/** A service outlives the shell it was installed from: a bridge in a temporary or npx cache directory would vanish. */
export function checkStableBridge(argv: string[]): void {
  let tmp = tmpdir();
  try {
    tmp = realpathSync(tmp);
  } catch {
    // keep it as it is
  }
  for (const part of argv) {
    let real = part;
    try {
      real = realpathSync(part);
    } catch {
      // checked as written
    }
    if (/[\\/]_npx[\\/]|^\/\$bunfs/.test(real) || real.startsWith(tmp + "/") || real.startsWith(tmp + "\\")) {
      throw new ServiceSetupError(`${part} is a temporary copy of codex-bridge; install it for good (e.g. ~/.local/bin/codex-bridge) and run service install from there`);
    }
  }
}

/** The key file: absolute, a regular file, and readable by its owner only (checked where the system has modes). */
export function checkKeyFile(given: string, os: ServiceOs): string {
  const p = resolve(given);
  let st;
  try {
    st = statSync(p);
  } catch {
    throw new ServiceSetupError(`--key-file ${p} does not exist; write only the control-plane key into it, then chmod 600 it`);
  }
  if (!st.isFile()) throw new ServiceSetupError(`--key-file ${p} is not a file`);
  if (os !== "win32" && (st.mode & 0o077) !== 0) {
    throw new ServiceSetupError(`--key-file ${p} can be read by others (mode ${(st.mode & 0o777).toString(8)}); run chmod 600 ${p}`);
  }
  return p;
}

/** What the bridge reads from its environment and cannot find on its own under a service manager. */
export function bridgeEnvFor(platform: Platform, env: Record<string, string | undefined>, configBin: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  const codex = resolveCodex(env, configBin);
  if (codex.bin) out.CODEX_BIN = codex.bin;
  for (const [name, legacy] of [["CODEX_BRIDGE_CONFIG", "CODEX_SUPERVISOR_CONFIG"], ["CODEX_BRIDGE_STATE", "CODEX_SUPERVISOR_STATE"]] as const) {
    const v = env[name] || env[legacy];
    if (v) out[name] = v === ":memory:" ? v : resolve(v);
  }
  return out;
}

/** Where tunnel-client looks for a named profile, in its own order. */
function tunnelProfilePath(env: Record<string, string | undefined>, home: string, profile: string): string {
  const dir = env.TUNNEL_CLIENT_PROFILE_DIR || (env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, "tunnel-client") : join(home, ".config", "tunnel-client"));
  return join(dir, `${profile}.yaml`);
}

/** Warnings only: tunnel-client may know better, but a service that cannot start should not be a surprise. */
export function tunnelProfileNotes(env: Record<string, string | undefined>, home: string, profile: string, keyFile: string | undefined): string[] {
  const path = tunnelProfilePath(env, home, profile);
  if (!existsSync(path)) {
    return [`no tunnel-client profile ${profile} at ${path}: create it first with the tunnel-client init line \`codex-bridge init\` printed`];
  }
  if (keyFile) return [];
  const apiKey = /^\s*api_key:\s*["']?([^"'\s#]*)/m.exec(readFileSync(path, "utf8"))?.[1] ?? "";
  if (apiKey === "" || apiKey.startsWith("env:")) {
    return [
      `tunnel-client profile ${profile} takes the control-plane key from the environment (${apiKey || "CONTROL_PLANE_API_KEY"}), which the service does not have: ` +
        "put the key alone in a file, chmod 600 it and install again with --key-file FILE",
    ];
  }
  return [];
}
