// Gemini CLI (the pinned @google/gemini-cli, `gemini -p`) supervising the bridge over stdio, offline: its model is a
// loopback mock of the Gemini API that plays the supervisor (test/hosts/supervisor-script.ts) and sets Gemini's own
// `wait_for_previous` on every call, as its model may. settings.json is the README's, plus the test's paths and env.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverInstructions } from "../../src/mcp/server-identity.ts";
import { removeTempDir, tempDir } from "../support/temp-dir.ts";
import { bridgeUnderTest, HOSTS_PREFIX, runHost, sizeLine, textsIn, type BridgeUnderTest } from "./host-fixture.ts";
import { sse, startMockHttp, type MockHttp, type MockRequest } from "./mock-http.ts";
import { proxyEnv, startRefusingProxy, type RefusingProxy } from "./refusing-proxy.ts";
import { FINAL_WORDS, nextStep, PERSON_WORDS, posingStep, TASK_PROMPT, type Step } from "./supervisor-script.ts";

const GEMINI = join(HOSTS_PREFIX, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js");
let bridge: BridgeUnderTest;
let model: MockHttp;
/** The supervisor the mock model plays in the current test. */
let script: (results: string[], calls: string[], listed: string[]) => Step = nextStep;
let proxy: RefusingProxy;
let home: string;

type Part = { text?: string; functionCall?: { name: string; args?: unknown }; functionResponse?: { name: string; response?: unknown } };
type Decl = { name: string; description?: string; parametersJsonSchema?: unknown; parameters?: unknown };
type Body = { contents?: { role?: string; parts?: Part[] }[]; tools?: { functionDeclarations?: Decl[] }[]; systemInstruction?: unknown };

const declarations = (b: Body) => (b.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
/** The bridge's tools as Gemini CLI names them (a prefix, then the tool's own name). */
const ours = (b: Body) => declarations(b).filter((d) => /codex_(health|start|wait)$/.test(d.name) || d.name.includes("codex_"));

function reply(res: ServerResponse, stream: boolean, part: Part): void {
  const chunk = { candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 } };
  if (stream) return sse(res, [{ data: chunk }]);
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(chunk));
}

function handle(req: MockRequest, res: ServerResponse): void {
  const stream = req.path.includes(":streamGenerateContent");
  if (req.path.includes(":countTokens")) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ totalTokens: 100 }));
    return;
  }
  if (!req.path.includes(":generateContent") && !stream) {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { code: 404, message: "mock: not here", status: "NOT_FOUND" } }));
    return;
  }
  const body = (req.body ?? {}) as Body;
  const tools = ours(body);
  // Side requests without the bridge's tools (e.g. Gemini CLI's own "who speaks next" check) get a plain answer.
  if (!tools.length) return reply(res, stream, { text: JSON.stringify({ reasoning: "the supervisor's turn is over", next_speaker: "user" }) });
  const prefix = tools.find((d) => d.name.endsWith("codex_start"))!.name.slice(0, -"codex_start".length);
  const parts = (body.contents ?? []).flatMap((c) => c.parts ?? []);
  const calls = parts.filter((p) => p.functionCall).map((p) => p.functionCall!.name.slice(prefix.length));
  const results = parts.filter((p) => p.functionResponse).map((p) => textsIn(p.functionResponse!.response).join("\n"));
  const step = script(results, calls, tools.map((d) => d.name.slice(prefix.length)));
  if ("done" in step) return reply(res, stream, { text: step.done });
  reply(res, stream, { functionCall: { name: prefix + step.tool, args: { ...step.args, wait_for_previous: true } } });
}

beforeAll(async () => {
  bridge = await bridgeUnderTest();
  model = await startMockHttp(handle);
  proxy = await startRefusingProxy();
  home = tempDir("gemini-cli-host-");
});
afterAll(async () => {
  await model?.close();
  await proxy?.close();
  await bridge?.setup.cleanup();
  if (home) removeTempDir(home);
});

