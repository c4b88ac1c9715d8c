// Test support for the hosts tests: the bridge under test (the compiled binary when built, as a user runs it) on an
// offline setup whose own Codex asks one approval, each host's installation, a host process run to its end, and the
// report of what each host gave its model.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { prepareBridge, BUN, MAIN, type BridgeSetup } from "../support/bridge-process.ts";
import { PROJECT_ROOT } from "../support/real-codex.ts";

export const APPROVAL_COMMAND = "echo approved > approved.txt";
export const INNER_FINAL = "Done: approved.txt is written.";

/** Where `.ci/run` installs Claude Code and Gemini CLI (`npm ci` in .ci/hosts, pinned by its lock file), or HOSTS_PREFIX. */
export const HOSTS_PREFIX = process.env.HOSTS_PREFIX ?? join(PROJECT_ROOT, ".ci", "hosts");

export interface BridgeUnderTest {
  setup: BridgeSetup;
  command: string;
  args: string[];
  /** What the host must pass to the bridge (its config, state, Codex and Codex home); nothing else. */
  env: Record<string, string>;
  approved(): boolean;
}

/** The compiled binary (CODEX_BRIDGE_BIN, else dist-binaries/codex-bridge-linux-x64), or the source under Bun. */
function bridgeExecutable(): { command: string; args: string[] } {
  const built = process.env.CODEX_BRIDGE_BIN ?? join(PROJECT_ROOT, "dist-binaries", "codex-bridge-linux-x64");
  return existsSync(built) ? { command: built, args: [] } : { command: BUN, args: [MAIN] };
}

/** The bridge; `approvals` is the profile's setting (who answers Codex's approval). */
export async function bridgeUnderTest(approvals: "supervisor" | "person" = "supervisor"): Promise<BridgeUnderTest> {
  const setup = await prepareBridge({ approvalPolicy: "on-request", extraConfig: `approvals = "${approvals}"` });
  setup.provider.enqueue(
    { kind: "output", items: [{ type: "exec", cmd: APPROVAL_COMMAND, sandboxPermissions: "require_escalated", justification: "write approved.txt" }] },
    { kind: "output", items: [{ type: "message", text: INNER_FINAL }] },
  );
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(setup.env)) if (v !== undefined) env[k] = v;
  return { setup, ...bridgeExecutable(), env, approved: () => existsSync(join(setup.projectDir, "approved.txt")) && readFileSync(join(setup.projectDir, "approved.txt"), "utf8") === "approved\n" };
}

export interface HostRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a host to its end (killed after `timeoutMs`). */
export function runHost(command: string, args: string[], opts: { env: Record<string, string>; cwd: string; timeoutMs?: number }): Promise<HostRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 240_000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Every text inside a JSON value (tool results come wrapped differently by each host). */
export function textsIn(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) textsIn(x, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) textsIn(x, out);
  return out;
}

/** The per-host line the hosts test prints: the characters of tool definitions and instructions the model received. */
export function sizeLine(host: string, toolChars: number, instructionChars: number, tools: number): string {
  return `[hosts] ${host}: ${tools} tools, tool definitions + server instructions = ${toolChars + instructionChars} characters (${toolChars} + ${instructionChars})`;
}
