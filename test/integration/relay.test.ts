// The bridge_web_tool relay against the REAL codex app-server: item/tool/call → codex_submit_tool_result → same turn.
import { afterEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { resultText, startHarness, type Harness } from "../../src/selftest/harness.ts";
import { lastFunctionOutput, toolNames, userTexts, type MockResponse, type RecordedRequest } from "../../src/selftest/mock-provider/index.ts";
import { countAnswers, nextToolRequest, sc, settled, startTask, waitUntil } from "../support/task-waits.ts";

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const relayCall = (request: string, callId?: string): MockResponse => ({
  kind: "output",
  items: [{ type: "tool", name: "bridge_web_tool", arguments: { capability: "web_search", request, operation: "read" }, ...(callId ? { callId } : {}) }],
});
const turnOf = (req: RecordedRequest) => (req.body as { client_metadata?: { turn_id?: string } }).client_metadata?.turn_id;

async function submit(h: Harness, args: Record<string, unknown>) {
  return h.call("codex_submit_tool_result", { status: "success", ...args });
}

describe("web-tool relay against the real Codex", () => {
  it("round trip in the same turn; repeats answered from the ledger; oversize refused with the limit; inspect pages the stored result", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never", extraConfig: "[relay]\nmax_result_bytes = 2048" });
    h.provider!.enqueue(relayCall("latest release of libfoo"), { kind: "output", items: [{ type: "message", text: "libfoo 3.1 is the latest." }] });
    const taskId = await startTask(h, "find the latest libfoo");
    const req = await nextToolRequest(h, taskId);
    expect(req).toMatchObject({ kind: "tool", tool: { capability: "web_search", operation: "read", request: "latest release of libfoo" } });
    expect(toolNames(h.provider!.requests[0]!)).toContain("bridge_web_tool");
    const status = await h.call("codex_status", { task_id: taskId });
    expect(sc(status).state).toBe("waiting_for_tool");
    expect(sc(status).relay).toBeUndefined();
    expect(resultText(status)).not.toMatch(/no web-tool relay/);
    const turnId = sc(status).turn_id as string;
    const sent = countAnswers(h.bridge.runtimes.default.current!);

    const oversize = await submit(h, { task_id: taskId, request_id: req.request_id, result: "x".repeat(3000) });
    expect(oversize.isError).toBe(true);
    expect(resultText(oversize)).toMatch(/max_result_bytes is 2048/);
    expect(resultText(oversize)).toMatch(/nothing was sent/);
    expect(sent.count).toBe(0);
    expect(h.bridge.repo.interaction(req.request_id)!.state).toBe("pending");

    const text = `libfoo 3.1 was released last week.\n${"release notes line\n".repeat(70)}end of notes`;
    const ok = await submit(h, { task_id: taskId, request_id: req.request_id, result: text });
    expect(ok.isError, resultText(ok)).toBeFalsy();
    expect(["submitted", "resolved"]).toContain(sc(ok).state);
    expect(sent.count).toBe(1);

    const answers = await settled(h, taskId);
    expect(answers.at(-1)!.state).toBe("completed");
    expect(h.provider!.requests).toHaveLength(2);
    const next = h.provider!.requests[1]!;
    expect(lastFunctionOutput(next)).toBe(text);
    expect(turnOf(next)).toBe(turnId);
    expect(turnOf(h.provider!.requests[0]!)).toBe(turnId);
    const after = sc(await h.call("codex_status", { task_id: taskId }));
    expect(after).toMatchObject({ state: "completed", turn_id: turnId });
    // item/completed dynamicToolCall confirmed it.
    expect(h.bridge.repo.interaction(req.request_id)!.state).toBe("resolved");

    const again = await submit(h, { task_id: taskId, request_id: req.request_id, result: text });
    expect(again.isError, resultText(again)).toBeFalsy();
    expect(sc(again)).toMatchObject({ state: "resolved", repeated: true });
    const conflicting = await submit(h, { task_id: taskId, request_id: req.request_id, result: "something else" });
    expect(conflicting.isError).toBe(true);
    expect(resultText(conflicting)).toMatch(/already answered.*nothing was sent/);
    const conflictingStatus = await h.call("codex_submit_tool_result", { task_id: taskId, request_id: req.request_id, status: "error", result: text });
    expect(conflictingStatus.isError).toBe(true);
    expect(sent.count).toBe(1);
    expect(h.provider!.requests).toHaveLength(2);

    // The full stored result, page by page.
    let offset = 0;
    let paged = "";
    let first: Record<string, any> | null = null;
    for (let i = 0; i < 50; i++) {
      const page = await h.call("codex_inspect", { task_id: taskId, kind: "tool_requests", item_id: req.request_id, offset, limit: 300 });
      expect(page.isError, resultText(page)).toBeFalsy();
      const s = sc(page);
      first ??= s;
      expect(s.items).toHaveLength(1);
      paged += s.items[0].text;
      if (s.next_offset === undefined) break;
      offset = s.next_offset;
    }
    expect(paged).toBe(text);
    expect(JSON.stringify(first)).toMatch(/a host report, not independently verified/);
    expect(offset).toBeGreaterThan(0);

    const result = await h.call("codex_result", { task_id: taskId });
    expect(result.isError, resultText(result)).toBeFalsy();
    const ev = sc(result).evidence as Record<string, any>;
    expect(ev.host_reports.note).toMatch(/not independently verified/);
    expect(ev.host_reports.items).toEqual([expect.objectContaining({ request_id: req.request_id, status: "success" })]);
    expect(resultText(result)).toMatch(/Host reports \(relayed by the supervisor's host; not independently verified/);
  });

  it("an oversize tool request is refused to Codex without a ledger entry; a non-success result is labelled and marks the call failed", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.enqueue(
      relayCall("q".repeat(16_001), "call_big"),
      relayCall("status page of service X", "call_small"),
      { kind: "output", items: [{ type: "message", text: "Could not reach it." }] },
    );
    const taskId = await startTask(h, "check service X");
    const req = await nextToolRequest(h, taskId);
    expect(req.tool.request).toBe("status page of service X");
    // The first call never reached the supervisor: Codex got the refusal and the model asked again.
    expect(lastFunctionOutput(h.provider!.requests[1]!, "call_big")).toMatch(/bridge_web_tool refused: request is 16001 characters; at most 16000/);
    expect(h.bridge.repo.interactions(taskId).filter((i) => i.kind === "tool")).toHaveLength(1);
    const warnings = await h.call("codex_inspect", { task_id: taskId, kind: "warnings" });
    expect(resultText(warnings)).toMatch(/bridge_web_tool call refused/);

    const r = await h.call("codex_submit_tool_result", {
      task_id: taskId,
      request_id: req.request_id,
      status: "unavailable",
      result: { reason: "no browsing tool in this conversation" },
      sources: ["https://status.example/x"],
      tool_used: "none",
    });
    expect(r.isError, resultText(r)).toBeFalsy();
    expect((await settled(h, taskId)).at(-1)!.state).toBe("completed");
    expect(lastFunctionOutput(h.provider!.requests.at(-1)!, "call_small")).toBe(
      '[host tool unavailable]\n{\n "reason": "no browsing tool in this conversation"\n}\nSources:\n- https://status.example/x\n(via host tool none; a host report, not independently verified)',
    );
    const item = h.bridge.repo.item(taskId, "call_small");
    expect(item?.status).toBe("failed");
  });

  it("a tool call pending at cancel becomes stale and cannot be answered", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.enqueue(relayCall("weather in Oslo"));
    const taskId = await startTask(h, "weather");
    const req = await nextToolRequest(h, taskId);
    const sent = countAnswers(h.bridge.runtimes.default.current!);
    const cancel = await h.call("codex_cancel", { task_id: taskId });
    expect(cancel.isError, resultText(cancel)).toBeFalsy();
    const answers = await settled(h, taskId);
    expect(answers.at(-1)!.state).toBe("interrupted");
    expect(h.bridge.repo.interaction(req.request_id)!.state).toBe("stale");
    const late = await submit(h, { task_id: taskId, request_id: req.request_id, result: "sunny" });
    expect(late.isError).toBe(true);
    expect(resultText(late)).toMatch(/stale/);
    expect(sent.count).toBe(0);
    const list = await h.call("codex_inspect", { task_id: taskId, kind: "tool_requests" });
    expect(sc(list).items).toEqual([expect.objectContaining({ request_id: req.request_id, state: "stale" })]);
  });

  it("a tool call pending at app-server death becomes stale; after resume the relay works on the thread", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.enqueue(relayCall("first question", "call_before"));
    const taskId = await startTask(h, "research");
    const req = await nextToolRequest(h, taskId);
    const firstTurn = sc(await h.call("codex_status", { task_id: taskId })).turn_id;
    const oldClient = h.bridge.runtimes.default.current!;
    const sent = countAnswers(oldClient);

    const exited = new Promise<void>((resolve) => oldClient.onExit(() => resolve()));
    oldClient.kill("SIGKILL");
    await exited;
    const lost = await waitUntil(h, taskId, (s) => s.state === "connection_lost");
    expect(lost.at(-1)!.failure).toMatchObject({ code: "app_server_crashed", retryable: true });
    expect(lost.at(-1)!.failure.sentence).toMatch(/app-server was killed by SIGKILL during the turn/);
    expect(h.bridge.repo.interaction(req.request_id)!.state).toBe("stale");
    const late = await submit(h, { task_id: taskId, request_id: req.request_id, result: "too late" });
    expect(late.isError).toBe(true);
    expect(resultText(late)).toMatch(/stale/);
    expect(sent.count).toBe(0);

    h.provider!.enqueue(relayCall("second question", "call_after"), { kind: "output", items: [{ type: "message", text: "Done after resume." }] });
    const send = await h.call("codex_send", { task_id: taskId, message: "continue the research" });
    expect(send.isError, resultText(send)).toBeFalsy();
    expect(sc(send).action).toBe("recovery_turn");
    expect(h.bridge.runtimes.default.current!.connectionId).not.toBe(oldClient.connectionId);
    const req2 = await nextToolRequest(h, taskId);
    expect(req2.tool.request).toBe("second question");
    expect(req2.request_id).not.toBe(req.request_id);
    const ok = await submit(h, { task_id: taskId, request_id: req2.request_id, result: "answer after resume" });
    expect(ok.isError, resultText(ok)).toBeFalsy();
    const answers = await settled(h, taskId);
    expect(answers.at(-1)!.state).toBe("completed");
    const last = h.provider!.requests.at(-1)!;
    expect(lastFunctionOutput(last, "call_after")).toBe("answer after resume");
    expect(toolNames(last)).toContain("bridge_web_tool");
    const status = sc(await h.call("codex_status", { task_id: taskId }));
    expect(status.turn_id).not.toBe(firstTurn);
    expect(h.bridge.repo.interaction(req2.request_id)!.state).toBe("resolved");
  });

  it("two tasks with pending tool calls answered in reverse order both complete", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.setResponder((req) => {
      const out = lastFunctionOutput(req);
      if (out !== undefined) return { kind: "output", items: [{ type: "message", text: `final: ${out}` }] };
      const prompt = userTexts(req).at(-1) ?? "";
      const which = prompt.includes("alpha") ? "alpha" : "beta";
      return relayCall(`${which} question`, `call_${which}`);
    });
    const alpha = await startTask(h, "task alpha");
    const beta = await startTask(h, "task beta");
    const ra = await nextToolRequest(h, alpha);
    const rb = await nextToolRequest(h, beta);
    expect(ra.tool.request).toBe("alpha question");
    expect(rb.tool.request).toBe("beta question");
    // Each task lists only its own request.
    const crossed = await submit(h, { task_id: alpha, request_id: rb.request_id, result: "x" });
    expect(crossed.isError).toBe(true);
    expect(resultText(crossed)).toMatch(new RegExp(`not a request of ${alpha}; pending: ${ra.request_id}`));

    expect((await submit(h, { task_id: beta, request_id: rb.request_id, result: "beta answer" })).isError).toBeFalsy();
    expect((await submit(h, { task_id: alpha, request_id: ra.request_id, result: "alpha answer" })).isError).toBeFalsy();
    expect((await settled(h, beta)).at(-1)!.state).toBe("completed");
    expect((await settled(h, alpha)).at(-1)!.state).toBe("completed");
    const ra2 = await h.call("codex_result", { task_id: alpha });
    const rb2 = await h.call("codex_result", { task_id: beta });
    expect(sc(ra2).final_message).toBe("final: alpha answer");
    expect(sc(rb2).final_message).toBe("final: beta answer");
  });

  it("an adopted thread (no relay) is readable and continuable and says it has no relay", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never", extraConfig: "[relay]\nenabled = false" });
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "first answer" }] });
    const first = await startTask(h, "first turn");
    expect((await settled(h, first)).at(-1)!.state).toBe("completed");
    expect(toolNames(h.provider!.requests[0]!)).not.toContain("bridge_web_tool");
    const threadId = sc(await h.call("codex_status", { task_id: first })).thread_id as string;

    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "second answer" }] });
    const adopt = await h.call("codex_start", { thread_id: threadId, prompt: "second turn" });
    expect(adopt.isError, resultText(adopt)).toBeFalsy();
    const adopted = sc(adopt).task_id as string;
    expect(sc(adopt)).toMatchObject({ thread_id: threadId, relay: false });
    expect(resultText(adopt)).toMatch(/no web-tool relay/);
    expect((await settled(h, adopted)).at(-1)!.state).toBe("completed");
    // Codex replayed the earlier turn: the thread's history was read.
    expect(userTexts(h.provider!.requests[1]!)).toContain("first turn");
    const status = await h.call("codex_status", { task_id: adopted });
    expect(resultText(status)).toMatch(/no web-tool relay.*cannot gain it/);
    const result = await h.call("codex_result", { task_id: adopted });
    expect(sc(result)).toMatchObject({ final_message: "second answer", relay: false });
    expect(resultText(result)).toMatch(/no web-tool relay/);
    // The relay was off for the first task's thread too, and it says so.
    expect(resultText(await h.call("codex_status", { task_id: first }))).toMatch(/no web-tool relay/);

    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "third answer" }] });
    const cont = await h.call("codex_send", { task_id: adopted, message: "third turn" });
    expect(cont.isError, resultText(cont)).toBeFalsy();
    expect((await settled(h, adopted)).at(-1)!.state).toBe("completed");
    expect(sc(await h.call("codex_result", { task_id: adopted })).final_message).toBe("third answer");
  });
});
