// Proves the mock against the REAL codex app-server: raw JSONL over stdio, no project client code involved.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { lastFunctionOutput, toolNames, userTexts } from "../../src/selftest/mock-provider/index.ts";
import { makeTempGitProject, type TempGitProject } from "../support/temp-project.ts";
import { prepareRealCodex, type RealCodex } from "../support/real-codex.ts";

type Json = Record<string, unknown>;
interface Message {
  id?: number | string;
  method?: string;
  params?: Json;
  result?: Json;
  error?: { code: number; message: string };
}

/** The least a test needs to talk JSON-RPC lines to `codex app-server`. */
class RawAppServer {
  readonly messages: Message[] = [];
  stderr = "";
  private nextId = 1;
  private buffer = "";
  private listeners = new Set<() => void>();
  private exited: Promise<void>;

  constructor(private child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      this.buffer += chunk;
      let nl: number;
      while ((nl = this.buffer.indexOf("\n")) >= 0) {
        const line = this.buffer.slice(0, nl).trim();
        this.buffer = this.buffer.slice(nl + 1);
        if (line !== "") this.messages.push(JSON.parse(line) as Message);
      }
      for (const l of [...this.listeners]) l();
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => child.on("exit", () => resolve()));
  }

  send(msg: Json): void {
    this.child.stdin.write(`${JSON.stringify(msg)}\n`);
  }

  /** Resolves with the first message (already received or future) that matches. */
  waitFor(match: (m: Message) => boolean, what: string, timeoutMs = 30_000): Promise<Message> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = this.messages.find(match);
        if (!hit) return false;
        this.listeners.delete(check);
        clearTimeout(timer);
        resolve(hit);
        return true;
      };
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        reject(new Error(`no ${what} within ${timeoutMs} ms; stderr:\n${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      if (!check()) this.listeners.add(check);
    });
  }

  async request(method: string, params: Json): Promise<Json> {
    const id = this.nextId++;
    const reply = this.waitFor((m) => m.id === id && m.method === undefined, `response to ${method}#${id}`);
    this.send({ id, method, params });
    const msg = await reply;
    if (msg.error) throw new Error(`${method} failed: ${msg.error.code} ${msg.error.message}`);
    return msg.result ?? {};
  }

  turnCompleted(turnId: string): Promise<Message> {
    return this.waitFor(
      (m) => m.method === "turn/completed" && (m.params?.turn as Json | undefined)?.id === turnId,
      `turn/completed for ${turnId}`,
    );
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    const killer = setTimeout(() => this.child.kill("SIGKILL"), 1_000);
    await this.exited;
    clearTimeout(killer);
  }
}

const WEB_TOOL = {
  type: "function",
  name: "bridge_web_tool",
  description: "Fetch a web page on the supervisor's side.",
  inputSchema: { type: "object", properties: { url: { type: "string" } }, required: ["url"], additionalProperties: false },
};

let codex: RealCodex;
let project: TempGitProject;
let server: RawAppServer;

beforeEach(async () => {
  codex = await prepareRealCodex();
  project = makeTempGitProject({ files: { "README.md": "# mock project\n" } });
  const child = spawn(codex.codexBin, ["app-server"], { cwd: project.dir, env: codex.env, stdio: ["pipe", "pipe", "pipe"] });
  server = new RawAppServer(child);
  await server.request("initialize", {
    clientInfo: { name: "mockprovider-test", title: "Mock provider test", version: "0.0.1" },
    capabilities: { experimentalApi: true },
  });
  server.send({ method: "initialized" });
});

afterEach(async () => {
  await server?.close();
  await codex?.cleanup();
  project?.cleanup();
});

async function startThread(extra: Json = {}): Promise<string> {
  const result = await server.request("thread/start", { cwd: project.dir, dynamicTools: [WEB_TOOL], ...extra });
  return (result.thread as Json).id as string;
}

async function startTurn(threadId: string, text: string): Promise<Message> {
  // turn/completed may follow the response in the same chunk, so the waiter is registered first.
  const result = await server.request("turn/start", { threadId, input: [{ type: "text", text, text_elements: [] }] });
  const turnId = (result.turn as Json).id as string;
  return server.turnCompleted(turnId);
}

const turnOf = (m: Message) => m.params?.turn as { status: string; items: Json[]; error: Json | null };

