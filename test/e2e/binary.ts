// Support for end-to-end tests of the compiled executable: where it is, and the bare surroundings a user's
// machine gives it (a scratch cwd with no node_modules above it, an environment built from nothing).
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, parse } from "node:path";
import { z } from "zod";
import { PROJECT_ROOT } from "../support/real-codex.ts";
import { tempDir } from "../support/temp-dir.ts";

export const BINARY = join(PROJECT_ROOT, "dist-binaries", "codex-bridge-linux-x64");
export const BUILD_INFO_PATH = join(PROJECT_ROOT, "dist-binaries", "BUILD-INFO.json");
export const onLinuxX64 = process.platform === "linux" && process.arch === "x64";

const ReleaseInfoSchema = z.object({ version: z.string(), fingerprint: z.string().regex(/^[0-9a-f]{64}$/) });
export type ReleaseInfo = z.infer<typeof ReleaseInfoSchema>;

/** The built binary and its BUILD-INFO.json, or an error that says how to build them. */
export function requireBinary(): { binary: string; release: ReleaseInfo } {
  if (!existsSync(BINARY) || !existsSync(BUILD_INFO_PATH)) {
    throw new Error(`${BINARY} was not built: run npm run build -- --target linux-x64`);
  }
  return { binary: BINARY, release: ReleaseInfoSchema.parse(JSON.parse(readFileSync(BUILD_INFO_PATH, "utf8"))) };
}

/** PATH of this process without any node_modules entry (npm run and vitest add several). */
export function pathWithoutNodeModules(): string {
  return (process.env.PATH ?? "/usr/bin:/bin")
    .split(":")
    .filter((p) => p && !p.split("/").includes("node_modules"))
    .join(":");
}

/** True when no ancestor of `dir` (itself included) has a node_modules directory. */
export function noNodeModulesAbove(dir: string): boolean {
  let d = dir;
  const root = parse(d).root;
  for (;;) {
    if (existsSync(join(d, "node_modules"))) return false;
    if (d === root) return true;
    d = dirname(d);
  }
}

/** A fresh real directory under the OS temp dir (removed after the test or file), checked to have no node_modules on its path. */
export function scratchDir(prefix: string): string {
  const dir = tempDir(`codex-bridge-e2e-${prefix}-`);
  if (!noNodeModulesAbove(dir)) throw new Error(`${dir} has a node_modules directory above it; set TMPDIR elsewhere`);
  return dir;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the binary to completion with exactly `env` (nothing inherited) from `cwd`. */
export function runBinary(args: string[], opts: { env: Record<string, string>; cwd: string; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(BINARY, args, { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 90_000);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
