// The reliability fuzzer's own promise, checked against the live tools/list: a call it calls invalid is invalid for
// that tool (an "unknown key" is never one of the tool's inputs, as `cwd` is for codex_threads), for any seed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { startHarness, type Harness } from "../../src/selftest/harness.ts";
import { fuzzCall, schemaRejects, unknownKeys, type Tool } from "../support/fuzz-inputs.ts";
import { seededWith } from "../support/reliability.ts";

let h: Harness;
let tools: Tool[];
beforeAll(async () => {
  h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
  tools = (await h.client.listTools()).tools as Tool[];
});
afterAll(async () => {
  await h?.close();
});

const ctx = { taskIds: ["t_0123456789"], threadIds: [] };

describe("fuzz inputs from the live schemas", () => {
  it("an unknown key is never a key the tool lists, whatever the tool", () => {
    const threads = tools.find((t) => t.name === "codex_threads")!;
    expect(Object.keys(threads.inputSchema.properties ?? {})).toContain("cwd");
    expect(unknownKeys(threads, tools)).not.toContain("cwd");
    for (const tool of tools) {
      const own = Object.keys(tool.inputSchema.properties ?? {});
      expect(unknownKeys(tool, tools).filter((k) => own.includes(k)), tool.name).toEqual([]);
      expect(unknownKeys(tool, tools).length, tool.name).toBeGreaterThan(0);
    }
  });

  it("over 200 seeds, every call marked invalid for a schema reason is rejected by that tool's schema", () => {
    const wronglyInvalid: string[] = [];
    const mutations = new Set<string>();
    let unknownKeyCalls = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const r = seededWith(seed);
      for (let i = 0; i < 60; i++) {
        const call = fuzzCall(tools, r, ctx, () => true);
        if (!call.invalid || call.huge) continue;
        const tool = tools.find((t) => t.name === call.tool)!;
        mutations.add(call.mutation.replace(/ \(.*\)$/, ""));
        if (call.mutation === "unknown key") {
          unknownKeyCalls++;
          const own = Object.keys(tool.inputSchema.properties ?? {});
          const added = Object.keys(call.args as object).filter((k) => !own.includes(k));
          if (added.length !== 1) wronglyInvalid.push(`seed ${seed}: ${call.tool} unknown key added ${JSON.stringify(added)}`);
        }
        if (!call.mutation.includes("lone surrogate") && !schemaRejects(tool, call.args)) wronglyInvalid.push(`seed ${seed}: ${call.tool} ${call.mutation} ${JSON.stringify(call.args).slice(0, 200)}`);
      }
    }
    expect(wronglyInvalid).toEqual([]);
    expect(unknownKeyCalls).toBeGreaterThan(100);
    expect([...mutations].sort()).toEqual(
      ["arguments not an object", "lone surrogate", "missing required", "nested lone surrogate", "not in enum", "out of range", "over maxLength", "pattern miss", "unknown key", "wrong type"].sort(),
    );
  });

  it("the schema check itself refuses what the bridge refuses: codex_threads with cwd is valid, with zz it is not", () => {
    const threads = tools.find((t) => t.name === "codex_threads")!;
    expect(schemaRejects(threads, { action: "list", limit: 29, cwd: "/" })).toBe(false);
    expect(schemaRejects(threads, { action: "list", zz: 1 })).toBe(true);
  });
});
