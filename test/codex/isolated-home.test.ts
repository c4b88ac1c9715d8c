// The isolated CODEX_HOME that tests and the demo give the real Codex: an offline config aimed at the loopback mock
// model, and an environment with a scratch HOME and no keys or proxies.
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { isolatedCodexEnv, isolatedConfigToml, writeIsolatedCodexHome } from "../../src/codex/isolated-home.ts";
import { tempDir } from "../support/temp-dir.ts";

describe("writeIsolatedCodexHome", () => {
  it("writes an offline config pointing at the mock with no API key and no retries", () => {
    const dir = join(tempDir("isolated-home-"), "home");
    const { configPath } = writeIsolatedCodexHome({ dir, providerBaseUrl: "http://127.0.0.1:4321/v1" });
    expect(configPath).toBe(join(dir, "config.toml"));
    const config = parse(readFileSync(configPath, "utf8")) as Record<string, Record<string, unknown>>;
    expect(config.model).toBe("mock-model");
    expect(config.model_provider).toBe("mock");
    expect(config.approval_policy).toBe("on-request");
    expect(config.sandbox_mode).toBe("workspace-write");
    const mock = (config.model_providers as unknown as Record<string, Record<string, unknown>>).mock;
    expect(mock).toMatchObject({ base_url: "http://127.0.0.1:4321/v1", wire_api: "responses", request_max_retries: 0, stream_max_retries: 0 });
    expect(mock).not.toHaveProperty("env_key");
    expect(config.features).toMatchObject({ plugins: false, remote_plugin: false, apps: false, memories: false });
    expect(config.agents).toEqual({ enabled: false });
    if (process.platform !== "win32") expect(statSync(configPath).mode & 0o077).toBe(0);
  });

  it("takes the model, approval policy and sandbox mode it is given", () => {
    const toml = isolatedConfigToml({ providerBaseUrl: "http://127.0.0.1:1/v1", model: "gpt-5.5", approvalPolicy: "never", sandboxMode: "danger-full-access" });
    expect(parse(toml)).toMatchObject({ model: "gpt-5.5", approval_policy: "never", sandbox_mode: "danger-full-access" });
  });

  it("refuses approval_policy untrusted (a fatal startup error in config.toml) and non-loopback providers", () => {
    const untrusted = { providerBaseUrl: "http://127.0.0.1:1/v1", approvalPolicy: "untrusted" } as unknown as Parameters<typeof isolatedConfigToml>[0];
    expect(() => isolatedConfigToml(untrusted)).toThrow(/untrusted/);
    expect(() => isolatedConfigToml({ providerBaseUrl: "https://api.openai.com/v1" })).toThrow(/loopback/);
  });
});

describe("isolatedCodexEnv", () => {
  it("keeps PATH, sets CODEX_HOME, a scratch HOME and RUST_LOG, and drops keys and proxies", () => {
    const codexHome = tempDir("isolated-home-");
    const env = isolatedCodexEnv(
      { PATH: "/usr/bin:/bin", HOME: "/home/real", OPENAI_API_KEY: "sk-secret", HTTPS_PROXY: "http://proxy:1", LC_ALL: "C.UTF-8", RUST_LOG: "trace" },
      { codexHome },
    );
    expect(env).toMatchObject({ PATH: "/usr/bin:/bin", CODEX_HOME: codexHome, RUST_LOG: "warn", LC_ALL: "C.UTF-8" });
    expect(env.HOME).toBe(join(codexHome, "home"));
    expect(existsSync(env.HOME)).toBe(true);
    expect(env).not.toHaveProperty("OPENAI_API_KEY");
    expect(env).not.toHaveProperty("HTTPS_PROXY");
  });

  it("uses the HOME it is given", () => {
    const codexHome = tempDir("isolated-home-");
    const home = join(tempDir("isolated-home-"), "scratch");
    expect(isolatedCodexEnv({ PATH: "/bin" }, { codexHome, home }).HOME).toBe(home);
  });
});
