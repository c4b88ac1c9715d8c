// Start-up: spawn → `initialize` answered, for the raw app-server (its own initialize) and the bridge binary (MCP
// initialize, with a config and with none), interleaved run by run so both see the same machine; plus the bridge's
// spawn → tools/list answered, and its resident memory once idle.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { rssMiB } from "./procfs.ts";
import { nowMs } from "./stats.ts";
import type { World } from "./world.ts";

const IDLE_AFTER_MS = 2000;
const MCP_INITIALIZE = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "codex-bridge-bench", version: "1" } };
const APP_SERVER_INITIALIZE = { clientInfo: { name: "codex-bridge-bench", title: "codex-bridge-bench", version: "1" }, capabilities: { experimentalApi: true } };

interface Spawned {
  /** ms from spawn to each answered request, in order. */
  answeredMs: number[];
  rssMiB: number | null;
}

/**
 * Spawns a process, writes `requests` one after another (each once the previous one is answered, the first right
 * after the spawn as a client does), and notes when each answer line arrives. Ends it by closing stdin.
 */
async function timedSession(command: string, args: string[], env: Record<string, string>, cwd: string, requests: { method: string; params: unknown }[], settleMs = 0): Promise<Spawned> {
  const t0 = nowMs();
  const child = spawn(command, args, { env, cwd, stdio: ["pipe", "pipe", "pipe"] });
  child.stderr!.resume();
  const answeredMs: number[] = [];
  let buf = "";
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const send = (i: number) => child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", id: i + 1, method: requests[i]!.method, params: requests[i]!.params }) + "\n");
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command}: no answer within 60 s; stderr: ${stderr.slice(-500)}`)), 60_000);
    void exited.then(() => reject(new Error(`${command} exited early; stderr: ${stderr.slice(-500)}`)));
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      buf += d;
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const m = JSON.parse(line) as { id?: number };
        if (m.id === undefined) continue;
        answeredMs.push(nowMs() - t0);
        if (answeredMs.length === requests.length) {
          clearTimeout(timer);
          resolve();
        } else send(answeredMs.length);
      }
    });
    send(0);
  });
  if (settleMs) await new Promise((r) => setTimeout(r, settleMs));
  const rss = rssMiB(child.pid!);
  child.stdin!.end();
  const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(kill);
  return { answeredMs, rssMiB: rss };
}

export interface StartupFigures {
  runs: number;
  raw: { initializeMs: number[] };
  bridge: { initializeMs: number[]; toolsListMs: number[] };
  bridgeNoConfig: { initializeMs: number[] };
  idleNoConfigRssMiB: number[];
}

export async function measureStartup(world: World, binary: string, runs: number): Promise<StartupFigures> {
  const rawEnv = world.codexEnv("startup-raw");
  const bridgeEnv = world.bridgeEnv("startup");
  // No config at all: an empty HOME, nothing pointing at a config file; the state goes to the default place there.
  const home = mkdtempSync(join(world.dir, "home-noconfig-"));
  const noConfigEnv: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, CODEX_BIN: world.codexBin };
  const out: StartupFigures = { runs, raw: { initializeMs: [] }, bridge: { initializeMs: [], toolsListMs: [] }, bridgeNoConfig: { initializeMs: [] }, idleNoConfigRssMiB: [] };
  const mcp = [{ method: "initialize", params: MCP_INITIALIZE }, { method: "tools/list", params: {} }];
  // One unrecorded round first, so every recorded run starts with the executables in the page cache.
  for (let i = -1; i < runs; i++) {
    const raw = await timedSession(world.codexBin, ["app-server"], rawEnv, world.projectDir, [{ method: "initialize", params: APP_SERVER_INITIALIZE }]);
    const bridge = await timedSession(binary, ["serve"], bridgeEnv, world.projectDir, mcp);
    // Idle: 2 s after the last answer (the bridge collects its heap after 1 s without MCP traffic).
    const bare = await timedSession(binary, ["serve"], noConfigEnv, home, mcp, IDLE_AFTER_MS);
    if (i < 0) continue;
    out.raw.initializeMs.push(raw.answeredMs[0]!);
    out.bridge.initializeMs.push(bridge.answeredMs[0]!);
    out.bridge.toolsListMs.push(bridge.answeredMs[1]!);
    out.bridgeNoConfig.initializeMs.push(bare.answeredMs[0]!);
    if (bare.rssMiB !== null) out.idleNoConfigRssMiB.push(bare.rssMiB);
  }
  return out;
}
