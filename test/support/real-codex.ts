// Test support: everything an integration test needs to run the REAL codex app-server offline:
// the native binary, a fresh isolated CODEX_HOME pointing at a fresh loopback mock provider, and the env.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findBundledCodex } from "../../src/codex/locate.ts";
import {
  isolatedCodexEnv,
  writeIsolatedCodexHome,
  type IsolatedApprovalPolicy,
  type IsolatedSandboxMode,
} from "../../src/codex/isolated-home.ts";
import { startMockProvider, type MockProvider } from "../../src/selftest/mock-provider/index.ts";
import { removeTempDir, tempDir } from "./temp-dir.ts";

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * True when the Codex under test (CODEX_BRIDGE_TEST_CODEX, else the bundled one) is older than the pinned release:
 * the run of the core flows against the oldest supported Codex. Codex 0.147.0 applies a steer only after the model's
 * current answer has ended, so tests that steer a hanging answer are left to the pinned release.
 */
export function olderThanPinnedCodex(): boolean {
  const under = process.env.CODEX_BRIDGE_TEST_CODEX;
  if (!under) return false;
  const version = /(\d+)\.(\d+)\.(\d+)/.exec(execFileSync(under, ["--version"], { encoding: "utf8" }))?.slice(1).map(Number);
  const pinned = /(\d+)\.(\d+)\.(\d+)/.exec(execFileSync(findBundledCodex(PROJECT_ROOT)!, ["--version"], { encoding: "utf8" }))?.slice(1).map(Number);
  if (!version || !pinned) return false;
  for (let i = 0; i < 3; i++) if (version[i] !== pinned[i]) return version[i]! < pinned[i]!;
  return false;
}

export interface RealCodex {
  codexBin: string;
  codexHome: string;
  env: Record<string, string>;
  provider: MockProvider;
  cleanup(): Promise<void>;
}

export interface PrepareRealCodexOptions {
  model?: string;
  approvalPolicy?: IsolatedApprovalPolicy;
  sandboxMode?: IsolatedSandboxMode;
}

/**
 * The bundled native codex, or a thrown error that says how to get it. CODEX_BRIDGE_TEST_CODEX replaces it: CI runs
 * the core flows once more against the oldest supported Codex that way.
 */
export function bundledCodexBin(): string {
  const bin = process.env.CODEX_BRIDGE_TEST_CODEX || findBundledCodex(PROJECT_ROOT);
  if (!bin) throw new Error("the @openai/codex dev-dependency's native binary is missing for this machine: run npm ci");
  return bin;
}

export async function prepareRealCodex(opts: PrepareRealCodexOptions = {}): Promise<RealCodex> {
  const codexBin = bundledCodexBin();
  const provider = await startMockProvider();
  const codexHome = tempDir("codex-bridge-home-");
  writeIsolatedCodexHome({ dir: codexHome, providerBaseUrl: provider.baseUrl, ...opts });
  const env = isolatedCodexEnv(process.env, { codexHome });
  return {
    codexBin,
    codexHome,
    env,
    provider,
    async cleanup() {
      await provider.close();
      removeTempDir(codexHome);
    },
  };
}
