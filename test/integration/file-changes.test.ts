// File changes made through Codex's own apply_patch tool (a model slug Codex knows, here gpt-5.5, offers it),
// against the REAL app-server: the wait's summary, the result's evidence, the diff, and file-change approvals.
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

const PATCH = "*** Begin Patch\n*** Add File: notes/hello.txt\n+hello from a patch\n*** End Patch\n";

describe("file changes through apply_patch on the real Codex", () => {
  it("are summarized once in the waits, and codex_result and codex_inspect show them with the diff", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never", extraConfig: 'model = "gpt-5.5"' });
    h.provider!.enqueue({ kind: "output", items: [{ type: "patch", patch: PATCH }] }, { kind: "output", items: [{ type: "message", text: "patched" }] });
    const id = sc(await h.call("codex_start", { project_id: "demo", prompt: "add a note" })).task_id;
    const waits = await settled(h, id);
    expect(waits.flatMap((w) => w.delta_summary?.changes ?? [])).toEqual(["add notes/hello.txt"]);
    expect(readFileSync(join(h.projectDir, "notes", "hello.txt"), "utf8")).toBe("hello from a patch\n");
    const result = sc(await h.call("codex_result", { task_id: id }));
    expect(result.evidence.file_changes).toEqual([{ path: "notes/hello.txt", kind: "add", status: "completed" }]);
    expect(result.evidence.diff).toMatchObject({ files: 1, insertions: 1, deletions: 0 });
    expect(result.evidence.git.status).toContain("?? notes/");
    const diff = await h.call("codex_inspect", { task_id: id, kind: "diff" });
    expect(resultText(diff)).toContain("+hello from a patch");
  });

  it("a file-change approval accepted applies the patch; declined, it does not", async () => {
    for (const action of ["accept", "decline"] as const) {
      h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "untrusted", extraConfig: 'model = "gpt-5.5"' });
      h.provider!.enqueue({ kind: "output", items: [{ type: "patch", patch: PATCH }] }, { kind: "output", items: [{ type: "message", text: "after the patch" }] });
      const id = sc(await h.call("codex_start", { project_id: "demo", prompt: "add a note" })).task_id;
      const kinds: string[] = [];
      const waits = await settled(h, id, { onAnswer: async (w) => {
        for (const r of w.requests ?? []) {
          kinds.push(r.kind);
          const answer = await h!.call("codex_respond", { task_id: id, request_id: r.request_id, action });
          expect(answer.isError, resultText(answer)).toBeFalsy();
        }
      } });
      expect(waits.at(-1)!.state).toBe("completed");
      expect(kinds).toEqual(["fileChange"]);
      expect(existsSync(join(h.projectDir, "notes", "hello.txt"))).toBe(action === "accept");
      await h.close();
      h = null;
    }
  });
});
