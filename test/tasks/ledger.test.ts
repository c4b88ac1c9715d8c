// The interaction ledger with a scripted app-server connection: what is recorded before and after a write,
// what an interrupted write leaves behind, and how Codex's own closing events settle a request.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import type { AppServerClient } from "../../src/codex/client.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { openStateDatabase, type OpenedStore } from "../../src/store/open.ts";
import { Repo } from "../../src/store/repo.ts";
import { rejectedBridgeError as rejection } from "../support/bridge-errors.ts";
import { redactor } from "../../src/policy/redact.ts";
import type { CodexRuntime } from "../../src/runtime/app-server.ts";
import { RuntimePool } from "../../src/runtime/pool.ts";
import { TaskDomain } from "../../src/tasks/domain.ts";
import { fakeClient, type FakeClient } from "../support/fake-codex-client.ts";

let store: OpenedStore;
let repo: Repo;
let domain: TaskDomain;
let client: FakeClient;
const runtime = { current: null as FakeClient | null, loadedThreads: new Set<string>() };
const TASK = "t_00000000aa";
const THREAD = "thread-1";

beforeEach(async () => {
  store = await openStateDatabase(await getPlatform(), ":memory:", MIGRATIONS);
  repo = new Repo(store.db, redactor);
  client = fakeClient("conn-1");
  runtime.current = client;
  const runtimes = new RuntimePool({ profiles: {}, env: {}, userHome: "/home/nobody", make: () => runtime as unknown as CodexRuntime });
  domain = new TaskDomain(repo, runtimes, {
    projects: { p: { id: "p", cwd: "/tmp/ledger-project" } },
    profiles: {},
    relay: { enabled: true, max_result_bytes: 4096 },
    ackTimeoutMs: 1000,
    maxWaitSeconds: 60,
  });
  repo.insertTask({ id: TASK, project_id: "p", profile_id: "default", prompt: "go", relay: true, model: null, effort: null, state: "completed" });
  repo.updateTask(TASK, { thread_id: THREAD });
  domain.recoverAfterRestart(); // maps the thread to the task
  repo.updateTask(TASK, { state: "running", turn_id: "turn-1", connection_id: client.connectionId });
});
afterEach(() => store.close());

const asClient = (c: FakeClient) => c as unknown as AppServerClient;

function toolCall(rpcId: number, callId = "call_1"): string {
  domain.onServerRequest(asClient(client), {
    id: rpcId,
    method: "item/tool/call",
    params: { threadId: THREAD, turnId: "turn-1", callId, namespace: null, tool: "bridge_web_tool", arguments: { capability: "web_search", request: "q", operation: "read" } },
  });
  const i = repo.interactions(TASK).find((x) => x.rpc_id === rpcId);
  expect(i).toBeDefined();
  return i!.id;
}

function approval(rpcId: number): string {
  domain.onServerRequest(asClient(client), {
    id: rpcId,
    method: "item/commandExecution/requestApproval",
    params: { threadId: THREAD, turnId: "turn-1", itemId: `call_c${rpcId}`, command: "/bin/bash -lc 'ls'", availableDecisions: ["accept", "cancel"] },
  });
  return repo.interactions(TASK).find((x) => x.rpc_id === rpcId)!.id;
}

const submit = (request_id: string, result = "found it") => domain.submitToolResult({ task_id: TASK, request_id, status: "success", result });

