// Test support: everything an integration test needs to run the REAL codex app-server offline:
// the native binary, a fresh isolated CODEX_HOME pointing at a fresh loopback mock provider, and the env.
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
