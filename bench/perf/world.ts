// The benchmark's offline world: the loopback mock model, isolated Codex homes, a temporary Git project, a bridge
// config and state, the compiled bridge binary (spawned through the MCP SDK's stdio client) and the raw app-server.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { findBundledCodex } from "../../src/codex/locate.ts";
import { isolatedCodexEnv, writeIsolatedCodexHome } from "../../src/codex/isolated-home.ts";
import { startMockProvider, type MockProvider } from "../../src/selftest/mock-provider/index.ts";
import { initializeAppServer, JsonlPeer } from "./jsonl-peer.ts";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BINARY = join(ROOT, "dist-binaries", "codex-bridge-linux-x64");
const BUN = join(ROOT, "node_modules", ".bin", "bun");

/** Newest modification time under the given roots (source files that end up in the binary). */
function newestSource(paths: string[]): number {
  let newest = 0;
  const visit = (p: string) => {
    const st = statSync(p);
    if (st.isDirectory()) for (const e of readdirSync(p)) visit(join(p, e));
    else newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of paths) if (existsSync(p)) visit(p);
  return newest;
}

/** The linux-x64 binary of this tree, built first when it is missing or older than the sources. */
export function ensureBinary(log: (s: string) => void, build: boolean): string {
  if (process.platform !== "linux" || process.arch !== "x64") throw new Error("the performance benchmark drives the linux-x64 binary; run it on linux x64");
  const stale = !existsSync(BINARY) || statSync(BINARY).mtimeMs < newestSource(["src", "platform", "package.json", "build.ts"].map((p) => join(ROOT, p)));
  if (!stale) return BINARY;
  if (!build) throw new Error(`${BINARY} is missing or older than the sources: run npm run build -- --target linux-x64 (or drop --no-build)`);
  log("building dist-binaries/codex-bridge-linux-x64 (npm run build -- --target linux-x64) ...");
  const r = spawnSync(BUN, ["build.ts", "--target", "linux-x64"], { cwd: ROOT, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`build failed:\n${r.stdout}${r.stderr}`);
  return BINARY;
}

export function codexBinary(): string {
  const bin = findBundledCodex(ROOT);
  if (!bin) throw new Error("the @openai/codex dev-dependency's native binary is missing: run npm ci");
  return bin;
}

export interface World {
  dir: string;
  provider: MockProvider;
  codexBin: string;
  projectDir: string;
  /** A fresh isolated environment (own CODEX_HOME and HOME) for one process; `name` keeps them apart. */
  codexEnv(name: string): Record<string, string>;
  /** The environment of a bridge with the standard config (project "demo") and its own state file. */
  bridgeEnv(name: string, extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

function git(cwd: string, args: string[]): void {
  const r = spawnSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@codex-bridge.invalid", "-c", "commit.gpgsign=false", ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
}

export async function openWorld(): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), "codex-bridge-bench-"));
  const provider = await startMockProvider();
  const projectDir = join(dir, "project");
  mkdirSync(projectDir);
  writeFileSync(join(projectDir, "README.md"), "# bench project\n");
  git(projectDir, ["init", "-q", "-b", "main"]);
  git(projectDir, ["add", "-A"]);
  git(projectDir, ["commit", "-q", "-m", "initial"]);
  const codexBin = codexBinary();
  const codexEnv = (name: string) => {
    const home = join(dir, `codex-home-${name}`);
    writeIsolatedCodexHome({ dir: home, providerBaseUrl: provider.baseUrl, approvalPolicy: "never" });
    return isolatedCodexEnv(process.env, { codexHome: home });
  };
  return {
    dir,
    provider,
    codexBin,
    projectDir,
    codexEnv,
    bridgeEnv(name, extra = {}) {
      const config = join(dir, `bridge-${name}.toml`);
      writeFileSync(config, `[projects.demo]\ncwd = ${JSON.stringify(projectDir)}\n\n[profiles.default]\napproval_policy = "never"\nsandbox_type = "workspace-write"\n`);
      return { ...codexEnv(name), CODEX_BRIDGE_CONFIG: config, CODEX_BRIDGE_STATE: join(dir, `state-${name}`, "state.sqlite3"), CODEX_BIN: codexBin, ...extra };
    },
    async close() {
      await provider.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The compiled bridge as an MCP client sees it: spawned over stdio by the SDK's client transport. */
export interface BridgeClient {
  client: Client;
  pid: number;
  stderr(): string;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function spawnBridge(binary: string, env: Record<string, string>, cwd: string): Promise<BridgeClient> {
  const transport = new StdioClientTransport({ command: binary, args: ["serve"], env, cwd, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const client = new Client({ name: "codex-bridge-bench", version: "1" });
  await client.connect(transport);
  const pid = transport.pid ?? -1;
  return {
    client,
    pid,
    stderr: () => stderr,
    call: async (name, args) => {
      const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
      if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content).slice(0, 500)}`);
      return r;
    },
    close: () => client.close(),
  };
}

/** The raw app-server, initialized the way the bridge initializes it. */
export async function spawnRawAppServer(codexBin: string, env: Record<string, string>, cwd: string): Promise<JsonlPeer> {
  const peer = new JsonlPeer(codexBin, ["app-server"], { env, cwd });
  await initializeAppServer(peer);
  return peer;
}

export const structured = (r: CallToolResult): Record<string, unknown> => (r.structuredContent ?? {}) as Record<string, unknown>;
