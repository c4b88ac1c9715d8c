import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { openStateDatabase, type OpenedStore } from "../../src/store/open.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { Repo } from "../../src/store/repo.ts";
import { redactor } from "../../src/policy/redact.ts";
import { diffStat } from "../../src/views/diff-stat.ts";
import { BridgeError } from "../../src/bridge-error.ts";
import { buildResult, requireSettledTask } from "../../src/views/evidence.ts";
import { renderResultText } from "../../src/mcp/tools/render.ts";
import type { GitChecks } from "../../src/views/git-checks.ts";
import { TaskIngest } from "../../src/tasks/ingest.ts";
import { inspect } from "../../src/views/inspect.ts";
import type { TaskState } from "../../src/store/rows.ts";

const ROOT = "/home/user/project";

let store: OpenedStore;
let repo: Repo;

beforeEach(async () => {
  store = await openStateDatabase(await getPlatform(), ":memory:", MIGRATIONS);
  repo = new Repo(store.db, redactor);
});
afterEach(() => store.close());

function task(id: string, state: TaskState, extra: Parameters<Repo["updateTask"]>[1] = {}): void {
  repo.insertTask({ id, project_id: "p", profile_id: "default", prompt: "do it", relay: true, model: null, effort: null, state: "running" });
  repo.updateTask(id, { turn_id: "turn1", thread_id: "th1", state, ...extra });
}

function command(taskId: string, itemId: string, cmd: string, exit: number | null, status = "completed"): void {
  repo.upsertItem({
    task_id: taskId,
    item_id: itemId,
    turn_id: "turn1",
    type: "commandExecution",
    status,
    data: { command: cmd, cwd: ROOT, status, exit_code: exit, duration_ms: 5, output: "out\n", output_chars: 4 },
  });
}

function toolInteraction(taskId: string, id: string, capability: string, state: "resolved" | "stale", submission: unknown): void {
  repo.insertInteraction({
    id,
    task_id: taskId,
    kind: "tool",
    method: "item/tool/call",
    rpc_id: 7,
    connection_id: "c1",
    thread_id: "th1",
    turn_id: "turn1",
    item_id: `call_${id}`,
    state: "pending",
    params: { threadId: "th1", turnId: "turn1", callId: `call_${id}`, tool: "bridge_web_tool", arguments: { capability, request: "find it", operation: "read" } },
  });
  repo.updateInteraction(id, submission === null ? { state } : { state, response: submission, response_hash: "h" });
}

const TURN_DIFF = [
  "diff --git a/src/app.ts b/src/app.ts",
  "index 1111111..2222222 100644",
  "--- a/src/app.ts",
  "+++ b/src/app.ts",
  "@@ -1,3 +1,4 @@",
  " keep",
  "-old",
  "+new",
  "+++looks like a header but is content",
  " keep2",
  "diff --git a/result.txt b/result.txt",
  "new file mode 100644",
  "--- /dev/null",
  "+++ b/result.txt",
  "@@ -0,0 +1 @@",
  "+hello",
  "",
].join("\n");

const GIT: GitChecks = { head: "a".repeat(40), branch: "main", status: [" M src/app.ts", "?? result.txt"], status_count: 2, diff_stat: "1 file changed, 2 insertions(+), 1 deletion(-)" };

