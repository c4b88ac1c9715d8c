// Whole task flows through the MCP surface against the REAL codex app-server and the loopback mock model.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { resultText, startHarness, type Harness } from "../../src/selftest/harness.ts";
import { sc, settled } from "../support/task-waits.ts";

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe("supervised task against the real Codex", () => {
  it("runs a command, writes a file, and codex_result carries the final text and evidence", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.enqueue(
      { kind: "output", items: [{ type: "message", text: "I will write the file.", deltas: 4 }, { type: "exec", cmd: "echo hello-bridge > result.txt && echo done" }] },
      { kind: "output", items: [{ type: "message", text: "All done: result.txt written.", deltas: 3 }] },
    );
    const start = await h.call("codex_start", { project_id: "demo", prompt: "write result.txt" });
    expect(start.isError, resultText(start)).toBeFalsy();
    const taskId = sc(start).task_id;
    expect(taskId).toMatch(/^t_/);
    const answers = await settled(h, taskId);
    expect(answers.at(-1)!.state).toBe("completed");
    const seen = answers.flatMap((a) => a.messages ?? []);
    expect(seen).toContain("I will write the file.");
    // The final answer is delivered by codex_result, not by a wait.
    expect(seen).not.toContain("All done: result.txt written.");
    const cmds = answers.flatMap((a) => a.delta_summary?.commands ?? []);
    expect(cmds).toEqual(["echo hello-bridge > result.txt && echo done → 0"]);
    expect(readFileSync(join(h.projectDir, "result.txt"), "utf8")).toBe("hello-bridge\n");

    const result = await h.call("codex_result", { task_id: taskId });
    expect(result.isError, resultText(result)).toBeFalsy();
    const r = sc(result);
    expect(r.final_message).toBe("All done: result.txt written.");
    expect(resultText(result)).toContain("All done: result.txt written.");
    expect(JSON.stringify(r)).toContain("result.txt");
    expect(r.evidence?.commands?.[0]?.exit_code ?? r.commands?.[0]?.exit_code).toBe(0);
  });

  it("gives clear tool errors for bad input", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true });
    const unknownTask = await h.call("codex_wait", { task_id: "t_0000000000" });
    expect(unknownTask.isError).toBe(true);
    expect(resultText(unknownTask)).toMatch(/task_id .*unknown/);
    const badProject = await h.call("codex_start", { project_id: "nope", prompt: "x" });
    expect(badProject.isError).toBe(true);
    expect(resultText(badProject)).toMatch(/project_id "nope" is not configured; use one of: demo/);
    const wrongType = await h.call("codex_wait", { task_id: 42 });
    expect(wrongType.isError).toBe(true);
    expect(resultText(wrongType)).toMatch(/task_id/);
    const huge = await h.call("codex_start", { project_id: "demo", prompt: "x".repeat(100_001) });
    expect(huge.isError).toBe(true);
    expect(resultText(huge)).toMatch(/prompt/);
    expect(existsSync(h.projectDir)).toBe(true);
  });
});
