// Every failure code a supervisor can branch on, each produced through the REAL app-server (the mock provider answers
// with the HTTP error) or by the bridge's own state (a cancel, a killed child, a restart, a missing binary). The same
// failure object must appear in the terminal codex_wait, codex_status and codex_result, with a sentence and retryable.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { assembleBridge } from "../../src/app/assemble.ts";
import { isolatedCodexEnv, isolatedConfigToml } from "../../src/codex/isolated-home.ts";
import { resultText, startHarness, type Harness } from "../../src/selftest/harness.ts";
import { startMockProvider, type MockResponse } from "../../src/selftest/mock-provider/index.ts";
import { writeFakeCodex } from "../support/fake-codex.ts";
import { sc, settled, type S } from "../support/task-waits.ts";

interface Expected {
  code: string;
  retryable: boolean;
  /** Words the sentence must contain: it has to tell the user what to do. */
  says: RegExp;
}

/** Starts a task, waits until it settles, and checks the failure in the terminal wait, codex_status and codex_result. */
async function expectFailure(h: Harness, prompt: string, want: Expected, during?: (taskId: string) => Promise<void>): Promise<S> {
  const start = await h.call("codex_start", { project_id: "demo", prompt });
  expect(start.isError, resultText(start)).toBeFalsy();
  const id = sc(start).task_id as string;
  await during?.(id);
  const waits = await settled(h, id);
  return checkFailureEverywhere(h, id, waits.at(-1)!, want);
}

async function checkFailureEverywhere(h: Harness, id: string, terminalWait: S, want: Expected): Promise<S> {
  const f = terminalWait.failure;
  expect(f, JSON.stringify(terminalWait)).toBeTruthy();
  expect(f.code).toBe(want.code);
  expect(f.retryable).toBe(want.retryable);
  expect(f.sentence).toMatch(want.says);
  const status = await h.call("codex_status", { task_id: id });
  expect(sc(status).failure).toEqual(f);
  expect(resultText(status)).toContain(want.code);
  const result = await h.call("codex_result", { task_id: id });
  expect(sc(result).failure).toEqual(f);
  // Once per answer: the code and the sentence are not repeated in the text.
  const text = resultText(result);
  expect(text.split(want.code).length - 1, text).toBe(1);
  expect(text.split(f.sentence).length - 1, text).toBe(1);
  return f;
}

describe("failure codes from the provider's HTTP errors, through the real app-server", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
  });
  afterAll(async () => {
    await h?.close();
  });

  const cases: [string, MockResponse, Expected][] = [
    ["401", { kind: "http_error", status: 401, message: "Incorrect API key provided" }, { code: "auth_rejected", retryable: false, says: /codex login/ }],
    ["403", { kind: "http_error", status: 403, message: "Your key may not use this project" }, { code: "auth_rejected", retryable: false, says: /codex login/ }],
    ["429 without quota text", { kind: "http_error", status: 429, message: "Rate limit reached for requests per min", code: "rate_limit_exceeded" }, { code: "rate_limited", retryable: true, says: /wait/ }],
    [
      "429 with quota text",
      { kind: "http_error", status: 429, message: "You exceeded your current quota, please check your plan and billing details.", code: "insufficient_quota" },
      { code: "quota_exceeded", retryable: false, says: /quota|usage limit/ },
    ],
    ["500", { kind: "http_error", status: 500, message: "internal failure" }, { code: "provider_error", retryable: true, says: /try again/ }],
    ["503", { kind: "http_error", status: 503, message: "overloaded" }, { code: "provider_error", retryable: true, says: /try again/ }],
    [
      "a context-length error body",
      { kind: "http_error", status: 400, message: "Your input exceeds the context window of this model.", code: "context_length_exceeded" },
      { code: "context_window_exceeded", retryable: false, says: /shorter prompt/ },
    ],
    [
      "an unknown model",
      { kind: "http_error", status: 404, message: "The model `gpt-nope` does not exist or you do not have access to it.", code: "model_not_found" },
      { code: "model_unavailable", retryable: false, says: /codex_models/ },
    ],
    ["an unclassifiable 400", { kind: "http_error", status: 400, message: "something odd about the request" }, { code: "unknown", retryable: false, says: /codex_inspect kind=warnings/ }],
  ];

  for (const [name, response, want] of cases) {
    it(`${name} → ${want.code}`, async () => {
      h.provider!.enqueue(response);
      await expectFailure(h, `provoke ${name}`, want);
    });
  }
});

