// `codex-bridge init`: writes a commented starter config with one project, never overwriting an existing file.
import { existsSync, mkdirSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { Platform } from "../../platform/types.ts";
import { resolveConfigPath } from "../config/location.ts";
import { starterConfig } from "../config/starter.ts";
import { selfArgv, selfCommand, shellWord, windowsRunLines } from "./self-command.ts";
import { Logger } from "../log.ts";

const stderr = new Logger();


export async function runInit(platform: Platform, args: string[]): Promise<number> {
  const valued = new Set(["--project-id", "--cwd", "--config"]);
  const values = new Map<string, string>();
  let force = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--force") {
      force = true;
      continue;
    }
    if (!valued.has(a)) {
      stderr.plain(`codex-bridge init: unknown option ${a}; accepted: --project-id ID, --cwd DIR, --config FILE, --force (see codex-bridge init --help)`);
      return 2;
    }
    const v = args[++i];
    if (v === undefined || v === "" || v.startsWith("--")) {
      stderr.plain(`codex-bridge init: ${a} needs a value; see codex-bridge init --help`);
      return 2;
    }
    values.set(a, v);
  }
  const projectId = values.get("--project-id") ?? "default";
  const cwdArg = values.get("--cwd") ?? process.cwd();
  const cwd = isAbsolute(cwdArg) ? cwdArg : resolve(process.cwd(), cwdArg);
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    stderr.plain(`codex-bridge init: --cwd ${cwd} is not an existing directory`);
    return 2;
  }
  const located = resolveConfigPath({ env: process.env, configDir: platform.dirs().config }).path;
  const target = values.has("--config") ? resolve(values.get("--config")!) : located;
  // A file elsewhere than where the bridge looks is only found through CODEX_BRIDGE_CONFIG.
  const pointer = target === located ? "" : `CODEX_BRIDGE_CONFIG=${shellWord(target)} `;
  if (existsSync(target) && !force) {
    stderr.plain(`codex-bridge init: ${target} already exists; pass --force to overwrite it`);
    return 1;
  }
  let text: string;
  try {
    text = starterConfig({ projectId, cwd: realpathSync(cwd) });
  } catch (err) {
    stderr.plain(`codex-bridge init: ${err instanceof Error ? err.message : String(err)}`);
    return 2;
  }
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text, { mode: 0o600 });
  // tunnel-client passes its whole environment (CONTROL_PLANE_API_KEY included) to the child; `env -u` keeps the key
  // out of the bridge where `env` exists. Windows has no `env`: there the health check warns instead.
  const windows = process.platform === "win32";
  const mcpCommand = windows ? selfCommand() : `env -u CONTROL_PLANE_API_KEY ${pointer}${selfCommand()}`;
  process.stdout.write(
    `wrote ${target} (project "${projectId}" → ${realpathSync(cwd)})\n\n` +
      `Connect the Secure MCP Tunnel (keep CONTROL_PLANE_API_KEY out of the bridge's environment):\n` +
      `  tunnel-client init --sample sample_mcp_stdio_local --profile codex-bridge --tunnel-id <TUNNEL_ID> \\\n` +
      `    --mcp-command "${mcpCommand}"\n\n` +
      (pointer && windows ? `Set CODEX_BRIDGE_CONFIG=${target} in the bridge's environment: it does not look there by default.\n` : "") +
      (windows
        ? `Then check everything with:\n${windowsRunLines(selfArgv(), "doctor").map((l) => `  ${l}\n`).join("")}`
        : `Then check everything with: ${pointer}${selfCommand()} doctor\n`),
  );
  return 0;
}
