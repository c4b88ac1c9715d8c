// The bytecode layout of the executables: a training run of a host build records which functions a start-up runs,
// and every target is then compiled with those laid out first, so a bridge touches fewer pages of its embedded code.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** The session a client opens with: what an idle bridge has run by the time it waits for the first tool call. */
const TRAINING_REQUESTS = [
  { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "codex-bridge-build", version: "0" } } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
];
const TRAINING_DEADLINE_MS = 60_000;

/**
 * Runs `binary serve` with no config in a scratch home, opens an MCP session, lists the tools and closes stdin; the
 * executable writes the functions it ran, in order, to the returned file (Bun's BUN_BYTECODE_ORDER_OUT). Returns
 * null with the reason when the run failed: the build then goes on without a layout, which changes memory only.
 */
export async function recordStartupOrder(binary: string, workDir: string): Promise<{ file: string } | { error: string }> {
  const home = fs.mkdtempSync(path.join(workDir, "order-home-"));
  const file = path.join(workDir, "bytecode-order.txt");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    USERPROFILE: home,
    APPDATA: home,
    LOCALAPPDATA: home,
    BUN_BYTECODE_ORDER_OUT: file,
  };
  const child = spawn(binary, ["serve"], { cwd: home, env, stdio: ["pipe", "pipe", "ignore"] });
  const send = (i: number) => child.stdin.write(`${JSON.stringify(TRAINING_REQUESTS[i])}\n`);
  const outcome = await new Promise<string | null>((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve(`no answer within ${TRAINING_DEADLINE_MS / 1000} s`);
    }, TRAINING_DEADLINE_MS);
    let buffered = "";
    let answers = 0;
    child.on("error", (err) => {
      clearTimeout(timer);
      resolve(err.message);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve(answers === 2 ? null : `exited (${code}) before answering tools/list`);
    });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
        buffered = buffered.slice(nl + 1);
        answers++;
        if (answers === 1) {
          send(1);
          send(2);
        } else if (answers === 2) child.stdin.end();
      }
    });
    send(0);
  });
  if (outcome) return { error: outcome };
  if (!fs.existsSync(file) || fs.statSync(file).size === 0) return { error: "the run wrote no order file" };
  return { file };
}
