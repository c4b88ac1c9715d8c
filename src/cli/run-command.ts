// Running another program from a command: captured (service managers, whose answers are parsed) or in the
// foreground (Codex's own login, which talks to the person at the terminal). Tests inject their own runner instead.
import type { Platform } from "../../platform/types.ts";

export interface CommandLine {
  command: string;
  args: string[];
  /** The child's whole environment; absent: ours. */
  env?: Record<string, string>;
}

export interface Captured {
  /** null when it could not be started or ended by a signal. */
  code: number | null;
  stdout: string;
  stderr: string;
}

export type CaptureRunner = (line: CommandLine) => Promise<Captured>;
export type ForegroundRunner = (line: CommandLine, opts: { stdin: boolean }) => Promise<number>;

function ourEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
}

export function captureWith(platform: Platform): CaptureRunner {
  return async (line) => {
    let child;
    try {
      child = platform.spawn(line.command, line.args, { env: line.env ?? ourEnv() });
    } catch (err) {
      return { code: null, stdout: "", stderr: err instanceof Error ? err.message : String(err) };
    }
    let stdout = "";
    let stderr = "";
    child.onStdout((c) => (stdout += c));
    child.onStderr((c) => (stderr += c));
    child.endStdin();
    const exit = await child.exited;
    return { code: exit.code, stdout, stderr };
  };
}

/** Runs in the foreground: its output is ours, Ctrl-C stops it, and our stdin is passed on when it reads one. */
export function foregroundWith(platform: Platform): ForegroundRunner {
  return async (line, opts) => {
    const child = platform.spawn(line.command, line.args, { env: line.env ?? ourEnv() });
    child.onStdout((c) => process.stdout.write(c));
    child.onStderr((c) => process.stderr.write(c));
    // The child leads its own process group, so the terminal's Ctrl-C reaches only us: pass it on.
    const interrupt = () => child.killTree("SIGTERM");
    process.on("SIGINT", interrupt);
    const forward = (chunk: Buffer | string) => void child.write(chunk.toString()).catch(() => {});
    if (opts.stdin) {
      process.stdin.on("data", forward);
      process.stdin.once("end", () => child.endStdin());
    } else child.endStdin();
    try {
      const exit = await child.exited;
      return exit.code ?? 1;
    } finally {
      process.off("SIGINT", interrupt);
      if (opts.stdin) {
        process.stdin.off("data", forward);
        process.stdin.pause();
      }
    }
  };
}
