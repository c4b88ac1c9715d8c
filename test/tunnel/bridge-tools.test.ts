// Every tool the bridge lists, called through the tunnel emulator with valid arguments and with bad ones: the
// bridge must never send the client a request (that stops the real tunnel) nor a non-JSON byte on stdout.
import { afterEach, describe, expect, it } from "vitest";
import { callTool, prepareBridge, type BridgeSetup, type ToolAnswer } from "../support/bridge-process.ts";
import type { JsonRpcResponse, TunnelEmulator } from "../support/tunnel-emulator.ts";

let setup: BridgeSetup | null = null;
let tunnel: TunnelEmulator | null = null;

afterEach(async () => {
  if (tunnel) {
    const report = await tunnel.stop();
    if (!report.exited && tunnel.pid > 0) process.kill(tunnel.pid, "SIGKILL");
  }
  tunnel = null;
  await setup?.cleanup();
  setup = null;
});

type Args = Record<string, unknown>;
interface Case {
  args: Args;
  /** true: must be a tool error (isError), false: must succeed, undefined: either. */
  error?: boolean;
}

describe("no server→client requests from any tool", () => {
  it("calls every listed tool, valid and invalid, and the tunnel never sees a request or a stray byte", async () => {
    setup = await prepareBridge({ approvalPolicy: "never" });
    // Every model request gets a short final message unless a test scripted something else.
    setup.provider.setResponder(() => ({ kind: "output", items: [{ type: "message", text: "ok from the mock" }] }));
    const t = await setup.spawn({ deadlineMs: 60_000 });
    tunnel = t;
    await t.initialize({ capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} } });

    const list = await t.request("tools/list", {});
    if (!("result" in list)) throw new Error(JSON.stringify(list));
    const names = (list.result as { tools: { name: string }[] }).tools.map((x) => x.name).sort();

    const start = await callTool(t, "codex_start", { project_id: "demo", prompt: "say ok" });
    expect(start.isError, start.text).toBe(false);
    const taskId = start.structured.task_id as string;
    // Settle it first so every task tool has something real to report.
    for (let i = 0; i < 10; i++) {
      const w = await callTool(t, "codex_wait", { task_id: taskId, timeout_seconds: 20 });
      if (w.structured.state === "completed") break;
    }
    const threadId = (await callTool(t, "codex_status", { task_id: taskId })).structured.thread_id as string;
    expect(threadId).toBeTruthy();

    const noTask = "t_0000000000";
    const noRequest = "r_0000000000";
    const cases: Record<string, Case[]> = {
      codex_health: [{ args: {}, error: false }],
      codex_start: [
        { args: { project_id: "demo", prompt: "second task" }, error: false },
        { args: { project_id: "nope", prompt: "x" }, error: true },
        { args: { project_id: "demo" }, error: true },
      ],
      codex_wait: [
        { args: { task_id: taskId, timeout_seconds: 2 }, error: false },
        { args: { task_id: noTask }, error: true },
        { args: { task_id: taskId, cursor: "garbage" }, error: true },
      ],
      codex_status: [{ args: {}, error: false }, { args: { task_id: taskId }, error: false }, { args: { task_id: "bad" }, error: true }],
      codex_send: [{ args: { task_id: taskId, message: "one more thing" }, error: false }, { args: { task_id: noTask, message: "x" }, error: true }],
      codex_respond: [{ args: { task_id: taskId, request_id: noRequest, action: "accept" }, error: true }, { args: { task_id: taskId }, error: true }],
      codex_submit_tool_result: [
        { args: { task_id: taskId, request_id: noRequest, status: "success", result: "x" }, error: true },
        { args: { task_id: taskId, request_id: noRequest, status: "maybe", result: "x" }, error: true },
      ],
      codex_result: [{ args: { task_id: taskId }, error: false }, { args: { task_id: noTask }, error: true }],
      codex_inspect: [
        { args: { task_id: taskId, kind: "transcript" }, error: false },
        { args: { task_id: taskId, kind: "commands" }, error: false },
        { args: { task_id: taskId, kind: "nope" }, error: true },
      ],
      codex_cancel: [{ args: { task_id: taskId, reason: "done" } }, { args: { task_id: noTask }, error: true }],
      codex_files: [{ args: { project_id: "demo" }, error: false }, { args: { project_id: "nope" }, error: true }],
      codex_artifact: [
        { args: { project_id: "demo", path: "README.md" }, error: false },
        { args: { project_id: "demo", path: "../../etc/passwd" }, error: true },
        { args: { project_id: "demo", path: "missing.txt" }, error: true },
      ],
      codex_models: [{ args: {} }],
      codex_threads: [
        { args: { action: "list" }, error: false },
        { args: { action: "read", thread_id: threadId } },
        { args: { action: "read" }, error: true },
      ],
      codex_checkpoint: [
        { args: { action: "update", task_id: taskId, goal: "prove the tunnel path" }, error: false },
        { args: { action: "read", task_id: taskId }, error: false },
        { args: { action: "read", task_id: noTask }, error: true },
      ],
      codex_runtime: [{ args: { action: "status" }, error: false }, { args: { action: "restart" } }, { args: { action: "explode" }, error: true }],
    };
    // A tool added later without a case here fails this test instead of going unexercised.
    expect(names.filter((n) => !(n in cases)), "tools without a case").toEqual([]);

    const outcomes: string[] = [];
    for (const name of names) {
      for (const c of cases[name]!) {
        // A progress token invites notifications/progress; those are fine, requests are not.
        const res: JsonRpcResponse = await t.request("tools/call", { name, arguments: c.args }, { progressToken: `${name}-p` });
        expect("result" in res, `${name} ${JSON.stringify(c.args)} → JSON-RPC error ${JSON.stringify(res)}`).toBe(true);
        const r = (res as { result: { isError?: boolean; content: { type: string; text?: string }[] } }).result;
        const answer: ToolAnswer = { isError: r.isError === true, text: r.content.map((x) => x.text ?? "").join("\n"), structured: {} };
        if (c.error !== undefined) expect(answer.isError, `${name} ${JSON.stringify(c.args)}: ${answer.text}`).toBe(c.error);
        if (answer.isError) expect(answer.text.length, `${name}: an error must say what is wrong`).toBeGreaterThan(10);
        outcomes.push(`${name}: ${answer.isError ? "error" : "ok"}`);
        expect(t.fatal, t.fatal ? `${t.fatal.reason} after ${name}` : "").toBeNull();
      }
    }

    // The rest of the surface the tunnel may forward.
    for (const [method, params] of [
      ["resources/list", {}],
      ["resources/templates/list", {}],
      ["tools/call", { name: "no_such_tool", arguments: {} }],
      ["ping", {}],
    ] as const) {
      await t.request(method, params as Record<string, unknown>);
    }
    const readme = await t.request("resources/read", { uri: "codex-artifact://demo/README.md" });
    expect("result" in readme, JSON.stringify(readme)).toBe(true);

    expect(t.fatal, t.fatal ? `${t.fatal.reason}: ${t.fatal.line ?? ""}` : "").toBeNull();
    expect(t.retiredIds).toEqual([]);
    // Whatever the server pushed on its own was a notification, never a request.
    for (const n of t.notifications) expect(n.method).toMatch(/^notifications\//);
    expect(outcomes.length).toBeGreaterThan(names.length);
    console.info(`[bridge-tools] ${names.length} tools, ${outcomes.length} calls: ${outcomes.join(", ")}`);
  }, 300_000);
});
