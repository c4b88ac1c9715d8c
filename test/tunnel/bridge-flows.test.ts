// The main task flows against the REAL bridge process and the real Codex (mock model), through the tunnel emulator:
// one request at a time, a per-request deadline, and a fatal stop on any server request or stray stdout byte.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lastFunctionOutput } from "../../src/selftest/mock-provider/index.ts";
import { bridgeFixture, callTool, toolAnswer, type ToolAnswer } from "../support/bridge-process.ts";
import type { TunnelEmulator } from "../support/tunnel-emulator.ts";

// Like ChatGPT's ~120 s, scaled down: every call must be answered well before it, or the id is retired.
const bridges = bridgeFixture({ deadlineMs: 30_000 });

const SETTLED = ["completed", "failed", "interrupted", "connection_lost", "unknown"];

/** codex_wait until something needs an answer or the task settles. */
async function waitForAttention(t: TunnelEmulator, taskId: string): Promise<ToolAnswer> {
  for (let i = 0; i < 20; i++) {
    const w = await callTool(t, "codex_wait", { task_id: taskId, timeout_seconds: 20 });
    expect(w.isError, w.text).toBe(false);
    const s = w.structured;
    if (s.requests?.length || s.tool_requests?.length || SETTLED.includes(s.state)) return w;
  }
  throw new Error("the task never needed attention nor settled");
}

function expectHealthyTunnel(t: TunnelEmulator): void {
  expect(t.fatal, t.fatal ? `${t.fatal.reason}: ${t.fatal.line ?? ""}` : "").toBeNull();
  expect(t.retiredIds).toEqual([]);
  expect(t.unexpectedResponses).toEqual([]);
}

describe("task flows through the tunnel emulator", () => {
  it("start → wait → approval → relay → result → artifact", async () => {
    const setup = await bridges.prepare({ approvalPolicy: "untrusted" });
    const hostAnswer = "The host's search says: widget 4.2 was released on 2026-03-01.";
    setup.provider.enqueue(
      {
        kind: "output",
        items: [
          { type: "message", text: "Writing the note first.", deltas: 2 },
          { type: "exec", cmd: "printf 'note from codex\\n' > note.txt" },
        ],
      },
      { kind: "output", items: [{ type: "tool", name: "bridge_web_tool", arguments: { capability: "web_search", request: "latest widget release", operation: "read" } }] },
      { kind: "output", items: [{ type: "message", text: "Done: note.txt written and the release checked." }] },
    );
    const t = await bridges.start(setup);
    await t.initialize();

    const start = await callTool(t, "codex_start", { project_id: "demo", prompt: "write note.txt, then look up the widget release" });
    expect(start.isError, start.text).toBe(false);
    const taskId = start.structured.task_id as string;
    expect(taskId).toMatch(/^t_[0-9a-f]{10}$/);

    // Approval: "untrusted" makes Codex ask before running the command.
    const asked = await waitForAttention(t, taskId);
    const approval = asked.structured.requests?.[0];
    expect(approval, asked.text).toBeDefined();
    expect(approval.kind).toBe("command");
    expect(approval.command).toContain("note.txt");
    expect(approval.decisions).toContain("accept");
    const respond = await callTool(t, "codex_respond", { task_id: taskId, request_id: approval.request_id, action: "accept" });
    expect(respond.isError, respond.text).toBe(false);

    // Relay: Codex asks the host for a web-side tool; the supervisor answers with what its tool returned.
    const relayed = await waitForAttention(t, taskId);
    const toolRequest = relayed.structured.tool_requests?.[0];
    expect(toolRequest, relayed.text).toBeDefined();
    expect(toolRequest.tool).toMatchObject({ capability: "web_search", operation: "read", request: "latest widget release" });
    expect(readFileSync(join(setup.projectDir, "note.txt"), "utf8")).toBe("note from codex\n");
    const requestsBefore = setup.provider.requests.length;
    const submit = await callTool(t, "codex_submit_tool_result", { task_id: taskId, request_id: toolRequest.request_id, status: "success", result: hostAnswer });
    expect(submit.isError, submit.text).toBe(false);

    const ended = await waitForAttention(t, taskId);
    expect(ended.structured.state, ended.text).toBe("completed");
    // The model's next request carried the submitted text back to it.
    const followUp = setup.provider.requests[requestsBefore];
    expect(followUp).toBeDefined();
    expect(lastFunctionOutput(followUp!)).toContain(hostAnswer);

    const result = await callTool(t, "codex_result", { task_id: taskId });
    expect(result.isError, result.text).toBe(false);
    expect(result.structured.final_message).toBe("Done: note.txt written and the release checked.");
    expect(JSON.stringify(result.structured)).toContain("note.txt");

    const artifactRes = await t.request("tools/call", { name: "codex_artifact", arguments: { project_id: "demo", path: "note.txt" } });
    const artifact = toolAnswer(artifactRes);
    expect(artifact.isError, artifact.text).toBe(false);
    expect(artifact.structured).toMatchObject({ path: "note.txt", size: 16, complete: true });
    expect(artifact.structured.sha256).toBe(createHash("sha256").update("note from codex\n").digest("hex"));
    expect(JSON.stringify(artifactRes)).toContain("note from codex");

    expectHealthyTunnel(t);
  }, 180_000);

  it("codex_wait answers 'still running' before the deadline and takes an explicit cursor; cancel and result answer promptly", async () => {
    const setup = await bridges.prepare();
    setup.provider.enqueue({ kind: "hang" });
    const t = await bridges.start(setup);
    await t.initialize();
    const start = await callTool(t, "codex_start", { project_id: "demo", prompt: "think forever" });
    expect(start.isError, start.text).toBe(false);
    const taskId = start.structured.task_id as string;
    await setup.provider.waitForRequests(1, 30_000);

    // Default timeout (25 s): answered inside the 30 s deadline with one line: still running, and what it does.
    let stillRunning: ToolAnswer | null = null;
    for (let i = 0; i < 3 && !stillRunning; i++) {
      const w = await callTool(t, "codex_wait", { task_id: taskId });
      expect(w.isError, w.text).toBe(false);
      if (w.structured.ran_s !== undefined) stillRunning = w;
    }
    expect(stillRunning, "no wait ever timed out").not.toBeNull();
    expect(stillRunning!.structured).toEqual({ state: "running", ran_s: expect.any(Number) });
    expect(stillRunning!.text).toMatch(/^running \d+s, thinking$/);

    // An explicit cursor is accepted as is.
    const again = await callTool(t, "codex_wait", { task_id: taskId, cursor: `${taskId}:0`, timeout_seconds: 1 });
    expect(again.isError, again.text).toBe(false);
    expect(again.structured.state).toBe("running");

    const early = await callTool(t, "codex_result", { task_id: taskId });
    expect(early.isError, early.text).toBe(false);
    expect(early.text).toMatch(/no result yet/);

    const cancel = await callTool(t, "codex_cancel", { task_id: taskId, reason: "test" });
    expect(cancel.isError, cancel.text).toBe(false);
    const after = await callTool(t, "codex_result", { task_id: taskId });
    expect(after.isError, after.text).toBe(false);
    expect(after.structured.state ?? cancel.structured.state).toMatch(/interrupted|completed|failed/);

    expectHealthyTunnel(t);
  }, 180_000);
});