/** Gemini CLI headless on the README's settings.json (with the test's paths and env, usage statistics off). */
async function runGemini(b: BridgeUnderTest) {
  mkdirSync(join(home, ".gemini"), { recursive: true });
  writeFileSync(
    join(home, ".gemini", "settings.json"),
    JSON.stringify({ mcpServers: { bridge: { command: b.command, args: b.args, env: b.env, trust: true } }, security: { auth: { selectedType: "gemini-api-key" } }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } }),
  );
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    GEMINI_API_KEY: "mock-key",
    GOOGLE_GEMINI_BASE_URL: model.baseUrl,
    GEMINI_CLI_NO_RELAUNCH: "true",
    NO_COLOR: "1",
    ...proxyEnv(proxy),
  };
  return runHost(process.execPath, [GEMINI, "-p", TASK_PROMPT, "-m", "gemini-2.5-flash", "--skip-trust", "--output-format", "json"], { cwd: b.setup.projectDir, env });
}

describe("Gemini CLI as the supervisor", () => {
  it("runs a whole supervised task with an approval, offline, with the README's settings.json (trust)", async () => {
    expect(existsSync(GEMINI), "Gemini CLI is not installed: run `npm ci --ignore-scripts` in .ci/hosts (or set HOSTS_PREFIX)").toBe(true);
    const run = await runGemini(bridge);
    const transcript = `exit ${run.code}\nstdout:\n${run.stdout.slice(-6000)}\nstderr:\n${run.stderr.slice(-4000)}\nmodel requests: ${model.requests.map((r) => r.path).join(", ")}`;
    expect(run.code, transcript).toBe(0);
    expect(run.stdout, transcript).toContain(FINAL_WORDS);
    expect(bridge.approved(), transcript).toBe(true);
    expect(proxy.attempts, "connections Gemini CLI tried beyond the loopback mock").toEqual([]);

    const withTools = model.requests.map((r) => r.body as Body).find((b) => ours(b).length > 0)!;
    const decl = ours(withTools);
    expect(decl.map((d) => d.name).some((n) => n.endsWith("codex_card_respond"))).toBe(false);
    expect(JSON.stringify(decl)).toContain("wait_for_previous");
    const instructions = JSON.stringify(withTools).includes("codex-bridge runs the real Codex on the user") ? serverInstructions().length : 0;
    const toolChars = JSON.stringify(decl).length;
    console.log(sizeLine("Gemini CLI", toolChars, instructions, decl.length));
    // Gemini CLI adds its own wait_for_previous (about 260 characters) to every tool: the total is over 8,000, the
    // bridge's own part is not.
    const added = decl.reduce((n, d) => {
      const props = ((d.parametersJsonSchema ?? d.parameters) as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
      return n + (props.wait_for_previous === undefined ? 0 : `"wait_for_previous":${JSON.stringify(props.wait_for_previous)},`.length);
    }, 0);
    console.log(`[hosts] Gemini CLI: of which its own wait_for_previous = ${added} characters; the bridge's part = ${toolChars + instructions - added}`);
    expect(added).toBeGreaterThan(0);
    expect(toolChars + instructions - added).toBeLessThanOrEqual(8_000);
  });

  it("under approvals = person, its model calls every tool it is given and still cannot answer the request", async () => {
    const person = await bridgeUnderTest("person");
    script = posingStep;
    const before = proxy.attempts.length;
    try {
      const run = await runGemini(person);
      const transcript = `exit ${run.code}\nstdout:\n${run.stdout.slice(-6000)}\nstderr:\n${run.stderr.slice(-3000)}`;
      expect(run.code, transcript).toBe(0);
      expect(run.stdout, transcript).toContain(PERSON_WORDS);
      expect(person.approved(), transcript).toBe(false);
      // What the model read (Gemini CLI shows it the text): the refusal, and the request still pending at the end.
      const read = model.requests.map((r) => JSON.stringify(r.body)).at(-1)!;
      expect(read).toMatch(/is the person's to decide/);
      expect(read).toMatch(/pending r_[0-9a-f]{10}/);
      expect(proxy.attempts.length).toBe(before);
    } finally {
      script = nextStep;
      await person.setup.cleanup();
    }
  });
});
