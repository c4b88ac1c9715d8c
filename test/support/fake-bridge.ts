// A whole bridge on the fake app-server (FAKE_MODE picks its script), for tests of edge cases the real one cannot be
// made to produce on demand; `step()` advances the script, `sent()` lists every mutating request the fake received.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getPlatform } from "../../platform/index.ts";
import { assembleBridge, type Bridge } from "../../src/app/assemble.ts";
import { MUTATING_METHODS } from "../../src/codex/protocol/session.ts";

export interface FakeBridge {
  b: Bridge;
  step(): Promise<unknown>;
  sent(): string[];
  close(): Promise<void>;
}

export async function fakeBridge(mode: string, extraEnv: Record<string, string> = {}): Promise<FakeBridge> {
  const root = mkdtempSync(join(tmpdir(), "fake-bridge-"));
  const project = join(root, "project");
  mkdirSync(project);
  const wrapper = join(root, "fake-codex");
  const log = join(root, "fake.log");
  writeFileSync(log, "");
  writeFileSync(wrapper, `#!/bin/sh\nexec "${join(process.cwd(), "node_modules", ".bin", "bun")}" "${join(process.cwd(), "test", "support", "fake-app-server.ts")}"\n`);
  chmodSync(wrapper, 0o755);
  writeFileSync(join(root, "config.toml"), `[projects.demo]\ncwd = ${JSON.stringify(project)}\n[profiles.default]\napproval_policy = "never"\n`);
  const env = {
    PATH: process.env.PATH,
    CODEX_BRIDGE_CONFIG: join(root, "config.toml"),
    CODEX_BRIDGE_STATE: join(root, "state.sqlite3"),
    CODEX_BIN: wrapper,
    FAKE_MODE: mode,
    FAKE_LOG: log,
    CODEX_BRIDGE_ACK_TIMEOUT_MS: "200",
    ...extraEnv,
  };
  let b: Bridge;
  try {
    b = await assembleBridge(await getPlatform(), { env, cwd: root, log: () => {} });
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  return {
    b,
    step: async () => (await b.runtimes.default.ensure()).request("thread/loaded/list", {}),
    sent: () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => String((JSON.parse(l) as { method?: string }).method))
        .filter((m) => MUTATING_METHODS.has(m)),
    async close() {
      await b.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