describe("buildResult", () => {
  it("delivers the final message and every kind of evidence, compactly", () => {
    task("t1", "completed", { final_message: "All done: result.txt written." });
    command("t1", "c1", "ls -la", 0);
    command("t1", "c2", "npm test", 1, "failed");
    command("t1", "c3", "rm -rf build", null, "declined");
    repo.upsertItem({
      task_id: "t1",
      item_id: "f1",
      turn_id: "turn1",
      type: "fileChange",
      status: "completed",
      data: { changes: [{ path: `${ROOT}/src/app.ts`, kind: "update", diff: "@@ -1 +1 @@\n-old\n+new\n" }, { path: "/elsewhere/x.txt", kind: "add", diff: "x" }] },
    });
    repo.upsertItem({ task_id: "t1", item_id: "m1", turn_id: "turn1", type: "mcpToolCall", status: "failed", data: { server: "docs", tool: "search", status: "failed", error: { message: "timeout" }, arguments: {} } });
    toolInteraction("t1", "r_1", "web_search", "resolved", { status: "success", result: "Node 20 is LTS", sources: ["https://nodejs.org"], tool_used: "web" });
    toolInteraction("t1", "r_2", "browse", "stale", null);
    repo.upsertItem({ task_id: "t1", item_id: "diff:turn1", turn_id: "turn1", type: "turnDiff", status: "final", data: { diff: TURN_DIFF } });
    repo.appendEvents("t1", [
      { turn_id: "turn1", kind: "warning", data: { message: "slow disk" } },
      { turn_id: "turn1", kind: "turn_completed", data: { status: "completed", has_final: true } },
    ]);

    const r = buildResult(repo, "t1", GIT, { projectRoot: ROOT });
    expect(r).toEqual({
      task_id: "t1",
      state: "completed",
      final_message: "All done: result.txt written.",
      evidence: {
        commands: [
          { command: "ls -la", exit_code: 0, status: "completed" },
          { command: "npm test", exit_code: 1, status: "failed" },
          { command: "rm -rf build", status: "declined" },
        ],
        file_changes: [
          { path: "src/app.ts", kind: "update", status: "completed" },
          { path: "/elsewhere/x.txt", kind: "add", status: "completed" },
        ],
        mcp_calls: [{ server: "docs", tool: "search", status: "failed", error: "timeout" }],
        host_reports: {
          note: expect.stringContaining("not independently verified"),
          items: [
            { request_id: "r_1", capability: "web_search", status: "success", state: "resolved" },
            { request_id: "r_2", capability: "browse", state: "stale" },
          ],
        },
        diff: { files: 2, insertions: 3, deletions: 1, chars: TURN_DIFF.length },
        git: GIT,
        warnings: 1,
      },
    });

    const text = renderResultText(r);
    const lines = text.split("\n");
    expect(lines[0]).toBe("All done: result.txt written.");
    expect(text).toContain("`ls -la` → exit 0");
    expect(text).toContain("`npm test` → exit 1 (failed)");
    expect(text).toContain("`rm -rf build` → no exit code (declined)");
    expect(text).toContain("src/app.ts (update)");
    expect(text).toContain("docs/search failed: timeout");
    expect(text).toMatch(/Host reports \(.*not independently verified.*\): r_1 web_search: success, resolved; r_2 browse: nothing submitted, stale/);
    expect(text).toContain("Diff: 2 file(s), +3 -1");
    expect(text).toContain("Git: HEAD aaaaaaaaaaaa on main; 2 changed:  M src/app.ts, ?? result.txt; 1 file changed");
    // A rendering, not the JSON a second time; and the final message appears once.
    expect(text).not.toContain('"command"');
    expect(text.split("All done").length - 1).toBe(1);
    expect(text.length).toBeLessThan(JSON.stringify(r).length);
  });

  it("leaves out everything that is empty", () => {
    task("t2", "completed", { final_message: "Nothing to change." });
    const r = buildResult(repo, "t2", null);
    expect(r).toEqual({ task_id: "t2", state: "completed", final_message: "Nothing to change." });
    expect(renderResultText(r)).toBe("Nothing to change.\n\nTask t2 completed.");
  });

  it("explains a failed turn with its failure code, one plain sentence and whether a retry can help", () => {
    const failure = { code: "provider_error" as const, sentence: "The model provider failed with a server error or dropped the answer; try again shortly with codex_send.", retryable: true };
    task("t3", "failed", { failure });
    repo.appendEvents("t3", [{ turn_id: "turn1", kind: "turn_completed", data: { status: "failed", error: "stream disconnected" } }]);
    const r = buildResult(repo, "t3", null);
    expect(r.failure).toEqual(failure);
    expect(r.final_message).toBeUndefined();
    const text = renderResultText(r);
    expect(text).toContain("Task t3 failed; no final message.");
    expect(text).toContain(`failure provider_error (retryable): ${failure.sentence}`);
  });

  it("reads a failure stored before failures had codes as an unclassified one", () => {
    task("t4", "failed");
    repo.db.prepare(`UPDATE tasks SET error_json = ? WHERE id = ?`).run(JSON.stringify({ message: "boom", codexErrorInfo: null, explanation: "Codex refused to start the turn." }), "t4");
    expect(repo.task("t4")!.failure).toEqual({ code: "unknown", sentence: "Codex refused to start the turn.", retryable: false });
  });

  it("states the turn status only when it differs from the task state", () => {
    task("t4", "connection_lost");
    repo.appendEvents("t4", [{ turn_id: "turn1", kind: "turn_completed", data: { status: "interrupted" } }]);
    const r = buildResult(repo, "t4", null);
    expect(r.turn_status).toBe("interrupted");
    expect(renderResultText(r)).toContain("Task t4 connection_lost (last turn interrupted)");
  });

  it("of a long task lists the failed and test/build commands and counts the routine ones (the waits showed each)", () => {
    task("t5", "completed");
    for (let i = 0; i < 60; i++) command("t5", `c${i}`, i === 7 ? "npm test" : `echo ${i}`, i === 3 ? 2 : 0, i === 3 ? "failed" : "completed");
    const r = buildResult(repo, "t5", null);
    expect(r.evidence?.commands?.map((c) => `${c.command} ${c.exit_code}`)).toEqual(["echo 3 2", "npm test 0"]);
    expect(r.evidence?.commands_omitted).toBe(58);
    expect(r.evidence?.commands_exit_0).toBe(59);
    expect(renderResultText(r)).toMatch(/^Commands \(60, 59 exit 0\): `echo 3` → exit 2 \(failed\); `npm test` → exit 0; \+58 more; codex_inspect kind=commands lists all$/m);

    task("t5b", "completed");
    for (let i = 0; i < 11; i++) command("t5b", `c${i}`, `echo ${i}`, 0);
    expect(renderResultText(buildResult(repo, "t5b", null))).toMatch(/^Commands \(11, 11 exit 0\); codex_inspect kind=commands lists all$/m);
  });

  it("caps a long list at 50 and counts the rest", () => {
    task("t5c", "completed");
    for (let i = 0; i < 60; i++) command("t5c", `c${i}`, `false ${i}`, 1, "failed");
    const r = buildResult(repo, "t5c", null);
    expect(r.evidence?.commands).toHaveLength(50);
    expect(r.evidence?.commands?.[49]?.command).toBe("false 49");
    expect(r.evidence?.commands_omitted).toBe(10);
    expect(renderResultText(r)).toMatch(/^Commands \(60, 0 exit 0\): .*; \+10 more; codex_inspect kind=commands lists all$/m);
  });

  it("refuses a task whose turn has not ended, and an unknown task, naming the field", () => {
    task("t6", "waiting_for_approval");
    expect(() => buildResult(repo, "t6", null)).toThrow(BridgeError);
    expect(() => requireSettledTask(repo, "t6")).toThrow(/waiting_for_approval.*codex_wait/);
    try {
      buildResult(repo, "nope", null);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(BridgeError);
      expect((err as BridgeError).field).toBe("task_id");
      expect((err as Error).message).toContain("codex_status");
    }
  });
});

