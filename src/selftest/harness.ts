// A complete, throwaway bridge for demo, relay-fixture, benchmarks and tests: a temporary Git project and config,
// an isolated CODEX_HOME talking to the built-in loopback mock model, and an MCP client connected in-process to the
// bridge's own MCP server. Everything it creates is removed by close().
import { connectMcp } from "../mcp/delivery.ts";
import { mkdirSync, mkdtempSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Platform } from "../../platform/types.ts";
import { findBundledCodex, hostPlatform, locateCodex } from "../codex/locate.ts";
import { isolatedCodexEnv, writeIsolatedCodexHome } from "../codex/isolated-home.ts";
import { startMockProvider, type MockProvider } from "./mock-provider/index.ts";
import { assembleBridge, mcpServerFor, type Bridge } from "../app/assemble.ts";
import type { EventLog } from "../log.ts";
import { defaultIdentityLockDir } from "../store/lock.ts";

export interface HarnessOptions {
  /** Use the built-in mock model (offline). Without it the user's own Codex home and login are used. */
  mockProvider: boolean;
  approvalPolicy?: "untrusted" | "on-request" | "never";
  sandboxType?: "read-only" | "workspace-write" | "danger-full-access";
  files?: Record<string, string>;
  extraConfig?: string;
  /** Extra Codex `[features]` switches and TOML for the isolated CODEX_HOME (mock provider only). */
  codexFeatures?: Record<string, boolean>;
  codexExtraToml?: string;
  env?: Record<string, string | undefined>;
  /** Set in the bridge's own environment after the isolated one is built (what its Codex children may inherit). */
  bridgeEnv?: Record<string, string>;
  log?: EventLog;
  /** The harness client declares the MCP Apps extension, as a host that shows the task card does. */
  viewHost?: boolean;
}

export interface Harness {
  client: Client;
  bridge: Bridge;
  provider: MockProvider | null;
  projectDir: string;
  root: string;
  /** The environment the bridge was assembled with (to start another bridge on the same state). */
  env: Record<string, string | undefined>;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** No Codex executable could be found: the one failure where installing or pointing at Codex is the way out. */
export class CodexNotFoundError extends Error {}

export function findCodexForHarness(env: Record<string, string | undefined>): string {
  const r = locateCodex({ env, platform: hostPlatform() });
  if (!("error" in r)) return r.path;
  const bundled = findBundledCodex(process.cwd());
  if (bundled) return bundled;
  throw new CodexNotFoundError(r.error);
}

async function git(platform: Platform, cwd: string, args: string[]): Promise<void> {
  const child = platform.spawn("git", args, {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });
  child.endStdin();
  const exit = await child.exited;
  if (exit.code !== 0) throw new Error(`git ${args.join(" ")} failed (exit ${exit.code})`);
}

export async function startHarness(platform: Platform, opts: HarnessOptions): Promise<Harness> {
  const baseEnv = opts.env ?? process.env;
  const root = mkdtempSync(join(tmpdir(), "codex-bridge-run-"));
  const projectDir = join(root, "project");
  let provider: MockProvider | null = null;
  let bridge: Bridge | null = null;
  try {
    mkdirSync(projectDir, { recursive: true });
    for (const [rel, content] of Object.entries(opts.files ?? { "README.md": "# demo project\n" })) {
      const p = join(projectDir, rel);
      mkdirSync(join(p, ".."), { recursive: true });
      writeFileSync(p, content);
    }
    await git(platform, projectDir, ["init", "-q", "-b", "main"]);
    await git(platform, projectDir, ["-c", "user.name=codex-bridge", "-c", "user.email=demo@codex-bridge.invalid", "add", "-A"]);
    await git(platform, projectDir, ["-c", "user.name=codex-bridge", "-c", "user.email=demo@codex-bridge.invalid", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "initial"]);

    const codexBin = findCodexForHarness(baseEnv);
    let env: Record<string, string | undefined> = { ...baseEnv };
    if (opts.mockProvider) {
      provider = await startMockProvider();
      const home = join(root, "codex-home");
      mkdirSync(home);
      writeIsolatedCodexHome({ dir: home, providerBaseUrl: provider.baseUrl, features: opts.codexFeatures, extraToml: opts.codexExtraToml });
      env = isolatedCodexEnv(baseEnv, { codexHome: home });
    }
    Object.assign(env, opts.bridgeEnv);
    const configPath = join(root, "config.toml");
    writeFileSync(
      configPath,
      [
        `[projects.demo]`,
        `cwd = ${JSON.stringify(projectDir)}`,
        ``,
        `[profiles.default]`,
        `approval_policy = ${JSON.stringify(opts.approvalPolicy ?? "on-request")}`,
        `sandbox_type = ${JSON.stringify(opts.sandboxType ?? "workspace-write")}`,
        opts.extraConfig ?? "",
      ].join("\n"),
    );
    env.CODEX_BRIDGE_CONFIG = configPath;
    env.CODEX_BRIDGE_STATE = join(root, "state.sqlite3");
    env.CODEX_BIN = codexBin;
    delete env.CODEX_SUPERVISOR_CONFIG;
    delete env.CODEX_SUPERVISOR_STATE;
    bridge = await assembleBridge(platform, { env, cwd: root, log: opts.log ?? (() => {}) });
    const server = mcpServerFor(bridge);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await connectMcp(server, serverSide);
    const capabilities = opts.viewHost ? { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } } : {};
    const client = new Client({ name: "codex-bridge-harness", version: "1" }, { capabilities });
    await client.connect(clientSide);
    const b = bridge;
    const p = provider;
    return {
      client,
      bridge: b,
      provider: p,
      projectDir,
      root,
      env,
      call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
      async close() {
        await client.close().catch(() => {});
        await server.close().catch(() => {});
        await b.close();
        await p?.close();
        rmSync(root, { recursive: true, force: true });
        removeEmptyLockDir();
      },
    };
  } catch (err) {
    await bridge?.close().catch(() => {});
    await provider?.close();
    rmSync(root, { recursive: true, force: true });
    removeEmptyLockDir();
    throw err;
  }
}

/** The store's identity-lock directory in the temp dir is ours to remove too when the run left it empty. */
function removeEmptyLockDir(): void {
  try {
    rmdirSync(defaultIdentityLockDir());
  } catch {
    // in use by another bridge, or already gone
  }
}

/** The text of a tool result (all text blocks joined). */
export function resultText(r: CallToolResult): string {
  return r.content
    .filter((c): c is { type: "text"; text: string } => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}
