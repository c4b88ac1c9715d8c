// Which app-server each profile gets: one per home and environment, and a shared-server runtime apart from a spawned one.
import { describe, expect, it } from "vitest";
import { builtinProfile } from "../../src/config/schema.ts";
import type { CodexRuntime } from "../../src/runtime/app-server.ts";
import { RuntimePool } from "../../src/runtime/pool.ts";

describe("RuntimePool and runtime = shared", () => {
  it("a shared profile on the same home gets its own runtime, told the home's path and whether it may start the server", () => {
    const made: Array<{ home: string; shared: unknown }> = [];
    const pool = new RuntimePool({
      profiles: {
        default: builtinProfile("default"),
        fast: { ...builtinProfile("fast"), effort: "low" },
        mine: { ...builtinProfile("mine"), runtime: "shared", start_shared: true },
        watch: { ...builtinProfile("watch"), runtime: "shared" },
      },
      env: { PATH: "/usr/bin" },
      userHome: "/home/person",
      make: (env, shared) => {
        made.push({ home: env.CODEX_HOME ?? "(default)", shared });
        return { id: made.length } as unknown as CodexRuntime;
      },
    });
    expect(pool.all().map((s) => s.profiles)).toEqual([["default", "fast"], ["mine"], ["watch"]]);
    expect(made.map((m) => m.shared)).toEqual([undefined, { home: "/home/person/.codex", start: true }, { home: "/home/person/.codex", start: false }]);
    expect(pool.forProfile("fast")).toBe(pool.default);
    expect(pool.forProfile("mine")).not.toBe(pool.default);
  });
});
