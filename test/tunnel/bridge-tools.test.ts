// Every tool the bridge lists, called through the tunnel emulator with valid arguments and with bad ones, each answer
// checked for the outcome and the words a supervisor acts on; the bridge must never send the client a request (that
// stops the real tunnel) nor a non-JSON byte on stdout.
import { describe, expect, it } from "vitest";
import { bridgeFixture, callTool, toolAnswer } from "../support/bridge-process.ts";
import { poll } from "../support/poll.ts";
import type { JsonRpcResponse } from "../support/tunnel-emulator.ts";

const bridges = bridgeFixture({ deadlineMs: 60_000 });

type Args = Record<string, unknown>;
/** A call and the answer a supervisor must get: a tool error or a success, and (for every error) what its text names. */
type Case = { args: Args; error: false; says?: RegExp } | { args: Args; error: true; says: RegExp };

describe("no server→client requests from any tool", () => {
  it("calls every listed tool, valid and invalid, and the tunnel never sees a request or a stray byte", async () => {
    const setup = await bridges.prepare({ approvalPolicy: "never" });
    // Every model request gets a short final message unless a test scripted something else.
    setup.provider.setResponder(() => ({ kind: "output", items: [{ type: "message", text: "ok from the mock" }] }));
    const t = await bridges.start(setup);
    // A client that shows views (as ChatGPT does): it is listed the task card's app-only tools too.
    await t.initialize({ capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {}, extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } } });

    const list = await t.request("tools/list", {});
    if (!("result" in list)) throw new Error(JSON.stringify(list));
    const names = (list.result as { tools: { name: string }[] }).tools.map((x) => x.name).sort();

    const start = await callTool(t, "codex_start", { project_id: "demo", prompt: "say ok" });
    expect(start.isError, start.text).toBe(false);
    const taskId = start.structured.task_id as string;
    // Settle it first so every task tool has something real to report.
    await poll(
      async () => {
        const w = await callTool(t, "codex_wait", { task_id: taskId, timeout_seconds: 20 });
        if (w.isError) throw new Error(w.text);
        return w.structured.state === "completed" ? w : undefined;
      },
      { timeoutMs: 60_000, interval: 0, what: `task ${taskId} to complete` },
    );
    const status = (await callTool(t, "codex_status", { task_id: taskId })).structured;
    const threadId = status.thread_id as string;
    const firstTurnId = status.turn_id as string;
    expect(threadId).toBeTruthy();
    expect(firstTurnId).toBeTruthy();

    const noTask = "t_0000000000";
    const noRequest = "r_0000000000";
    // The cases run in tool-name order on one bridge, and each expectation follows from that order: codex_cancel
    // meets the first task completed (nothing to cancel, not an error), and codex_runtime restarts while no task is
    // active yet (codex_send and the second codex_start come after it), so the restart is allowed.
    const cases: Record<string, Case[]> = {
      codex_health: [{ args: {}, error: false, says: /healthy/ }],
      codex_start: [
        { args: { project_id: "demo", prompt: "second task" }, error: false, says: /t_[0-9a-f]{10} running/ },
        { args: { project_id: "nope", prompt: "x" }, error: true, says: /project_id "nope" is not configured/ },
        { args: { project_id: "demo" }, error: true, says: /prompt/ },
      ],
      codex_wait: [
        // codex_send (earlier) started a new turn on it: running or, as a rule by now, completed again; codex_runtime
        // (earlier too) restarted the app-server, so the automatic cursor is from an older generation and says so.
        { args: { task_id: taskId, timeout_seconds: 2 }, error: false, says: /^(running|completed) · cursor lost: .*Re-anchor: /s },
        { args: { task_id: noTask }, error: true, says: /task_id "t_0000000000" is unknown/ },
        { args: { task_id: taskId, cursor: "garbage" }, error: true, says: /cursor "garbage" is malformed/ },
      ],
      codex_status: [
        { args: {}, error: false, says: /t_[0-9a-f]{10}/ },
        { args: { task_id: taskId }, error: false, says: new RegExp(`${taskId} (running|completed)`) },
        { args: { task_id: "bad" }, error: true, says: /task_id/ },
      ],
      codex_send: [
        { args: { task_id: taskId, message: "one more thing" }, error: false, says: /new_turn/ },
        { args: { task_id: noTask, message: "x" }, error: true, says: /task_id "t_0000000000" is unknown/ },
      ],
      codex_respond: [
        { args: { task_id: taskId, request_id: noRequest, action: "accept" }, error: true, says: /request_id "r_0000000000" is not a request/ },
        { args: { task_id: taskId }, error: true, says: /request_id/ },
      ],
      codex_submit_tool_result: [
        { args: { task_id: taskId, request_id: noRequest, status: "success", result: "x" }, error: true, says: /request_id "r_0000000000" is not a request/ },
        { args: { task_id: taskId, request_id: noRequest, status: "maybe", result: "x" }, error: true, says: /status/ },
      ],
      codex_result: [
        { args: { task_id: taskId }, error: false, says: /ok from the mock/ },
        { args: { task_id: noTask }, error: true, says: /task_id "t_0000000000" is unknown/ },
      ],
      codex_inspect: [
        { args: { task_id: taskId, kind: "transcript" }, error: false, says: /transcript/ },
        { args: { task_id: taskId, kind: "commands" }, error: false, says: /commands/ },
        { args: { task_id: taskId, kind: "nope" }, error: true, says: /kind/ },
      ],
      codex_cancel: [
        { args: { task_id: taskId, reason: "done" }, error: false, says: new RegExp(`${taskId} completed`) },
        { args: { task_id: noTask }, error: true, says: /task_id "t_0000000000" is unknown/ },
      ],
      codex_files: [
        { args: { project_id: "demo" }, error: false, says: /demo/ },
        { args: { project_id: "nope" }, error: true, says: /project_id "nope" is not configured/ },
      ],
      codex_artifact: [
        { args: { project_id: "demo", path: "README.md" }, error: false, says: /README\.md .* sha256 [0-9a-f]{64}/ },
        { args: { project_id: "demo", path: "../../etc/passwd" }, error: true, says: /path .*not allowed/ },
        { args: { project_id: "demo", path: "missing.txt" }, error: true, says: /"missing.txt" does not exist/ },
      ],
      // The app-server's own model catalog, which it serves offline too: never empty, one model marked default.
      codex_models: [{ args: {}, error: false, says: /\(default\)/ }],
      codex_threads: [
        { args: { action: "list" }, error: false, says: new RegExp(`${threadId} \\(${taskId}\\)`) },
        // The task's thread, read back: it holds the task's first turn.
        { args: { action: "read", thread_id: threadId }, error: false, says: new RegExp(`${firstTurnId} completed`) },
        { args: { action: "read" }, error: true, says: /thread_id is required/ },
      ],
      codex_checkpoint: [
        { args: { action: "update", task_id: taskId, goal: "prove the tunnel path" }, error: false, says: /saved/ },
        { args: { action: "read", task_id: taskId }, error: false, says: /prove the tunnel path/ },
        { args: { action: "read", task_id: noTask }, error: true, says: /task_id "t_0000000000" is unknown/ },
      ],
      codex_runtime: [
        { args: { action: "status" }, error: false, says: /app-server ready/ },
        { args: { action: "restart" }, error: false, says: /app-server ready .*restarts 1/ },
        { args: { action: "explode" }, error: true, says: /action/ },
      ],
      // The task card's app-only tools: hosts hide them from the model; without the card's key nothing is answered.
      codex_card: [
        { args: { task_id: taskId }, error: false, says: new RegExp(`${taskId} completed`) },
        { args: { task_id: noTask }, error: true, says: /task_id "t_0000000000" is unknown/ },
      ],
      codex_card_respond: [{ args: { task_id: taskId, request_id: "r_0000000000", action: "accept" }, error: true, says: /r_0000000000.*card_key/ }],
    };
    // A tool added later without a case here fails this test instead of going unexercised.
    expect(names.filter((n) => !(n in cases)), "tools without a case").toEqual([]);
    expect(Object.keys(cases).filter((n) => !names.includes(n)), "cases for tools the bridge does not list").toEqual([]);

    const outcomes: string[] = [];
    for (const name of names) {
      for (const c of cases[name]!) {
        // A progress token invites notifications/progress; those are fine, requests are not.
        const res: JsonRpcResponse = await t.request("tools/call", { name, arguments: c.args }, { progressToken: `${name}-p` });
        expect("result" in res, `${name} ${JSON.stringify(c.args)} → JSON-RPC error ${JSON.stringify(res)}`).toBe(true);
        const answer = toolAnswer(res);
        const label = `${name} ${JSON.stringify(c.args)}: ${answer.text}`;
        expect(answer.isError, label).toBe(c.error);
        if (c.says) expect(answer.text, label).toMatch(c.says);
        outcomes.push(`${name}: ${answer.isError ? "error" : "ok"}`);
        expect(t.fatal, t.fatal ? `${t.fatal.reason} after ${name}` : "").toBeNull();
      }
    }

    // The rest of the surface the tunnel may forward.
    const resources = await t.request("resources/list", {});
    expect(resources, JSON.stringify(resources)).toMatchObject({ result: { resources: expect.arrayContaining([expect.objectContaining({ uri: "ui://codex-bridge/artifact-viewer.html" })]) } });
    const templates = await t.request("resources/templates/list", {});
    expect(templates, JSON.stringify(templates)).toMatchObject({
      result: { resourceTemplates: expect.arrayContaining([expect.objectContaining({ uriTemplate: expect.stringMatching(/^codex-artifact:\/\//) })]) },
    });
    // An unknown tool is a tool error that names it (the MCP SDK's behaviour), not a JSON-RPC error.
    const unknown = toolAnswer(await t.request("tools/call", { name: "no_such_tool", arguments: {} }));
    expect(unknown.isError, unknown.text).toBe(true);
    expect(unknown.text).toMatch(/no_such_tool not found/);
    const ping = await t.request("ping", {});
    expect(ping, JSON.stringify(ping)).toMatchObject({ result: {} });
    const readme = await t.request("resources/read", { uri: "codex-artifact://demo/README.md" });
    expect("result" in readme, JSON.stringify(readme)).toBe(true);
    expect(JSON.stringify(readme)).toContain("# temp project");

    expect(t.fatal, t.fatal ? `${t.fatal.reason}: ${t.fatal.line ?? ""}` : "").toBeNull();
    expect(t.retiredIds).toEqual([]);
    // Whatever the server pushed on its own was a notification, never a request.
    for (const n of t.notifications) expect(n.method).toMatch(/^notifications\//);
    expect(outcomes.length).toBeGreaterThan(names.length);
    console.info(`[bridge-tools] ${names.length} tools, ${outcomes.length} calls: ${outcomes.join(", ")}`);
  }, 300_000);
});
