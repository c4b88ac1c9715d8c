import { existsSync, mkdirSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { Platform } from "../../platform/types.ts";
import { resolveConfigPath } from "../config/location.ts";
import { starterConfig } from "../config/starter.ts";

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/** The command a tunnel-client should spawn: this binary, or node + the bundle when run as a script. */
export function selfCommand(): string {
  const exe = process.execPath;
  const script = process.argv[1];
  const isRuntime = /(^|[\\/])(node|bun|deno)(\.exe)?$/i.test(exe);
  if (isRuntime && script && !script.startsWith("/$bunfs")) return `${exe} ${resolve(script)}`;
  return exe;
}

export async function runInit(platform: Platform, args: string[]): Promise<number> {
  const known = new Set(["--project-id", "--cwd", "--force", "--config"]);
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!known.has(a)) {
      process.stderr.write(`codex-bridge init: unknown option ${a}; see codex-bridge init --help\n`);
      return 2;
    }
    if (a !== "--force") i++;
  }
  const projectId = flag(args, "--project-id") ?? "default";
  const cwdArg = flag(args, "--cwd") ?? process.cwd();
  const cwd = isAbsolute(cwdArg) ? cwdArg : resolve(process.cwd(), cwdArg);
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    process.stderr.write(`codex-bridge init: --cwd ${cwd} is not an existing directory\n`);
    return 2;
  }
  const target = flag(args, "--config") ?? resolveConfigPath({ env: process.env, configDir: platform.dirs().config }).path;
  if (existsSync(target) && !args.includes("--force")) {
    process.stderr.write(`codex-bridge init: ${target} already exists; pass --force to overwrite it\n`);
    return 1;
  }
  let text: string;
  try {
    text = starterConfig({ projectId, cwd: realpathSync(cwd) });
  } catch (err) {
    process.stderr.write(`codex-bridge init: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text, { mode: 0o600 });
  process.stdout.write(
    `wrote ${target} (project "${projectId}" → ${realpathSync(cwd)})\n\n` +
      `Connect the Secure MCP Tunnel (keep CONTROL_PLANE_API_KEY out of the bridge's environment):\n` +
      `  tunnel-client init --sample sample_mcp_stdio_local --profile codex-bridge --tunnel-id <TUNNEL_ID> \\\n` +
      `    --mcp-command "env -u CONTROL_PLANE_API_KEY ${selfCommand()}"\n\n` +
      `Then check everything with: ${selfCommand()} doctor\n`,
  );
  return 0;
}
