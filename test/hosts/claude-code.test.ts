// Claude Code (the pinned @anthropic-ai/claude-code, its native linux-x64 binary, print mode) supervising the bridge
// over stdio, offline: its model is a loopback mock of the Anthropic Messages API that plays the supervisor
// (test/hosts/supervisor-script.ts) through the mcp__bridge__* tools. The --mcp-config file and the allow-list are the
// README's, plus the test's paths and environment.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverInstructions } from "../../src/mcp/server-identity.ts";
import { removeTempDir, tempDir } from "../support/temp-dir.ts";
import { bridgeUnderTest, HOSTS_PREFIX, runHost, sizeLine, textsIn, type BridgeUnderTest } from "./host-fixture.ts";
import { sse, startMockHttp, type MockHttp, type MockRequest } from "./mock-http.ts";
import { proxyEnv, startRefusingProxy, type RefusingProxy } from "./refusing-proxy.ts";
import { FINAL_WORDS, nextStep, PERSON_WORDS, posingStep, TASK_PROMPT, type Step } from "./supervisor-script.ts";

const CLAUDE = join(HOSTS_PREFIX, "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude");
const PREFIX = "mcp__bridge__";
let bridge: BridgeUnderTest;
let model: MockHttp;
/** The supervisor the mock model plays in the current test. */
let script: (results: string[], calls: string[], listed: string[]) => Step = nextStep;
let proxy: RefusingProxy;
let home: string;

type Block = { type: string; name?: string; text?: string; content?: unknown };
type Msg = { role: string; content: string | Block[] };
type Body = { stream?: boolean; tools?: { name: string }[]; messages?: Msg[]; system?: unknown; model?: string };

/** An assistant message: text, or one tool_use; streamed when the request asked for a stream. */
function answer(res: ServerResponse, body: Body, content: { text: string } | { tool: string; input: Record<string, unknown> }): void {
  const id = `msg_${Math.random().toString(16).slice(2, 10)}`;
  const block = "text" in content ? { type: "text", text: content.text } : { type: "tool_use", id: `toolu_${id}`, name: content.tool, input: content.input };
  const stop = "text" in content ? "end_turn" : "tool_use";
  const usage = { input_tokens: 100, output_tokens: 10 };
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id, type: "message", role: "assistant", model: body.model ?? "mock", content: [block], stop_reason: stop, stop_sequence: null, usage }));
    return;
  }
  const start = "text" in content ? { type: "text", text: "" } : { ...block, input: {} };
  const delta = "text" in content ? { type: "text_delta", text: content.text } : { type: "input_json_delta", partial_json: JSON.stringify(content.input) };
  sse(res, [
    { event: "message_start", data: { type: "message_start", message: { id, type: "message", role: "assistant", model: body.model ?? "mock", content: [], stop_reason: null, stop_sequence: null, usage } } },
    { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: start } },
    { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta } },
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 10 } } },
    { event: "message_stop", data: { type: "message_stop" } },
  ]);
}

function handle(req: MockRequest, res: ServerResponse): void {
  if (req.method !== "POST" || !req.path.startsWith("/v1/messages")) {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "mock: not here" } }));
    return;
  }
  const body = (req.body ?? {}) as Body;
  if (req.path.startsWith("/v1/messages/count_tokens")) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ input_tokens: 100 }));
    return;
  }
  const blocks = (body.messages ?? []).flatMap((m) => (typeof m.content === "string" ? [] : m.content));
  if (!(body.tools ?? []).some((t) => t.name.startsWith(PREFIX))) {
    // Claude Code may ask its model before the bridge has started; its model then waits for the MCP servers.
    const waited = blocks.filter((b) => b.type === "tool_use" && b.name === "WaitForMcpServers").length;
    if ((body.tools ?? []).some((t) => t.name === "WaitForMcpServers") && waited < 5) return answer(res, body, { tool: "WaitForMcpServers", input: {} });
    return answer(res, body, { text: "ok" });
  }
  const calls = blocks.filter((b) => b.type === "tool_use").map((b) => (b.name ?? "").slice(PREFIX.length));
  const results = blocks.filter((b) => b.type === "tool_result").map((b) => textsIn(b.content).join("\n"));
  const listed = (body.tools ?? []).filter((t) => t.name.startsWith(PREFIX)).map((t) => t.name.slice(PREFIX.length));
  const step = script(results, calls, listed);
  if ("done" in step) return answer(res, body, { text: step.done });
  answer(res, body, { tool: PREFIX + step.tool, input: step.args });
}

