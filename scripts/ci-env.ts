// Writes a throwaway, healthy bridge environment for CI smoke checks (deno doctor, MCP Inspector):
// one Git-free project directory, a config naming it, a state path, and an isolated CODEX_HOME whose
// provider is a loopback mock URL (doctor and tools/list never send a model request, so nothing needs to listen).
// Usage: bun scripts/ci-env.ts DIR   → prints KEY=VALUE lines (shell-safe single-quoted) to source.
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { findBundledCodex } from "../src/codex/locate.ts";
import { isolatedCodexEnv, writeIsolatedCodexHome } from "../src/codex/isolated-home.ts";

const ROOT = resolve(import.meta.dirname, "..");

function main(argv: string[]): number {
  const dirArg = argv[0];
  if (!dirArg) {
    process.stderr.write("usage: bun scripts/ci-env.ts DIR\n");
    return 2;
  }
  const codexBin = findBundledCodex(ROOT);
  if (!codexBin) {
    process.stderr.write("ci-env: the native codex of the @openai/codex dev dependency is missing; run npm ci\n");
    return 1;
  }
  mkdirSync(dirArg, { recursive: true });
  const dir = realpathSync(dirArg);
  const project = join(dir, "project");
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, "README.md"), "# CI smoke project\n");
  const configPath = join(dir, "config.toml");
  writeFileSync(
    configPath,
    [`[projects.ci]`, `cwd = ${JSON.stringify(project)}`, ``, `[profiles.default]`, `approval_policy = "on-request"`, ``].join("\n"),
  );
  const home = writeIsolatedCodexHome({ dir: join(dir, "codex-home"), providerBaseUrl: "http://127.0.0.1:9/v1" });
  const env = isolatedCodexEnv({ PATH: process.env.PATH ?? "/usr/bin:/bin" }, { codexHome: home.codexHome });
  const vars: Record<string, string> = {
    CODEX_HOME: env.CODEX_HOME!,
    HOME: env.HOME!,
    CODEX_BIN: codexBin,
    CODEX_BRIDGE_CONFIG: configPath,
    CODEX_BRIDGE_STATE: join(dir, "state.sqlite3"),
  };
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  for (const [k, v] of Object.entries(vars)) process.stdout.write(`${k}=${quote(v)}\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
