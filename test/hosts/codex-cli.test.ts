// Codex CLI (the pinned @openai/codex, `codex exec`) supervising the bridge over stdio, offline: its model is a loopback
// mock of the Responses API that plays the supervisor (test/hosts/supervisor-script.ts) through the `mcp__bridge`
// namespace Codex CLI gives it. The server entry is the README's, plus the test's paths and environment.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeIsolatedCodexHome, isolatedCodexEnv } from "../../src/codex/isolated-home.ts";
import { startMockProvider, type MockProvider, type RecordedRequest } from "../../src/selftest/mock-provider/index.ts";
import { bundledCodexBin } from "../support/real-codex.ts";
import { removeTempDir, tempDir } from "../support/temp-dir.ts";
import { bridgeUnderTest, runHost, sizeLine, textsIn, type BridgeUnderTest } from "./host-fixture.ts";
import { proxyEnv, startRefusingProxy, type RefusingProxy } from "./refusing-proxy.ts";
import { FINAL_WORDS, nextStep, TASK_PROMPT } from "./supervisor-script.ts";

const toml = (s: string) => JSON.stringify(s);
let bridge: BridgeUnderTest;
let model: MockProvider;
let proxy: RefusingProxy;
let home: string;

beforeAll(async () => {
  bridge = await bridgeUnderTest();
  model = await startMockProvider();
  proxy = await startRefusingProxy();
  home = tempDir("codex-cli-host-");
});
afterAll(async () => {
  await model?.close();
  await proxy?.close();
  await bridge?.setup.cleanup();
  if (home) removeTempDir(home);
});

type Item = { type?: string; name?: string; output?: unknown };

/** The supervisor's next move, from what Codex CLI sent its model. */
function respond(req: RecordedRequest) {
  const tools = (req.body as { tools?: { type?: string; name?: string }[] }).tools ?? [];
  // Codex CLI does not hold the first turn for its MCP servers: until the bridge's tools arrive, the model waits a moment.
  if (!tools.some((t) => t.type === "namespace" && t.name === "mcp__bridge")) {
    if (req.index < 20) return { kind: "output" as const, items: [{ type: "exec" as const, cmd: "sleep 1" }] };
    return { kind: "output" as const, items: [{ type: "message" as const, text: "the bridge's tools never arrived" }] };
  }
  const input = ((req.body as { input?: Item[] }).input ?? []) as Item[];
  const calls = input.filter((i) => i.type === "function_call").map((i) => i.name ?? "");
  const results = input.filter((i) => i.type === "function_call_output").map((i) => textsIn(i.output).join("\n"));
  const step = nextStep(results, calls);
  if ("done" in step) return { kind: "output" as const, items: [{ type: "message" as const, text: step.done }] };
  return { kind: "output" as const, items: [{ type: "tool" as const, name: step.tool, namespace: "mcp__bridge", arguments: step.args }] };
}

describe("Codex CLI as the supervisor", () => {
  it("runs a whole supervised task with an approval, offline, through the README's server entry", async () => {
    model.setResponder(respond);
    const env = Object.entries(bridge.env).map(([k, v]) => `${k} = ${toml(v)}`).join("\n");
    writeIsolatedCodexHome({
      dir: home,
      providerBaseUrl: model.baseUrl,
      approvalPolicy: "never",
      sandboxMode: "read-only",
      extraToml: [
        "[mcp_servers.bridge]",
        `command = ${toml(bridge.command)}`,
        `args = [${bridge.args.map(toml).join(", ")}]`,
        'default_tools_approval_mode = "approve"',
        "",
        "[mcp_servers.bridge.env]",
        env,
        "",
      ].join("\n"),
    });
    const run = await runHost(bundledCodexBin(), ["exec", "--json", "--skip-git-repo-check", TASK_PROMPT], {
      cwd: bridge.setup.projectDir,
      env: { ...isolatedCodexEnv(process.env, { codexHome: home }), ...proxyEnv(proxy) },
    });
    const transcript = `exit ${run.code}\nstdout:\n${run.stdout.slice(-4000)}\nstderr:\n${run.stderr.slice(-4000)}`;
    expect(run.code, transcript).toBe(0);
    expect(run.stdout, transcript).toContain(FINAL_WORDS);
    expect(bridge.approved(), transcript).toBe(true);
    const calls = model.requests.flatMap((r) => ((r.body as { input?: Item[] }).input ?? []).filter((i) => i.type === "function_call").map((i) => i.name));
    expect(new Set(calls)).toEqual(new Set(["codex_health", "codex_start", "codex_wait", "codex_respond", "codex_result"]));
    const lastInput = JSON.stringify(model.requests.at(-1)!.body);
    expect(lastInput).toMatch(/submitted/);
    expect(proxy.attempts, "connections Codex CLI tried beyond the loopback mock").toEqual([]);

    const withTools = model.requests.find((r) => ((r.body as { tools?: { type?: string; name?: string }[] }).tools ?? []).some((t) => t.name === "mcp__bridge"))!;
    const ns = ((withTools.body as { tools: { name?: string; tools?: unknown[]; description?: string }[] }).tools).find((t) => t.name === "mcp__bridge")!;
    const total = JSON.stringify(ns).length;
    console.log(sizeLine("Codex CLI", total - (ns.description ?? "").length, (ns.description ?? "").length, ns.tools?.length ?? 0));
    expect(total).toBeLessThanOrEqual(8_000);
  });
});
