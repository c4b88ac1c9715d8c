// Runs a TypeScript fixture as a real child process of the runtime the tests run in:
// Bun and Deno execute the source themselves; under Node the fixture is bundled with esbuild first (Node 20 cannot run .ts).
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";
const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";
/** What `deno run` needs for the store: the same grants as npm run test:deno (libsql is an FFI addon). */
export const DENO_RUN_FLAGS = ["--no-check", "--allow-read", "--allow-write", "--allow-env", "--allow-ffi", "--allow-sys", "--allow-run"];

export interface TsRunner {
  command: string;
  args: string[];
  cleanup(): void;
}

export async function prepareTsRunner(fixture: string): Promise<TsRunner> {
  if (isBun) return { command: process.execPath, args: [fixture], cleanup: () => {} };
  if (isDeno) return { command: process.execPath, args: ["run", ...DENO_RUN_FLAGS, fixture], cleanup: () => {} };
  const dir = mkdtempSync(join(tmpdir(), "cb-fixture-"));
  // The bundle loads libsql with a dynamic import; a node_modules link beside it lets Node resolve it.
  symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"), "dir");
  const outfile = join(dir, "fixture.mjs");
  const spec = "esbuild";
  const esbuild = (await import(spec)) as typeof import("esbuild");
  await esbuild.build({
    entryPoints: [fixture],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "silent",
  });
  return { command: process.execPath, args: [outfile], cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return { ...env, ...extra };
}
