// Which config file the bridge reads: the environment variables first, then the codex-bridge directory, then the
// legacy one when only it has a file.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { resolveConfigPath } from "../../src/config/location.ts";
import { tempDir } from "../support/temp-dir.ts";

let configDir: string;
beforeEach(() => {
  configDir = tempDir("cb-loc-");
});

describe("resolveConfigPath", () => {
  it("prefers CODEX_BRIDGE_CONFIG, then the legacy variable", () => {
    expect(resolveConfigPath({ env: { CODEX_BRIDGE_CONFIG: "/a.toml", CODEX_SUPERVISOR_CONFIG: "/b.toml" }, configDir })).toEqual({
      path: resolve("/a.toml"),
      source: "CODEX_BRIDGE_CONFIG",
    });
    expect(resolveConfigPath({ env: { CODEX_SUPERVISOR_CONFIG: "/b.toml" }, configDir })).toEqual({
      path: resolve("/b.toml"),
      source: "CODEX_SUPERVISOR_CONFIG",
    });
  });

  it("ignores empty env values", () => {
    expect(resolveConfigPath({ env: { CODEX_BRIDGE_CONFIG: "  " }, configDir }).source).toBe("default");
  });

  it("uses the codex-bridge dir by default, the legacy dir only when it alone has a file", () => {
    const current = join(configDir, "codex-bridge", "config.toml");
    const legacy = join(configDir, "codex-supervisor-mcp", "config.toml");
    expect(resolveConfigPath({ env: {}, configDir })).toEqual({ path: current, source: "default" });
    mkdirSync(join(configDir, "codex-supervisor-mcp"));
    writeFileSync(legacy, "");
    expect(resolveConfigPath({ env: {}, configDir })).toEqual({ path: legacy, source: "legacy-default" });
    mkdirSync(join(configDir, "codex-bridge"));
    writeFileSync(current, "");
    expect(resolveConfigPath({ env: {}, configDir })).toEqual({ path: current, source: "default" });
  });

  it("an explicit path beats everything", () => {
    expect(resolveConfigPath({ env: { CODEX_BRIDGE_CONFIG: "/a.toml" }, configDir, path: "/c.toml" }).source).toBe("explicit");
  });
});
