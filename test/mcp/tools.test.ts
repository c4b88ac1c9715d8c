// The MCP surface itself: annotations, health, admin tools, progress, and bad input for every tool.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { resultText, startHarness, type Harness } from "../../src/selftest/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never", viewHost: true });
});
afterAll(async () => {
  await h?.close();
});

type S = Record<string, any>;
const sc = (r: { structuredContent?: unknown }) => (r.structuredContent ?? {}) as S;

async function runTask(prompt: string, text: string): Promise<S> {
  h.provider!.enqueue({ kind: "output", items: [{ type: "message", text }] });
  const start = sc(await h.call("codex_start", { project_id: "demo", prompt }));
  for (let i = 0; i < 20; i++) {
    const w = sc(await h.call("codex_wait", { task_id: start.task_id, timeout_seconds: 20 }));
    if (w.state === "completed") return start;
  }
  throw new Error("task did not complete");
}

describe("MCP surface", () => {
  it("declares every tool with a title, output schema and all four annotation hints, truthfully", async () => {
    const { tools } = await h.client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual(
      [
        "codex_artifact", "codex_cancel", "codex_card", "codex_card_respond", "codex_checkpoint", "codex_files", "codex_health", "codex_inspect", "codex_models",
        "codex_respond", "codex_result", "codex_runtime", "codex_send", "codex_start", "codex_status", "codex_submit_tool_result",
        "codex_threads", "codex_wait",
      ].sort(),
    );
    const mutating = new Set(["codex_start", "codex_send", "codex_respond", "codex_card_respond", "codex_submit_tool_result", "codex_cancel", "codex_runtime"]);
    for (const t of tools) {
      expect(t.title, t.name).toBeTruthy();
      expect(t.outputSchema, t.name).toBeTruthy();
      const a = t.annotations!;
      for (const k of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) expect(typeof a[k], `${t.name}.${k}`).toBe("boolean");
      if (mutating.has(t.name)) expect(a.readOnlyHint, t.name).toBe(false);
      else if (t.name !== "codex_checkpoint") expect(a.readOnlyHint, t.name).toBe(true);
    }
  });

  it("codex_health reports config, SQLite, app-server, login, models and the bridge's identity", async () => {
    const r = await h.call("codex_health", {});
    expect(r.isError, resultText(r)).toBeFalsy();
    const s = sc(r);
    expect(s.healthy).toBe(true);
    expect(s.bridge.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(s.bridge.fingerprint).toBeTruthy();
    expect(s.bridge.pid).toBe(process.pid);
    expect(typeof s.bridge.uptime_s).toBe("number");
    expect(s.codex.version).toBe("0.171.0");
    expect(s.codex.app_server).toBe("initialized");
    expect(s.codex.models).toBeGreaterThan(0);
    expect(s.codex.login).toBeTruthy();
    expect(s.sqlite.ok).toBe(true);
    expect(s.config.projects).toEqual([{ id: "demo", cwd: h.projectDir, ok: true }]);
    expect(JSON.stringify(s)).not.toMatch(/api[_-]?key|token/i);
  });

  it("codex_models, codex_threads, codex_checkpoint and codex_runtime work", async () => {
    const models = sc(await h.call("codex_models", {}));
    expect(models.models.length).toBeGreaterThan(0);
    const task = await runTask("thread listing", "listed");
    const threads = sc(await h.call("codex_threads", { action: "list" }));
    expect(threads.threads.some((t: S) => t.thread_id === task.thread_id && t.task_id === task.task_id)).toBe(true);
    const turns = sc(await h.call("codex_threads", { action: "read", thread_id: task.thread_id }));
    expect(turns.turns[0].status).toBe("completed");
    const noThread = await h.call("codex_threads", { action: "read" });
    expect(noThread.isError).toBe(true);
    expect(resultText(noThread)).toMatch(/thread_id is required/);

    await h.call("codex_checkpoint", { action: "update", task_id: task.task_id, goal: "ship it", next_step: "review" });
    const cp = sc(await h.call("codex_checkpoint", { action: "read", task_id: task.task_id }));
    expect(cp.checkpoint).toMatchObject({ goal: "ship it", next_step: "review" });
    const tooLong = await h.call("codex_checkpoint", { action: "update", task_id: task.task_id, goal: "x".repeat(2001) });
    expect(tooLong.isError).toBe(true);

    const status = sc(await h.call("codex_runtime", { action: "status" }));
    expect(status.state).toBe("ready");
    expect(status.pid).toBeGreaterThan(0);
    const restarted = sc(await h.call("codex_runtime", { action: "restart" }));
    expect(restarted.restarts).toBe(status.restarts + 1);
    expect(restarted.pid).not.toBe(status.pid);
    // The thread is not loaded on the new app-server: a new turn must resume it first, and then work.
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "after restart" }] });
    const sent = sc(await h.call("codex_send", { task_id: task.task_id, message: "again" }));
    expect(sent.action).toBe("new_turn");
    for (let i = 0; i < 20; i++) if (sc(await h.call("codex_wait", { task_id: task.task_id, timeout_seconds: 20 })).state === "completed") break;
    expect(sc(await h.call("codex_result", { task_id: task.task_id })).final_message).toBe("after restart");
  });

  it("refuses a runtime restart while a task is active", async () => {
    const before = h.provider!.requests.length;
    h.provider!.enqueue({ kind: "hang" });
    const start = sc(await h.call("codex_start", { project_id: "demo", prompt: "hang for restart" }));
    // Cancel only once the model request is in flight, or the queued hang would be left for the next test.
    await h.provider!.waitForRequests(before + 1, 20_000);
    const r = await h.call("codex_runtime", { action: "restart" });
    expect(r.isError).toBe(true);
    expect(resultText(r)).toMatch(/restart refused: 1 active task/);
    await h.call("codex_cancel", { task_id: start.task_id });
  });

  it("sends progress notifications while a wait is long", async () => {
    h.provider!.enqueue({ kind: "hang" });
    const start = sc(await h.call("codex_start", { project_id: "demo", prompt: "hang for progress" }));
    const progress: { progress: number; message?: string }[] = [];
    const r = await h.client.callTool({ name: "codex_wait", arguments: { task_id: start.task_id, timeout_seconds: 6 } }, undefined, {
      onprogress: (p) => progress.push(p),
      timeout: 30_000,
    });
    // No news: the answer and every notification say what the task is doing now.
    expect(sc(r as S)).toEqual({ state: "running", ran_s: expect.any(Number) });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)!.message).toMatch(/^running \d+s, thinking$/);
    await h.call("codex_cancel", { task_id: start.task_id });
  });

  it("bad input to every tool is a tool error naming the field", async () => {
    const task = await runTask("for bad input", "ok");
    const other = await runTask("another", "ok");
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["codex_start", { project_id: "demo" }, /prompt/],
      ["codex_start", { project_id: "demo", prompt: "x", profile: "nope" }, /profile "nope" is not configured/],
      ["codex_wait", { task_id: task.task_id, cursor: `${other.task_id}:1` }, /cursor .* belongs to task/],
      ["codex_wait", { task_id: task.task_id, cursor: "garbage" }, /cursor "garbage" is malformed/],
      ["codex_wait", { task_id: task.task_id, timeout_seconds: 301 }, /timeout_seconds/],
      ["codex_wait", { task_id: task.task_id, mode: "loud" }, /mode/],
      ["codex_status", { task_id: "t_zz" }, /task_id/],
      ["codex_send", { task_id: task.task_id, message: "" }, /message/],
      ["codex_respond", { task_id: task.task_id, request_id: "r_0000000000", action: "accept" }, /request_id "r_0000000000" is not a request/],
      ["codex_respond", { task_id: task.task_id, request_id: "nope", action: "accept" }, /request_id/],
      ["codex_submit_tool_result", { task_id: task.task_id, request_id: "r_0000000000", status: "maybe", result: "x" }, /status/],
      ["codex_result", { task_id: "t_0000000000" }, /task_id "t_0000000000" is unknown/],
      ["codex_inspect", { task_id: task.task_id, kind: "everything" }, /kind/],
      ["codex_inspect", { task_id: task.task_id, kind: "command_output" }, /item_id/],
      ["codex_cancel", { task_id: "t_0000000000" }, /task_id/],
      ["codex_files", { project_id: "nope" }, /project/],
      ["codex_artifact", { project_id: "demo", path: "../etc/passwd" }, /path/],
      ["codex_models", { cursor: 5 }, /cursor/],
      ["codex_threads", { action: "delete" }, /action/],
      ["codex_checkpoint", { action: "read", task_id: "x" }, /task_id/],
      ["codex_runtime", { action: "reboot" }, /action/],
    ];
    for (const [tool, args, re] of cases) {
      const r = await h.call(tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)}: ${resultText(r)}`).toBe(true);
      expect(resultText(r), tool).toMatch(re);
    }
  });
});

describe("context evidence and aliases", () => {
  it("codex_status shows what was asked next to what Codex reports, and aliases select the project", async () => {
    const h2 = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never", extraConfig: "" });
    try {
      h2.bridge.settings.projects.demo!.aliases = ["main-repo"];
      h2.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "ok" }] });
      const start = sc(await h2.call("codex_start", { project_id: "main-repo", prompt: "ctx" }));
      expect(start.project_id).toBe("demo");
      const st = await h2.call("codex_status", { task_id: start.task_id });
      const s = sc(st);
      expect(s.context.requested).toMatchObject({ cwd: h2.projectDir, approval_policy: "never", sandbox: "workspace-write" });
      expect(s.context.native).toMatchObject({ cwd: h2.projectDir, approval_policy: "never", sandbox: "workspaceWrite" });
      expect(resultText(st)).toMatch(/context: cwd=/);
      expect(resultText(st)).not.toMatch(/asked/);
      // The artifact tools take the same alias as codex_start.
      const files = await h2.call("codex_files", { project_id: "main-repo" });
      expect(files.isError).toBeFalsy();
      expect(resultText(files)).toContain("README.md");
      const art = await h2.call("codex_artifact", { project_id: "main-repo", path: "README.md" });
      expect(art.isError).toBeFalsy();
      expect(sc(art).sha256).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await h2.close();
    }
  });
});

describe("profile settings checked against the live model/list", () => {
  it("refuses an unknown model, an unsupported effort and an unknown service tier before any turn", async () => {
    const h3 = await startHarness(await getPlatform(), {
      mockProvider: true,
      extraConfig: [
        `[profiles.badmodel]`, `model = "no-such-model"`,
        `[profiles.badeffort]`, `model = "gpt-5.5"`, `effort = "ludicrous"`,
        `[profiles.badtier]`, `service_tier = "warp"`,
      ].join("\n"),
    });
    try {
      const cases: [string, RegExp][] = [
        ["badmodel", /model "no-such-model" is not in this Codex's model\/list/],
        ["badeffort", /effort "ludicrous" is not offered by gpt-5.5; use one of: /],
        ["badtier", /service tier "warp" is not offered by any model; use one of: .*priority/],
      ];
      for (const [profile, re] of cases) {
        const r = await h3.call("codex_start", { project_id: "demo", prompt: "x", profile });
        expect(r.isError, profile).toBe(true);
        expect(resultText(r)).toMatch(re);
      }
      expect(h3.provider!.requests).toHaveLength(0);
      const effortOverride = await h3.call("codex_start", { project_id: "demo", prompt: "x", effort: "nonsense" });
      expect(resultText(effortOverride)).toMatch(/effort "nonsense" is not offered by any model/);
    } finally {
      await h3.close();
    }
  });
});
