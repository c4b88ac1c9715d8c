// Test support: the person commands (`codex-bridge tasks|watch|pending|approve…`) run as real child processes against
// a running bridge, the way a person at another terminal runs them.
import { spawn, type ChildProcess } from "node:child_process";
import { bridgeCommand } from "../support/bridge-process.ts";
import { PROJECT_ROOT } from "../support/real-codex.ts";

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function envFor(statePath: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  env.CODEX_BRIDGE_STATE = statePath;
  return env;
}

export function personCli(statePath: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  const run = bridgeCommand(args);
  return new Promise((resolve, reject) => {
    const child = spawn(run.command, run.args, { cwd: PROJECT_ROOT, env: { ...envFor(statePath), ...extraEnv }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A `watch` left running; stop() sends Ctrl-C and returns everything it printed. */
export interface Watcher {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  stop(): Promise<Run>;
}

export function startWatch(statePath: string, args: string[] = []): Watcher {
  const run = bridgeCommand(["watch", ...args]);
  const child = spawn(run.command, run.args, { cwd: PROJECT_ROOT, env: envFor(statePath), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) child.kill("SIGINT");
      const code = await closed;
      return { code, stdout, stderr };
    },
  };
}