describe("failure codes from the bridge's own state and the provider's absence", () => {
  let h: Harness | null = null;
  const dirs: string[] = [];
  afterEach(async () => {
    await h?.close();
    h = null;
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("a provider that refuses connections → provider_unreachable (Codex would wait for the network forever; the bridge stops the turn)", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    await h.provider!.close();
    const f = await expectFailure(h, "nobody listens", { code: "provider_unreachable", retryable: true, says: /network/ });
    expect(f).toBeTruthy();
  });

  it("no credentials for the provider → auth_required", async () => {
    // The provider wants an API key variable that the bridge's environment does not have: Codex's "no login" case.
    const provider = await startMockProvider();
    const root = mkdtempSync(join(tmpdir(), "codex-bridge-noauth-"));
    dirs.push(root);
    const home = join(root, "codex-home");
    mkdirSync(home);
    const toml = isolatedConfigToml({ providerBaseUrl: provider.baseUrl }).replace('wire_api = "responses"', 'wire_api = "responses"\nenv_key = "CODEX_BRIDGE_TEST_MISSING_KEY"');
    writeFileSync(join(home, "config.toml"), toml);
    const env = isolatedCodexEnv(process.env, { codexHome: home });
    try {
      h = await startHarness(await getPlatform(), { mockProvider: false, approvalPolicy: "never", env });
      await expectFailure(h, "who am I", { code: "auth_required", retryable: false, says: /codex login/ });
      expect(provider.requests).toHaveLength(0);
    } finally {
      await provider.close();
    }
  });

  it("codex_cancel → interrupted_by_supervisor", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.enqueue({ kind: "hang" });
    await expectFailure(h, "take your time", { code: "interrupted_by_supervisor", retryable: true, says: /codex_send/ }, async (id) => {
      await h!.provider!.waitForRequests(1, 20_000);
      const r = await h!.call("codex_cancel", { task_id: id });
      expect(r.isError, resultText(r)).toBeFalsy();
    });
  });

  it("a killed app-server → app_server_crashed, and codex_result of the lost turn carries it too", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.enqueue({ kind: "hang" });
    await expectFailure(h, "crash under me", { code: "app_server_crashed", retryable: true, says: /killed by SIGKILL during the turn; codex_send starts a recovery turn/ }, async () => {
      await h!.provider!.waitForRequests(1, 20_000);
      h!.bridge.runtimes.default.current!.kill("SIGKILL");
    });
  });

  it("a bridge stopped mid-turn → bridge_restarted once it is back", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.enqueue({ kind: "hang" });
    const id = sc(await h.call("codex_start", { project_id: "demo", prompt: "outlive me" })).task_id as string;
    await h.provider!.waitForRequests(1, 20_000);
    await h.bridge.close();
    const again = await assembleBridge(await getPlatform(), { env: h.env, cwd: h.root, log: () => {} });
    try {
      const t = (await again.service.status(id)).task;
      expect(t.state).toBe("connection_lost");
      expect(t.failure).toMatchObject({ code: "bridge_restarted", retryable: true });
      expect(t.failure!.sentence).toMatch(/recovery turn/);
    } finally {
      await again.close();
    }
    h.bridge.close = async () => {};
  });

  it("a turn failing with codexErrorInfo sandboxError → sandbox_denied (a fake app-server: the real 0.171.0 only fails the command, not the turn, offline)", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    const env = { ...h.env, CODEX_BIN: writeFakeCodex(h.root), FAKE_MODE: "turn-fails", FAKE_ERROR_INFO: "sandboxError", CODEX_BRIDGE_STATE: ":memory:" };
    const b = await assembleBridge(await getPlatform(), { env, cwd: h.root, log: () => {} });
    try {
      const t = await b.service.start({ project_id: "demo", prompt: "write outside" });
      const answer = (await b.service.wait({ task_id: t.id, timeout_seconds: 20 }, { connectionKey: "test" })).tasks[0]!;
      expect(answer.state).toBe("failed");
      expect(answer.failure).toMatchObject({ code: "sandbox_denied", retryable: false });
      expect(answer.failure!.sentence).toMatch(/sandbox_type/);
      expect((await b.service.status(t.id)).task.failure).toEqual(answer.failure);
    } finally {
      await b.close();
    }
  });

  it("a missing Codex binary → codex_missing on codex_start, recorded as a failed task", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    const env = { ...h.env, CODEX_BIN: join(h.root, "no-such-codex"), CODEX_BRIDGE_STATE: ":memory:" };
    const b = await assembleBridge(await getPlatform(), { env, cwd: h.root, log: () => {} });
    try {
      const t = await b.service.start({ project_id: "demo", prompt: "anyone there?" });
      expect(t.state).toBe("failed");
      expect(t.failure).toMatchObject({ code: "codex_missing", retryable: false });
      expect(t.failure!.sentence).toMatch(/CODEX_BIN/);
      expect((await b.service.status(t.id)).task.failure).toEqual(t.failure);
      const health = await b.health();
      expect(health.last_failure).toMatchObject({ task_id: t.id, code: "codex_missing" });
    } finally {
      await b.close();
    }
  });
});
