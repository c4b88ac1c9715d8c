import { afterEach, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveStatePath } from "../../src/store/location.ts";

let dir: string;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function setup(): { dataDir: string; cwd: string } {
  dir = mkdtempSync(join(tmpdir(), "cb-loc-"));
  const cwd = join(dir, "launch");
  mkdirSync(cwd);
  return { dataDir: join(dir, "data"), cwd };
}

describe("resolveStatePath", () => {
  it("prefers CODEX_BRIDGE_STATE, resolving a relative value against the launch dir", () => {
    const { dataDir, cwd } = setup();
    expect(resolveStatePath({ env: { CODEX_BRIDGE_STATE: "/x/s.db", CODEX_SUPERVISOR_STATE: "/y/s.db" }, dataDir, cwd })).toEqual({
      path: "/x/s.db",
      source: "env",
    });
    expect(resolveStatePath({ env: { CODEX_BRIDGE_STATE: "rel/s.db" }, dataDir, cwd })).toEqual({ path: join(cwd, "rel", "s.db"), source: "env" });
  });

  it("honours the legacy CODEX_SUPERVISOR_STATE", () => {
    const { dataDir, cwd } = setup();
    expect(resolveStatePath({ env: { CODEX_SUPERVISOR_STATE: "/y/s.db" }, dataDir, cwd })).toEqual({ path: "/y/s.db", source: "legacy-env" });
  });

  it("accepts :memory: from either variable", () => {
    const { dataDir, cwd } = setup();
    expect(resolveStatePath({ env: { CODEX_BRIDGE_STATE: ":memory:" }, dataDir, cwd })).toEqual({ path: ":memory:", source: "memory" });
    expect(resolveStatePath({ env: { CODEX_SUPERVISOR_STATE: ":memory:" }, dataDir, cwd })).toEqual({ path: ":memory:", source: "memory" });
  });

  it("defaults to <data>/codex-bridge/state.sqlite3 and creates its directory", () => {
    const { dataDir, cwd } = setup();
    const result = resolveStatePath({ env: { CODEX_BRIDGE_STATE: "" }, dataDir, cwd });
    expect(result).toEqual({ path: join(dataDir, "codex-bridge", "state.sqlite3"), source: "default" });
    expect(existsSync(join(dataDir, "codex-bridge"))).toBe(true);
  });

  it("keeps using a legacy codex-supervisor-mcp database until a codex-bridge one exists", () => {
    const { dataDir, cwd } = setup();
    const legacy = join(dataDir, "codex-supervisor-mcp", "state.sqlite3");
    mkdirSync(join(dataDir, "codex-supervisor-mcp"), { recursive: true });
    writeFileSync(legacy, "");
    expect(resolveStatePath({ env: {}, dataDir, cwd })).toEqual({ path: legacy, source: "legacy-default" });

    const current = join(dataDir, "codex-bridge", "state.sqlite3");
    mkdirSync(join(dataDir, "codex-bridge"), { recursive: true });
    writeFileSync(current, "");
    expect(resolveStatePath({ env: {}, dataDir, cwd })).toEqual({ path: current, source: "default" });
  });

  it("falls back to .supervisor in the launch dir when the data dir cannot be created", () => {
    const { cwd } = setup();
    const blocker = join(dir, "not-a-dir");
    writeFileSync(blocker, "");
    expect(resolveStatePath({ env: {}, dataDir: join(blocker, "data"), cwd })).toEqual({
      path: join(cwd, ".supervisor", "state.sqlite3"),
      source: "fallback",
    });
    const refused = resolveStatePath({
      env: {},
      dataDir: join(dir, "data"),
      cwd,
      mkdir: () => {
        throw Object.assign(new Error("EACCES"), { code: "EACCES" });
      },
    });
    expect(refused.source).toBe("fallback");
  });
});