describe("interaction ledger", () => {
  it("binds the original id, connection, thread, turn and call; the task waits for the tool", () => {
    const id = toolCall(7);
    const i = repo.interaction(id)!;
    expect(i).toMatchObject({ kind: "tool", rpc_id: 7, connection_id: "conn-1", thread_id: THREAD, turn_id: "turn-1", item_id: "call_1", state: "pending" });
    expect(repo.task(TASK)!.state).toBe("waiting_for_tool");
  });

  it("is uncertain during the write, submitted after it, resolved by Codex's item/completed", async () => {
    const id = toolCall(0);
    let during: string | undefined;
    client.onWrite = () => {
      during = repo.interaction(id)!.state;
    };
    const out = await submit(id);
    expect(during).toBe("uncertain");
    expect(out.interaction.state).toBe("submitted");
    expect(client.writes).toEqual([{ id: 0, result: { contentItems: [{ type: "inputText", text: "found it" }], success: true } }]);
    expect(repo.task(TASK)!.state).toBe("running");
    domain.onNotification(asClient(client), { method: "item/completed", params: { threadId: THREAD, turnId: "turn-1", item: { type: "dynamicToolCall", id: "call_1", status: "completed" } } });
    expect(repo.interaction(id)!.state).toBe("resolved");
  });

  it("an interrupted write stays uncertain and is never redone, not even by an identical repeat", async () => {
    const id = toolCall(3);
    client.failNext = new Error("EPIPE");
    const e = await rejection(submit(id));
    expect(e.message).toMatch(/may or may not have reached Codex.*uncertain and will not be resent/);
    expect(repo.interaction(id)!.state).toBe("uncertain");
    const again = await submit(id);
    expect(again).toMatchObject({ repeated: true, interaction: { state: "uncertain" } });
    const other = await rejection(submit(id, "another text"));
    expect(other.message).toMatch(/already answered \(state uncertain\).*nothing was sent/);
    expect(client.writes).toEqual([]);
  });

  it("answers for a connection that is gone are refused and marked stale without a write", async () => {
    const id = toolCall(1);
    runtime.current = fakeClient("conn-2");
    const e = await rejection(submit(id));
    expect(e.message).toMatch(/stale: the app-server connection that asked it is gone. Nothing was sent/);
    expect(repo.interaction(id)!.state).toBe("stale");
    expect(client.writes).toEqual([]);
    expect(runtime.current.writes).toEqual([]);
  });

  it("serverRequest/resolved confirms an answered approval, and closes an unanswered one as stale", async () => {
    const answered = approval(10);
    const unanswered = approval(11);
    expect(repo.task(TASK)!.state).toBe("waiting_for_approval");
    await domain.respond({ task_id: TASK, request_id: answered, action: "accept" });
    domain.onNotification(asClient(client), { method: "serverRequest/resolved", params: { threadId: THREAD, requestId: 10 } });
    domain.onNotification(asClient(client), { method: "serverRequest/resolved", params: { threadId: THREAD, requestId: 11 } });
    expect(repo.interaction(answered)!.state).toBe("resolved");
    expect(repo.interaction(unanswered)!.state).toBe("stale");
    expect(repo.task(TASK)!.state).toBe("running");
    // Request ids are per connection: the same number from another connection settles nothing here.
    const third = approval(12);
    domain.onNotification(asClient(fakeClient("conn-9")), { method: "serverRequest/resolved", params: { threadId: THREAD, requestId: 12 } });
    expect(repo.interaction(third)!.state).toBe("pending");
  });

  it("an unanswered tool call that Codex completes (interrupt) is stale", () => {
    const id = toolCall(4, "call_x");
    domain.onNotification(asClient(client), { method: "item/completed", params: { threadId: THREAD, turnId: "turn-1", item: { type: "dynamicToolCall", id: "call_x", status: "failed" } } });
    expect(repo.interaction(id)!.state).toBe("stale");
  });

  it("connection loss: pending becomes stale, the task connection_lost", () => {
    const id = toolCall(5);
    client.exit = { code: null, signal: "SIGKILL" };
    domain.onExit(asClient(client));
    expect(repo.interaction(id)).toMatchObject({ state: "stale", note: "the app-server connection was lost" });
    expect(repo.task(TASK)!.state).toBe("connection_lost");
  });

  it("the size limit counts the whole submission and names the limit", async () => {
    const id = toolCall(6);
    const e = await rejection(domain.submitToolResult({ task_id: TASK, request_id: id, status: "success", result: "ok", sources: ["x".repeat(5000)] }));
    expect(e.message).toMatch(/\[relay\] max_result_bytes is 4096.*nothing was sent/);
    expect(e.field).toBe("result");
    expect(repo.interaction(id)!.state).toBe("pending");
    expect(client.writes).toEqual([]);
  });
});

describe("app-server death", () => {
  it("leaves answers written but unconfirmed uncertain (approvals and tool results alike) and open requests stale", async () => {
    const answered = approval(7);
    const relayed = toolCall(8);
    const open = approval(9);
    await domain.respond({ task_id: TASK, request_id: answered, action: "accept" });
    await submit(relayed);
    expect(repo.interaction(answered)!.state).toBe("submitted");
    client.exit = { code: null, signal: "SIGKILL" };
    domain.onExit(asClient(client));
    expect(repo.interaction(answered)!.state).toBe("uncertain");
    expect(repo.interaction(relayed)!.state).toBe("uncertain");
    expect(repo.interaction(open)!.state).toBe("stale");
    expect(repo.task(TASK)!.state).toBe("connection_lost");
  });
});
