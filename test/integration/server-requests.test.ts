// Every request Codex can send the bridge, produced by the REAL app-server (loopback mock model) and answered through
// codex_respond, with the effect checked on Codex's side: a permission grant, user-input answers, MCP elicitations
// (Codex's own tool-call approval, then a form with a field of each type the policy checks), and an approval whose
// first wait answer was lost, read again in full from codex_status and codex_inspect.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { resultText, startHarness, type Harness, type HarnessOptions } from "../../src/selftest/harness.ts";
import { lastFunctionOutput } from "../../src/selftest/mock-provider/index.ts";
import { PROJECT_ROOT } from "../support/real-codex.ts";
import { nextRequest, sc, settled, startTask, type S } from "../support/task-waits.ts";

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const harness = async (opts: Partial<HarnessOptions> = {}) => startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "on-request", ...opts });

async function respond(taskId: string, req: S, action: string, payload?: Record<string, unknown>): Promise<void> {
  const r = await h!.call("codex_respond", { task_id: taskId, request_id: req.request_id, action, ...(payload ? { payload } : {}) });
  expect(r.isError, resultText(r)).toBeFalsy();
}

describe("server requests on the real Codex", () => {
  it("item/permissions/requestApproval: a grant inside the project lets the next command write where the sandbox forbade it", async () => {
    h = await harness({ codexFeatures: { request_permissions_tool: true } });
    const target = join(h.projectDir, ".git", "info");
    h.provider!.enqueue(
      { kind: "output", items: [{ type: "tool", name: "request_permissions", arguments: { permissions: { file_system: { write: [target] } }, reason: "record a local exclude" } }] },
      { kind: "output", items: [{ type: "exec", cmd: "touch .git/info/granted && echo granted" }] },
      { kind: "output", items: [{ type: "message", text: "done" }] },
    );
    const id = await startTask(h, "needs .git/info");
    const req = await nextRequest(h, id);
    expect(req).toMatchObject({ kind: "permissions", reason: "record a local exclude", paths: [target], decisions: ["accept", "decline"] });
    await respond(id, req, "accept", { scope: "turn" });
    expect((await settled(h, id)).at(-1)!.state).toBe("completed");
    // Without the grant Codex's sandbox keeps .git read-only (the command fails with "Read-only file system").
    expect(existsSync(join(target, "granted"))).toBe(true);
    expect(h.bridge.repo.interaction(req.request_id)!.state).toBe("resolved");
  });

  it("item/tool/requestUserInput: the supervisor's answers reach the model as the tool's output", async () => {
    // Codex asks questions in Plan mode, or in Default mode with this switch (still under development in 0.171.0).
    h = await harness({ codexFeatures: { default_mode_request_user_input: true } });
    const questions = [
      { id: "color", header: "Color", question: "Which color?", options: [{ label: "red", description: "warm" }, { label: "blue", description: "cool" }] },
      // Codex requires options on every question, and adds isOther: a free answer is allowed too.
      { id: "name", header: "Name", question: "Name of the release?", options: [{ label: "Aurora", description: "first idea" }] },
    ];
    h.provider!.enqueue(
      { kind: "output", items: [{ type: "tool", name: "request_user_input", arguments: { questions } }] },
      { kind: "output", items: [{ type: "message", text: "thanks" }] },
    );
    const id = await startTask(h, "ask me");
    const req = await nextRequest(h, id);
    expect(req.kind).toBe("userInput");
    expect(req.questions).toEqual([
      { id: "color", question: "Which color?", options: ["red", "blue"] },
      { id: "name", question: "Name of the release?", options: ["Aurora"] },
    ]);
    await respond(id, req, "answer", { answers: { color: "blue", name: "Borealis" } });
    expect((await settled(h, id)).at(-1)!.state).toBe("completed");
    const output = JSON.parse(lastFunctionOutput(h.provider!.requests[1]!)!);
    expect(output).toEqual({ answers: { color: { answers: ["blue"] }, name: { answers: ["Borealis"] } } });
  });

  it("mcpServer/elicitation/request: Codex's tool-call approval, then a form with every field type, reach the MCP server", async () => {
    const bun = join(PROJECT_ROOT, "node_modules", ".bin", "bun");
    const server = join(PROJECT_ROOT, "test", "support", "elicit-mcp-server.ts");
    h = await harness({ codexExtraToml: `[mcp_servers.forms]\ncommand = ${JSON.stringify(bun)}\nargs = [${JSON.stringify(server)}]` });
    // Codex registers an MCP server's tools for turns that start once it is ready: a first turn lets it start.
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "ready" }] });
    const client = await h.bridge.runtimes.default.ensure();
    const ready = new Promise<void>((resolve) => {
      const off = client.onNotification((n) => {
        const p = (n.params ?? {}) as S;
        if (n.method === "mcpServer/startupStatus/updated" && p.name === "forms" && p.status === "ready") {
          off();
          resolve();
        }
      });
    });
    const id = await startTask(h, "warm up");
    await settled(h, id);
    await ready;
    h.provider!.enqueue(
      { kind: "output", items: [{ type: "tool", name: "fill_form", namespace: "mcp__forms", arguments: {} }] },
      { kind: "output", items: [{ type: "message", text: "form sent" }] },
    );
    await h.call("codex_send", { task_id: id, message: "fill the release form" });

    const approval = await nextRequest(h, id);
    expect(approval).toMatchObject({ kind: "elicitation", message: 'Allow the forms MCP server to run tool "fill_form"?' });
    const detail = sc(await h.call("codex_inspect", { task_id: id, kind: "requests", item_id: approval.request_id })).items[0];
    expect(detail.mcp_tool).toEqual({ server: "forms", tool: "fill_form", params: {} });
    await respond(id, approval, "accept", { content: {} });

    const form = await nextRequest(h, id);
    expect(form).toMatchObject({ kind: "elicitation", message: "Release details for the changelog" });
    const status = sc(await h.call("codex_status", { task_id: id }));
    const schema = status.pending.find((p: S) => p.request_id === form.request_id).schema;
    expect(Object.keys(schema.properties).sort()).toEqual(["color", "confirm", "count", "email", "name", "ratio", "size", "tags"]);
    const bad = await h.call("codex_respond", { task_id: id, request_id: form.request_id, action: "accept", payload: { content: { name: "Ada", count: 11, confirm: true, color: "blue" } } });
    expect(bad.isError).toBe(true);
    expect(resultText(bad)).toMatch(/payload\.content\.count must be at most 10/);
    const content = { name: "Ada", email: "ada@example.invalid", count: 3, ratio: 0.5, confirm: true, color: "blue", size: "l", tags: ["a", "c"] };
    await respond(id, form, "accept", { content });
    expect((await settled(h, id)).at(-1)!.state).toBe("completed");
    // The MCP server returned what it received; Codex passed it to the model as the tool's output.
    const last = h.provider!.requests.at(-1)!;
    expect(lastFunctionOutput(last)).toContain(`FORM accept ${JSON.stringify(content)}`);
  });

  it("an approval whose first wait answer was lost is read again in full from codex_status and codex_inspect", async () => {
    h = await harness({ approvalPolicy: "untrusted" });
    h.provider!.enqueue(
      { kind: "output", items: [{ type: "exec", cmd: "echo hi > hi.txt", sandboxPermissions: "require_escalated", justification: "write the greeting" }] },
      { kind: "output", items: [{ type: "message", text: "wrote it" }] },
    );
    const id = await startTask(h, "greet");
    const seen = await nextRequest(h, id); // this answer is "lost": the supervisor never read it
    const again = sc(await h.call("codex_wait", { task_id: id, timeout_seconds: 1 }));
    expect(again.requests).toBeUndefined(); // a wait shows a request whole only once

    const statusResult = await h.call("codex_status", { task_id: id });
    const pending = sc(statusResult).pending;
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ request_id: seen.request_id, kind: "command", command: "echo hi > hi.txt", cwd: h.projectDir, reason: "write the greeting", state: "pending" });
    expect(pending[0].decisions).toEqual(expect.arrayContaining(["accept", "decline"]));
    expect(resultText(statusResult)).toContain(`pending ${seen.request_id} command · \`echo hi > hi.txt\` · cwd ${h.projectDir}`);
    const listed = sc(await h.call("codex_inspect", { task_id: id, kind: "requests" }));
    expect(listed.items[0]).toMatchObject({ request_id: seen.request_id, command: "echo hi > hi.txt", cwd: h.projectDir, state: "pending" });

    await respond(id, pending[0], "accept");
    expect((await settled(h, id)).at(-1)!.state).toBe("completed");
    expect(existsSync(join(h.projectDir, "hi.txt"))).toBe(true);
    const answered = sc(await h.call("codex_inspect", { task_id: id, kind: "requests", item_id: seen.request_id })).items[0];
    expect(answered).toMatchObject({ state: "resolved", answer: { decision: "accept" } });
  });
});