describe("diffStat", () => {
  it("counts lines by hunk, so content that looks like a header still counts", () => {
    expect(diffStat(TURN_DIFF)).toEqual({ files: ["src/app.ts", "result.txt"], insertions: 3, deletions: 1 });
  });

  it("handles deleted files, missing git headers and the no-newline marker", () => {
    const d = [
      "--- a/gone.txt",
      "+++ /dev/null",
      "@@ -1,2 +0,0 @@",
      "-a",
      "--- b",
      "--- a/kept.txt",
      "+++ b/kept.txt",
      "@@ -1 +1 @@",
      "-x",
      "\\ No newline at end of file",
      "+y",
      "\\ No newline at end of file",
    ].join("\n");
    expect(diffStat(d)).toEqual({ files: ["gone.txt", "kept.txt"], insertions: 1, deletions: 3 });
  });
});

describe("what ingest stores reads back through result and inspect", () => {
  it("a streamed task: preamble, commands with exit codes, file change and final answer", () => {
    task("t7", "running");
    const ingest = new TaskIngest("turn1");
    const feed = (method: string, params: unknown) => {
      const res = ingest.handle(method, params);
      repo.appendEvents("t7", [...res.events, ...ingest.drainDeltas(false)]);
      for (const i of res.items) repo.upsertItem({ ...i, task_id: "t7" });
      return res;
    };
    feed("turn/started", { turn: { id: "turn1" } });
    feed("item/started", { turnId: "turn1", item: { type: "userMessage", id: "u1", content: [{ type: "text", text: "write result.txt" }] } });
    feed("item/started", { turnId: "turn1", item: { type: "agentMessage", id: "a1" } });
    for (const d of ["I will ", "list files ", "first."]) feed("item/agentMessage/delta", { turnId: "turn1", itemId: "a1", delta: d });
    feed("item/completed", { turnId: "turn1", item: { type: "agentMessage", id: "a1", text: "I will list files first." } });
    const cmd = { type: "commandExecution", id: "call_1", command: "/bin/bash -lc 'ls -la'", cwd: ROOT };
    feed("item/started", { turnId: "turn1", item: cmd });
    feed("item/completed", { turnId: "turn1", item: { ...cmd, status: "completed", exitCode: 0, aggregatedOutput: "total 0\n" } });
    const cmd2 = { type: "commandExecution", id: "call_2", command: "/bin/bash -lc 'cat missing'", cwd: ROOT };
    feed("item/started", { turnId: "turn1", item: cmd2 });
    feed("item/completed", { turnId: "turn1", item: { ...cmd2, status: "failed", exitCode: 1, aggregatedOutput: "cat: missing: No such file\n" } });
    const fc = { type: "fileChange", id: "fc1", changes: [{ path: `${ROOT}/result.txt`, kind: { type: "add" }, diff: "hello\n" }] };
    feed("item/started", { turnId: "turn1", item: fc });
    feed("item/completed", { turnId: "turn1", item: { ...fc, status: "completed" } });
    feed("item/started", { turnId: "turn1", item: { type: "agentMessage", id: "a2" } });
    feed("item/completed", { turnId: "turn1", item: { type: "agentMessage", id: "a2", text: "Wrote result.txt.", phase: "final_answer" } });
    const done = feed("turn/completed", { turn: { id: "turn1", status: "completed" } });
    repo.updateTask("t7", { state: "completed", final_message: done.turnCompleted?.finalText ?? null });

    const r = buildResult(repo, "t7", null, { projectRoot: ROOT });
    expect(r.final_message).toBe("Wrote result.txt.");
    expect(r.evidence?.commands).toEqual([
      { command: "ls -la", exit_code: 0, status: "completed" },
      { command: "cat missing", exit_code: 1, status: "failed" },
    ]);
    expect(r.evidence?.file_changes).toEqual([{ path: "result.txt", kind: "add", status: "completed" }]);

    const transcript = inspect(repo, { task_id: "t7", kind: "transcript" });
    const entries = transcript.items as Record<string, unknown>[];
    expect(entries.map((e) => e.type)).toEqual(["user", "agent", "command", "command", "turn_end"]);
    expect(entries[0]!.text).toBe("write result.txt");
    expect(entries[1]!.text).toBe("I will list files first.");
    expect(entries[3]).toMatchObject({ command: "cat missing", exit_code: 1, status: "failed", item_id: "call_2" });
    expect(entries[4]).toMatchObject({ status: "completed", final: "Wrote result.txt." });
    expect(transcript.next_offset).toBeUndefined();

    const out = inspect(repo, { task_id: "t7", kind: "command_output", item_id: "call_2" });
    expect(out.items).toEqual([{ item_id: "call_2", text: "cat: missing: No such file\n" }]);
  });
});