describe("real codex app-server against the mock provider", () => {
  it("runs a plain message turn: one request carrying the prompt, the scripted answer back", async () => {
    codex.provider.enqueue({ kind: "output", items: [{ type: "message", text: "Hello from the mock", deltas: 3 }] });
    const threadId = await startThread();
    const done = await startTurn(threadId, "Say hello");

    expect(turnOf(done).status).toBe("completed");
    expect(turnOf(done).items).toContainEqual(expect.objectContaining({ type: "agentMessage", text: "Hello from the mock" }));
    const deltas = server.messages.filter((m) => m.method === "item/agentMessage/delta").map((m) => m.params?.delta);
    expect(deltas.join("")).toBe("Hello from the mock");

    expect(codex.provider.requests).toHaveLength(1);
    const [req] = codex.provider.requests;
    expect(userTexts(req)).toContain("Say hello");
    expect(req.body.model).toBe("mock-model");
    expect(toolNames(req)).toEqual(expect.arrayContaining(["exec_command", "bridge_web_tool"]));
    expect(req.headers.authorization).toBeUndefined();
  });

  it("runs an exec_command in the project without approval when the thread's policy is never", async () => {
    codex.provider.enqueue(
      { kind: "output", items: [{ type: "exec", cmd: "echo hello-from-shell > out.txt && cat out.txt", callId: "call_shell_1" }] },
      { kind: "output", items: [{ type: "message", text: "wrote it" }] },
    );
    const threadId = await startThread({ approvalPolicy: "never" });
    const done = await startTurn(threadId, "write out.txt");

    expect(turnOf(done).status).toBe("completed");
    expect(readFileSync(join(project.dir, "out.txt"), "utf8")).toBe("hello-from-shell\n");
    expect(server.messages.filter((m) => m.method === "item/commandExecution/requestApproval")).toEqual([]);
    const exec = server.messages.find((m) => m.method === "item/completed" && (m.params?.item as Json).type === "commandExecution");
    expect(exec?.params?.item).toMatchObject({ id: "call_shell_1", status: "completed", exitCode: 0 });

    expect(codex.provider.requests).toHaveLength(2);
    expect(lastFunctionOutput(codex.provider.requests[1], "call_shell_1")).toContain("hello-from-shell");
  });

  it("routes a dynamic tool call to the client and feeds its answer to the next model request", async () => {
    codex.provider.enqueue(
      { kind: "output", items: [{ type: "tool", name: "bridge_web_tool", arguments: { url: "https://example.com/" }, callId: "call_bridge_1" }] },
      { kind: "output", items: [{ type: "message", text: "the page says hi" }] },
    );
    const threadId = await startThread();
    const result = await server.request("turn/start", { threadId, input: [{ type: "text", text: "fetch it", text_elements: [] }] });
    const completed = server.turnCompleted((result.turn as Json).id as string);

    const call = await server.waitFor((m) => m.method === "item/tool/call" && m.id !== undefined, "item/tool/call request");
    expect(call.params).toMatchObject({ threadId, callId: "call_bridge_1", tool: "bridge_web_tool", arguments: { url: "https://example.com/" } });
    server.send({ id: call.id, result: { contentItems: [{ type: "inputText", text: "BRIDGE RESULT marker-7f3a" }], success: true } });

    const done = await completed;
    expect(turnOf(done).status).toBe("completed");
    expect(codex.provider.requests).toHaveLength(2);
    expect(lastFunctionOutput(codex.provider.requests[1], "call_bridge_1")).toBe("BRIDGE RESULT marker-7f3a");
  });

  it("fails the turn with codexErrorInfo on an HTTP 500, without retrying", async () => {
    codex.provider.enqueue({ kind: "http_error", status: 500, message: "scripted outage" });
    const threadId = await startThread();
    const done = await startTurn(threadId, "this will fail");

    expect(turnOf(done).status).toBe("failed");
    expect(turnOf(done).error).toMatchObject({ codexErrorInfo: "internalServerError" });
    expect(codex.provider.requests).toHaveLength(1);
  });

  it("fails the turn when the stream ends without response.completed", async () => {
    codex.provider.enqueue({ kind: "disconnect", items: [{ type: "message", text: "half an answer" }] });
    const threadId = await startThread();
    const done = await startTurn(threadId, "this will be cut");

    expect(turnOf(done).status).toBe("failed");
    expect(JSON.stringify(turnOf(done).error)).toContain("stream disconnected before completion");
  });

  it("records that codex closed a hanging stream when the turn is interrupted", async () => {
    codex.provider.enqueue({ kind: "hang", partialText: "still thinking" });
    const threadId = await startThread();
    const result = await server.request("turn/start", { threadId, input: [{ type: "text", text: "take your time", text_elements: [] }] });
    const turnId = (result.turn as Json).id as string;
    const completed = server.turnCompleted(turnId);
    await codex.provider.waitForRequests(1, 30_000);

    await server.request("turn/interrupt", { threadId, turnId });
    expect(turnOf(await completed).status).toBe("interrupted");
    const aborted = await codex.provider.waitForClientAbort(0, 30_000);
    expect(aborted.outcome).toBe("client_aborted");
  });
});
