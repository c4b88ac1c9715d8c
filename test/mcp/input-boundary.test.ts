// The tool-input boundary against the real app-server: every tool input is a strict object (an unknown key is an error
// naming it and the accepted keys), and a string holding a lone UTF-16 surrogate, anywhere in any input, is refused at
// once with the field's name: no task is created and nothing is written to the app-server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { resultText, startHarness, type Harness } from "../../src/selftest/harness.ts";

let h: Harness;
/** Every method the bridge sent to the app-server since the last reset. */
const sent: string[] = [];

beforeAll(async () => {
  h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
  // Start the app-server, then watch every request written to it.
  expect((await h.call("codex_models", {})).isError).toBeFalsy();
  const client = h.bridge.runtimes.default.current!;
  const request = client.request.bind(client);
  client.request = ((method: string, params?: unknown, opts?: { timeoutMs?: number }) => {
    sent.push(method);
    return request(method, params, opts);
  }) as typeof client.request;
});
afterAll(async () => {
  await h?.close();
});

type Args = Record<string, unknown>;

async function refused(tool: string, args: Args): Promise<string> {
  const r = await h.call(tool, args);
  const text = resultText(r);
  expect(r.isError, `${tool} ${JSON.stringify(args)}: ${text}`).toBe(true);
  return text;
}

function expectNothingHappened(): void {
  expect(sent, "requests written to the app-server").toEqual([]);
  expect(h.bridge.repo.recentTasks(10), "tasks created").toEqual([]);
  expect(h.provider!.requests, "model requests").toHaveLength(0);
}

describe("strict tool inputs", () => {
  it("codex_start with cwd, sandbox or approval_policy is refused, naming the key and the accepted keys; no task starts", async () => {
    sent.length = 0;
    for (const [key, value] of [["cwd", "/"], ["sandbox", "danger-full-access"], ["approval_policy", "never"]] as const) {
      const text = await refused("codex_start", { project_id: "demo", prompt: "say ok", [key]: value });
      expect(text).toContain(`"${key}"`);
      expect(text).toMatch(/is not an input of this tool/);
      for (const accepted of ["project_id", "prompt", "profile", "model", "effort", "thread_id"]) expect(text).toContain(accepted);
    }
    expectNothingHappened();
  });

  it("every listed tool refuses an unknown key and lists its own accepted keys", async () => {
    sent.length = 0;
    const { tools } = await h.client.listTools();
    for (const tool of tools) {
      // The listing says so where a model is likeliest to invent a key (the budget has no room for all 16).
      if (tool.name === "codex_start" || tool.name === "codex_send") expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      const text = await refused(tool.name, { zz_not_a_field: 1 });
      expect(text, tool.name).toContain('"zz_not_a_field"');
      for (const key of Object.keys(tool.inputSchema.properties ?? {})) expect(text, `${tool.name} should list ${key}`).toContain(key);
    }
    expectNothingHappened();
  });

  it("Gemini CLI's host-added wait_for_previous is accepted and ignored by every tool; a look-alike key is still refused", async () => {
    sent.length = 0;
    const { tools } = await h.client.listTools();
    for (const tool of tools) {
      for (const value of [true, false]) {
        const r = await h.call(tool.name, { zz_not_a_field: 1, wait_for_previous: value });
        // Refused for the invented key alone: the host's own key is not named.
        expect(resultText(r), tool.name).toContain('"zz_not_a_field"');
        expect(resultText(r), tool.name).not.toContain("wait_for_previous");
      }
    }
    const health = await h.call("codex_health", { wait_for_previous: true });
    expect(health.isError, resultText(health)).toBeFalsy();
    const status = await h.call("codex_status", { wait_for_previous: false });
    expect(status.isError, resultText(status)).toBeFalsy();
    for (const lookalike of ["wait_for_prev", "Wait_For_Previous", "waitForPrevious"]) {
      expect(await refused("codex_status", { [lookalike]: true })).toContain(`"${lookalike}"`);
    }
    expect(h.bridge.repo.recentTasks(10), "tasks created").toEqual([]);
  });
});

const LONE_HIGH = "\ud800";
const LONE_LOW = "\udc00";

describe("lone UTF-16 surrogates", () => {
  it("codex_start with a lone surrogate in the prompt is refused at once, naming prompt; no task, nothing sent", async () => {
    sent.length = 0;
    for (const prompt of [`fix the bug ${LONE_HIGH}`, `${LONE_LOW} at the start`, `end ${LONE_HIGH}`]) {
      const text = await refused("codex_start", { project_id: "demo", prompt });
      expect(text).toMatch(/prompt: .*lone UTF-16 surrogate/);
    }
    // A well-formed pair (an emoji) is fine and is not what this refuses.
    expect(await refused("codex_start", { project_id: "demo", prompt: "ok 😀", cwd: "/" })).not.toMatch(/surrogate/);
    expectNothingHappened();
  });

  it("codex_models and codex_threads refuse a lone surrogate in cursor and thread_id; nothing reaches the app-server", async () => {
    sent.length = 0;
    expect(await refused("codex_models", { cursor: `abc${LONE_HIGH}` })).toMatch(/cursor: .*lone UTF-16 surrogate/);
    expect(await refused("codex_threads", { action: "list", cursor: LONE_LOW })).toMatch(/cursor: .*lone UTF-16 surrogate/);
    expect(await refused("codex_threads", { action: "read", thread_id: `0199${LONE_HIGH}` })).toMatch(/thread_id: .*lone UTF-16 surrogate/);
    expect(await refused("codex_start", { project_id: "demo", prompt: "adopt", thread_id: LONE_LOW })).toMatch(/thread_id: .*lone UTF-16 surrogate/);
    expectNothingHappened();
  });

  it("nested strings and keys of payloads and results are checked too, with the path to them", async () => {
    sent.length = 0;
    const task = "t_0123456789";
    const request = "r_0123456789";
    expect(await refused("codex_respond", { task_id: task, request_id: request, action: "accept", payload: { answers: { q1: [`yes${LONE_HIGH}`] } } })).toMatch(
      /payload\.answers\.q1\[0\]: .*lone UTF-16 surrogate/,
    );
    expect(await refused("codex_submit_tool_result", { task_id: task, request_id: request, status: "success", result: { [`k${LONE_LOW}`]: 1 } })).toMatch(
      /result: a key .*lone UTF-16 surrogate/,
    );
    expect(await refused("codex_cancel", { task_id: task, reason: LONE_HIGH })).toMatch(/reason: .*lone UTF-16 surrogate/);
    expectNothingHappened();
  });

  it("the bridge still works afterwards", async () => {
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "fine" }] });
    const r = await h.call("codex_start", { project_id: "demo", prompt: "say fine 😀" });
    expect(r.isError, resultText(r)).toBeFalsy();
  });
});
