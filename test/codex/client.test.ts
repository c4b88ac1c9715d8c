// The app-server client against the REAL codex app-server (loopback mock model, isolated CODEX_HOME).
import { afterEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { AppServerClient } from "../../src/codex/client.ts";
import { RpcError } from "../../src/codex/errors.ts";
import type { ServerNotification, ServerRequest } from "../../src/codex/rpc-messages.ts";
import { lastFunctionOutput } from "../../src/selftest/mock-provider/index.ts";
import { RELAY_TOOL_SPEC } from "../../src/tasks/relay-tool.ts";
import { poll } from "../support/poll.ts";
import { prepareRealCodex, type RealCodex } from "../support/real-codex.ts";
import { makeTempGitProject, type TempGitProject } from "../support/temp-project.ts";

let codex: RealCodex | null = null;
let project: TempGitProject | null = null;
let client: AppServerClient | null = null;

afterEach(async () => {
  await client?.close(300);
  await codex?.cleanup();
  project?.cleanup();
  client = null;
  codex = null;
  project = null;
});

async function connect(): Promise<{ c: AppServerClient; notes: ServerNotification[]; reqs: ServerRequest[] }> {
  codex = await prepareRealCodex();
  project = makeTempGitProject();
  const c = new AppServerClient({ platform: await getPlatform(), codexBin: codex.codexBin, env: codex.env, clientVersion: "test" });
  const notes: ServerNotification[] = [];
  const reqs: ServerRequest[] = [];
  c.onNotification((n) => notes.push(n));
  c.onServerRequest((r) => reqs.push(r));
  await c.start();
  client = c;
  return { c, notes, reqs };
}

/** For a poll's timeout error: the methods of the messages that did arrive. */
const methods = (messages: { method: string }[]) => messages.map((m) => m.method).join(", ") || "none";

describe("AppServerClient on the real app-server", () => {
  it("initializes, lists models, runs a turn to turn/completed", async () => {
    const { c, notes } = await connect();
    expect(c.initializeInfo?.userAgent).toContain("codex-bridge/0.171.0");
    const models = await c.request<{ data: unknown[] }>("model/list", {});
    expect(models.data.length).toBeGreaterThan(0);
    codex!.provider.enqueue({ kind: "output", items: [{ type: "message", text: "hello there", deltas: 3 }] });
    const th = await c.request<{ thread: { id: string } }>("thread/start", { cwd: project!.dir, dynamicTools: [RELAY_TOOL_SPEC] });
    await c.request("turn/start", { threadId: th.thread.id, input: [{ type: "text", text: "hi", text_elements: [] }] });
    const done = await poll(() => notes.find((n) => n.method === "turn/completed"), { timeoutMs: 20_000, what: () => `turn/completed (notifications: ${methods(notes)})` });
    expect((done.params as { turn: { status: string } }).turn.status).toBe("completed");
    // The notification literally named "error" must not break dispatch: it is just another method name.
    expect(notes.some((n) => n.method === "item/agentMessage/delta")).toBe(true);
  });

  it("answers an approval and a dynamic tool call with their original ids", async () => {
    const { c, notes, reqs } = await connect();
    codex!.provider.enqueue(
      { kind: "output", items: [{ type: "exec", cmd: "echo approved > ok.txt" }] },
      { kind: "output", items: [{ type: "tool", name: "bridge_web_tool", arguments: { capability: "web_search", request: "q", operation: "read" } }] },
      { kind: "output", items: [{ type: "message", text: "finished" }] },
    );
    const th = await c.request<{ thread: { id: string } }>("thread/start", { cwd: project!.dir, approvalPolicy: "untrusted", dynamicTools: [RELAY_TOOL_SPEC] });
    await c.request("turn/start", { threadId: th.thread.id, input: [{ type: "text", text: "go", text_elements: [] }] });
    const approval = await poll(() => reqs.find((r) => r.method === "item/commandExecution/requestApproval"), { timeoutMs: 20_000, what: () => `the command approval request (requests: ${methods(reqs)})` });
    await c.respond(approval.id, { decision: "accept" });
    const call = await poll(() => reqs.find((r) => r.method === "item/tool/call"), { timeoutMs: 20_000, what: () => `the dynamic tool call (requests: ${methods(reqs)})` });
    await c.respond(call.id, { contentItems: [{ type: "inputText", text: "RELAYED-42" }], success: true });
    await poll(() => notes.find((n) => n.method === "turn/completed"), { timeoutMs: 20_000, what: () => `turn/completed (notifications: ${methods(notes)})` });
    expect(lastFunctionOutput(codex!.provider.requests.at(-1)!)).toContain("RELAYED-42");
    expect(notes.some((n) => n.method === "serverRequest/resolved")).toBe(true);
  });

  it("reports JSON-RPC errors as RpcError and sees the child's exit", async () => {
    const { c } = await connect();
    await expect(c.request("turn/steer", { threadId: "nope", expectedTurnId: "x", input: [] })).rejects.toBeInstanceOf(RpcError);
    const exited = new Promise<{ signal: string | null }>((r) => c.onExit((e) => r(e)));
    c.kill("SIGKILL");
    const e = await exited;
    expect(e.signal).toBe("SIGKILL");
    expect(c.state).toBe("exited");
    await expect(c.request("model/list", {})).rejects.toThrow(/connection is closed/);
  });
});