describe("initialization tolerance through the emulator", () => {
  it("answers tools/call before any initialize, initialize without initialized, and a repeated initialize", async () => {
    const setup = await bridges.prepare();
    // A fresh child after a tunnel restart: the first thing it sees is a tool call.
    const t = await bridges.start(setup);
    const first = await callTool(t, "codex_status", {});
    expect(first.isError, first.text).toBe(false);
    expect(first.text).toMatch(/no tasks yet/);
    const list = await t.request("tools/list", {});
    expect("result" in list && (list.result as { tools: unknown[] }).tools.length).toBeGreaterThan(10);

    // initialize, never followed by notifications/initialized.
    const init1 = await t.initialize({ sendInitialized: false });
    expect("result" in init1, JSON.stringify(init1)).toBe(true);
    const afterInit = await callTool(t, "codex_health", {});
    expect(afterInit.isError, afterInit.text).toBe(false);

    // Another conversation initializes the same connection again, reusing an id another one used.
    const init2 = await t.initialize({ sendInitialized: true });
    expect("result" in init2, JSON.stringify(init2)).toBe(true);
    expect((init2 as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe("codex-bridge");
    const sameId = await t.request("tools/call", { name: "codex_status", arguments: {} }, { id: 1 });
    expect(sameId.id).toBe(1);
    expect(toolAnswer(sameId).isError).toBe(false);
    const init3 = await t.request("initialize", { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "other", version: "1" } });
    expect("result" in init3, JSON.stringify(init3)).toBe(true);
    const last = await callTool(t, "codex_status", {});
    expect(last.isError, last.text).toBe(false);

    expectHealthyTunnel(t);
  }, 60_000);
});