beforeAll(async () => {
  bridge = await bridgeUnderTest();
  model = await startMockHttp(handle);
  proxy = await startRefusingProxy();
  home = tempDir("claude-code-host-");
});
afterAll(async () => {
  await model?.close();
  await proxy?.close();
  await bridge?.setup.cleanup();
  if (home) removeTempDir(home);
});

/** Claude Code in print mode on the README's --mcp-config file and allow-list (with the test's paths and env). */
async function runClaude(b: BridgeUnderTest) {
  const config = join(home, "bridge.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { bridge: { command: b.command, args: b.args, env: b.env } } }));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    ANTHROPIC_BASE_URL: model.baseUrl,
    ANTHROPIC_API_KEY: "sk-ant-mock-key",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    MCP_TOOL_TIMEOUT: "90000",
    ...proxyEnv(proxy),
  };
  const args = ["-p", TASK_PROMPT, "--mcp-config", config, "--strict-mcp-config", "--allowedTools", "mcp__bridge", "--output-format", "stream-json", "--verbose", "--model", "claude-sonnet-4-5"];
  return runHost(CLAUDE, args, { cwd: b.setup.projectDir, env });
}

describe("Claude Code as the supervisor", () => {
  it("runs a whole supervised task with an approval, offline, with the README's --mcp-config and allow-list", async () => {
    expect(existsSync(CLAUDE), "Claude Code is not installed: run `npm ci --ignore-scripts` in .ci/hosts (or set HOSTS_PREFIX)").toBe(true);
    const run = await runClaude(bridge);
    const transcript = `exit ${run.code}\nstdout:\n${run.stdout.slice(-6000)}\nstderr:\n${run.stderr.slice(-3000)}`;
    expect(run.code, transcript).toBe(0);
    expect(run.stdout, transcript).toContain(FINAL_WORDS);
    expect(bridge.approved(), transcript).toBe(true);
    expect(proxy.attempts, "connections Claude Code tried beyond the loopback mock").toEqual([]);

    const withTools = model.requests.map((r) => r.body as Body).find((b) => (b.tools ?? []).some((t) => t.name.startsWith(PREFIX)))!;
    const ours = withTools.tools!.filter((t) => t.name.startsWith(PREFIX));
    expect(ours.map((t) => t.name)).not.toContain(`${PREFIX}codex_card_respond`);
    // Claude Code puts the server instructions into the conversation (under "# MCP Server Instructions"), not the tools.
    const sent = JSON.stringify(withTools);
    const instructions = sent.includes("codex-bridge runs the real Codex on the user") ? serverInstructions().length : 0;
    expect(instructions, "the server instructions reach Claude Code's model").toBeGreaterThan(0);
    const toolChars = JSON.stringify(ours).length;
    console.log(sizeLine("Claude Code", toolChars, instructions, ours.length));
    expect(toolChars + instructions).toBeLessThanOrEqual(8_000);
  });

  it("under approvals = person, its model calls every tool it is given and still cannot answer the request", async () => {
    const person = await bridgeUnderTest("person");
    script = posingStep;
    const before = proxy.attempts.length;
    try {
      const run = await runClaude(person);
      const transcript = `exit ${run.code}\nstdout:\n${run.stdout.slice(-6000)}\nstderr:\n${run.stderr.slice(-3000)}`;
      expect(run.code, transcript).toBe(0);
      expect(run.stdout, transcript).toContain(PERSON_WORDS);
      // Codex's command never ran: nobody answered for the person.
      expect(person.approved(), transcript).toBe(false);
      expect(run.stdout).toMatch(/is the person's to decide/);
      // The last codex_status the model read (its structured content, as Claude Code shows it) still shows it pending.
      expect(run.stdout).toMatch(/\\"state\\":\\"waiting_for_approval\\"/);
      expect(run.stdout).toMatch(/\\"pending\\":\[\{\\"request_id\\":\\"r_[0-9a-f]{10}/);
      expect(proxy.attempts.length).toBe(before);
    } finally {
      script = nextStep;
      await person.setup.cleanup();
    }
  });
});
