// Runs the CLI from source as a real child process (Bun executes the TypeScript), the way a user runs the binary.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { bundledCodexBin, PROJECT_ROOT } from "../support/real-codex.ts";
import { removeTempDir, tempDir } from "../support/temp-dir.ts";

export const MAIN = join(PROJECT_ROOT, "src", "cli", "main.ts");
export const BUN = join(PROJECT_ROOT, "node_modules", ".bin", "bun");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Replaces the inherited environment entirely (plus PATH) instead of adding to it. */
  cleanEnv?: boolean;
  /** Kills the child after this long (a command that should have refused its arguments but started instead). */
  killAfterMs?: number;
  /** Written to the child's stdin, which is then closed (default: no stdin at all). */
  input?: string;
  /** A command that runs the CLI as its last arguments (e.g. unshare ... sh -c '...; exec "$@"' sh). */
  wrap?: string[];
}

export function runCli(args: string[], opts: CliOptions = {}): Promise<CliRun> {
  const base: Record<string, string | undefined> = opts.cleanEnv ? { PATH: process.env.PATH, HOME: process.env.HOME } : { ...process.env };
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...base, ...opts.env })) if (v !== undefined) env[k] = v;
  return new Promise((resolve, reject) => {
    const argv = [...(opts.wrap ?? []), BUN, MAIN, ...args];
    const child = spawn(argv[0]!, argv.slice(1), { cwd: opts.cwd ?? PROJECT_ROOT, env, stdio: [opts.input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    if (opts.input !== undefined) child.stdin!.end(opts.input);
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const killer = setTimeout(() => child.kill("SIGKILL"), opts.killAfterMs ?? 170_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A private TMPDIR for one run, so a test can check the command left nothing behind. */
export function privateTmp(): { dir: string; leftovers(): string[]; remove(): void } {
  const dir = tempDir("cli-test-");
  return {
    dir,
    leftovers: () => readdirSync(dir),
    remove: () => removeTempDir(dir),
  };
}

export function codexEnv(tmp: string): Record<string, string> {
  return { CODEX_BIN: bundledCodexBin(), TMPDIR: tmp };
}
