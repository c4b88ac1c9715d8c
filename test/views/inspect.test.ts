// codex_inspect's views over a task's stored events: input errors that name the field and the fix, text pages that
// never split a character, tool requests, and item lists.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { openStateDatabase, type OpenedStore } from "../../src/store/open.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { Repo, type NewEvent } from "../../src/store/repo.ts";
import { thrownBridgeError as bridgeError } from "../support/bridge-errors.ts";
import { redactor } from "../../src/policy/redact.ts";
import { inspect, type InspectInput, type InspectPage, TEXT_LIMIT_DEFAULT, TEXT_LIMIT_MAX } from "../../src/views/inspect.ts";

let store: OpenedStore;
let repo: Repo;
const T = "t1";

beforeEach(async () => {
  store = await openStateDatabase(await getPlatform(), ":memory:", MIGRATIONS);
  repo = new Repo(store.db, redactor);
  repo.insertTask({ id: T, project_id: "p", profile_id: "default", prompt: "go", relay: true, model: null, effort: null, state: "completed" });
});
afterEach(() => store.close());

const ev = (kind: string, data: Record<string, unknown>, item_id: string | null = null, turn_id = "turn1"): NewEvent => ({ turn_id, kind, item_id, data });

function command(itemId: string, cmd: string, output: string, exit = 0, outputChars = output.length): void {
  repo.upsertItem({
    task_id: T,
    item_id: itemId,
    turn_id: "turn1",
    type: "commandExecution",
    status: "completed",
    data: { command: cmd, cwd: "/p", status: "completed", exit_code: exit, duration_ms: 3, output, output_chars: outputChars },
  });
}

/** Follows next_offset to the end, checking every page on the way. */
function allPages(input: InspectInput): InspectPage[] {
  const pages: InspectPage[] = [];
  let offset: number | undefined = input.offset;
  for (let guard = 0; guard < 1000; guard++) {
    const page = inspect(repo, { ...input, offset });
    pages.push(page);
    if (page.next_offset === undefined) return pages;
    expect(page.next_offset).toBeGreaterThan(offset ?? 0);
    offset = page.next_offset;
  }
  throw new Error("paging did not end");
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const pageText = (p: InspectPage): string => (p.items[0] as { text: string }).text;

describe("inspect: input errors name the field and the fix", () => {
  it("unknown task, unknown kind, bad offset/limit, missing or wrong item_id", () => {
    command("c1", "ls", "x");
    let e = bridgeError(() => inspect(repo, { task_id: "nope", kind: "commands" }));
    expect([e.field, e.message]).toEqual(["task_id", expect.stringContaining("codex_status")]);
    e = bridgeError(() => inspect(repo, { task_id: T, kind: "reasoning" }));
    expect(e.field).toBe("kind");
    expect(e.message).toContain("transcript, plan, diff, commands, command_output");
    e = bridgeError(() => inspect(repo, { task_id: T, kind: "commands", offset: -1 }));
    expect(e.field).toBe("offset");
    e = bridgeError(() => inspect(repo, { task_id: T, kind: "commands", limit: 0 }));
    expect(e.field).toBe("limit");
    e = bridgeError(() => inspect(repo, { task_id: T, kind: "command_output" }));
    expect([e.field, e.message]).toEqual(["item_id", expect.stringContaining("kind=commands")]);
    e = bridgeError(() => inspect(repo, { task_id: T, kind: "command_output", item_id: "zzz" }));
    expect([e.field, e.message]).toEqual(["item_id", expect.stringContaining('"zzz"')]);
    e = bridgeError(() => inspect(repo, { task_id: T, kind: "tool_requests", item_id: "c1" }));
    expect(e.field).toBe("item_id");
    e = bridgeError(() => inspect(repo, { task_id: T, kind: "command_output", item_id: "c1", offset: 5 }));
    expect([e.field, e.message]).toEqual(["offset", expect.stringContaining("1 characters")]);
  });

  it("does not reach into another task's items", () => {
    repo.insertTask({ id: "t2", project_id: "p", profile_id: "default", prompt: "go", relay: false, model: null, effort: null, state: "completed" });
    command("c1", "ls", "secret of t1");
    expect(bridgeError(() => inspect(repo, { task_id: "t2", kind: "command_output", item_id: "c1" })).field).toBe("item_id");
  });
});

describe("inspect: text pages", () => {
  it("command_output pages by characters; the pages rebuild the stored output exactly", () => {
    // Emoji are surrogate pairs; one straddles the default page boundary.
    const output = "a".repeat(TEXT_LIMIT_DEFAULT - 1) + "😀" + "line\n".repeat(3000) + "end 🎉";
    command("c1", "build", output, 2, 90_000);
    const pages = allPages({ task_id: T, kind: "command_output", item_id: "c1" });
    // The first page stops before the emoji rather than splitting it.
    expect(pageText(pages[0]!)).toBe("a".repeat(TEXT_LIMIT_DEFAULT - 1));
    expect(pageText(pages[1]!).startsWith("😀line")).toBe(true);
    expect(pages.map(pageText).join("")).toBe(output);
    for (const p of pages) {
      expect(p.total).toBe(output.length);
      expect(pageText(p).length).toBeLessThanOrEqual(TEXT_LIMIT_DEFAULT);
      expect(pageText(p)).not.toMatch(LONE_SURROGATE);
    }
    expect(pages[0]!.items[0]).toMatchObject({ item_id: "c1", original_chars: 90_000 });
    expect(pages.at(-1)!.next_offset).toBeUndefined();
  });

  it("a limit above the maximum is held to it", () => {
    command("c1", "build", "z".repeat(TEXT_LIMIT_MAX * 2 + 5));
    const pages = allPages({ task_id: T, kind: "command_output", item_id: "c1", limit: 1_000_000 });
    expect(pages.map((p) => pageText(p).length)).toEqual([TEXT_LIMIT_MAX, TEXT_LIMIT_MAX, 5]);
  });

  it("diff: one turn verbatim, several turns labelled, one turn by item_id", () => {
    const d1 = "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n".repeat(500);
    repo.upsertItem({ task_id: T, item_id: "diff:turn1", turn_id: "turn1", type: "turnDiff", status: "final", data: { diff: d1 } });
    let pages = allPages({ task_id: T, kind: "diff", limit: 5000 });
    expect(pages.map(pageText).join("")).toBe(d1);
    expect(pages.length).toBe(Math.ceil(d1.length / 5000));

    repo.upsertItem({ task_id: T, item_id: "diff:turn2", turn_id: "turn2", type: "turnDiff", status: "final", data: { diff: "diff --git a/b b/b\n" } });
    pages = allPages({ task_id: T, kind: "diff", limit: TEXT_LIMIT_MAX });
    const both = pages.map(pageText).join("");
    expect(both.startsWith("### turn turn1\n")).toBe(true);
    expect(both).toContain("\n### turn turn2\ndiff --git a/b b/b\n");

    expect(pageText(inspect(repo, { task_id: T, kind: "diff", item_id: "diff:turn2" }))).toBe("diff --git a/b b/b\n");
    expect(bridgeError(() => inspect(repo, { task_id: T, kind: "diff", item_id: "diff:turn9" })).field).toBe("item_id");
  });

  it("diff of a task without changes is an empty last page", () => {
    expect(inspect(repo, { task_id: T, kind: "diff" })).toEqual({ kind: "diff", items: [{ text: "" }], total: 0 });
  });

  it("file_changes: a list, and one item's per-file diffs as text", () => {
    repo.upsertItem({
      task_id: T,
      item_id: "fc1",
      turn_id: "turn1",
      type: "fileChange",
      status: "completed",
      data: { changes: [{ path: "/p/a.ts", kind: "update", diff: "@@ -1 +1 @@\n-a\n+b" }, { path: "/p/n.txt", kind: "add", diff: "new\n" }] },
    });
    expect(inspect(repo, { task_id: T, kind: "file_changes" })).toEqual({
      kind: "file_changes",
      items: [{ item_id: "fc1", status: "completed", changes: [{ path: "/p/a.ts", kind: "update" }, { path: "/p/n.txt", kind: "add" }] }],
      total: 1,
    });
    const one = inspect(repo, { task_id: T, kind: "file_changes", item_id: "fc1" });
    expect(pageText(one)).toBe("*** update /p/a.ts\n@@ -1 +1 @@\n-a\n+b\n*** add /p/n.txt\nnew\n");
  });
});

describe("inspect: tool_requests", () => {
  function toolCall(id: string, state: "resolved" | "stale", submission: unknown): void {
    repo.insertInteraction({
      id,
      task_id: T,
      kind: "tool",
      method: "item/tool/call",
      rpc_id: 3,
      connection_id: "c",
      thread_id: "th",
      turn_id: "turn1",
      item_id: `call_${id}`,
      state: "pending",
      params: { threadId: "th", turnId: "turn1", callId: `call_${id}`, tool: "bridge_web_tool", arguments: { capability: "web_search", request: "q".repeat(1000), operation: "read" } },
    });
    repo.updateInteraction(id, submission === null ? { state } : { state, response: submission, response_hash: "h" });
  }

  it("pages the full stored result; concatenated pages equal it exactly", () => {
    const result = Array.from({ length: 4000 }, (_, i) => `finding ${i}: ünïcødé ✓ 🌍\n`).join("");
    toolCall("r_1", "resolved", { status: "success", result, sources: ["https://a.example", { url: "https://b.example" }], tool_used: "web" });
    toolCall("r_2", "stale", null);
    const pages = allPages({ task_id: T, kind: "tool_requests", item_id: "r_1", limit: TEXT_LIMIT_MAX });
    expect(pages.map(pageText).join("")).toBe(result);
    expect(pages.length).toBeGreaterThan(3);
    expect(pages[0]!.items[0]).toMatchObject({
      request_id: "r_1",
      state: "resolved",
      capability: "web_search",
      status: "success",
      sources: ["https://a.example", { url: "https://b.example" }],
      tool_used: "web",
      note: "a host report, not independently verified",
    });
    // Later pages do not repeat the header.
    expect(Object.keys(pages[1]!.items[0] as object).sort()).toEqual(["request_id", "text"]);

    const list = inspect(repo, { task_id: T, kind: "tool_requests" });
    expect(list.total).toBe(2);
    expect(list.items[0]).toMatchObject({ request_id: "r_1", state: "resolved", capability: "web_search", operation: "read", status: "success", result_chars: result.length });
    expect(((list.items[0] as { request: string }).request).length).toBeLessThanOrEqual(300);
    expect(list.items[1]).toEqual({ request_id: "r_2", state: "stale", capability: "web_search", operation: "read", request: expect.any(String) });
    expect(inspect(repo, { task_id: T, kind: "tool_requests", item_id: "r_2" }).items[0]).toMatchObject({ text: "", note: "nothing was submitted" });
  });

  it("a JSON result pages as the text Codex was given", () => {
    const result = { rows: Array.from({ length: 300 }, (_, i) => ({ i, name: `n${i}` })) };
    toolCall("r_3", "resolved", { status: "success", result, sources: [], tool_used: null });
    const text = allPages({ task_id: T, kind: "tool_requests", item_id: "r_3", limit: 1000 }).map(pageText).join("");
    expect(JSON.parse(text)).toEqual(result);
    expect(text).toBe(JSON.stringify(result, null, 1));
  });
});

describe("inspect: lists", () => {
  it("commands page by entries; next_offset only while there is more", () => {
    for (let i = 0; i < 25; i++) command(`c${i}`, `echo ${i}`, `${i}\n`, i === 7 ? 1 : 0);
    const first = inspect(repo, { task_id: T, kind: "commands" });
    expect(first.items).toHaveLength(20);
    expect(first.total).toBe(25);
    expect(first.next_offset).toBe(20);
    expect(first.items[7]).toEqual({ item_id: "c7", command: "echo 7", exit_code: 1, status: "completed", duration_ms: 3, output_chars: 2 });
    const second = inspect(repo, { task_id: T, kind: "commands", offset: first.next_offset });
    expect((second.items as { item_id: string }[]).map((c) => c.item_id)).toEqual(["c20", "c21", "c22", "c23", "c24"]);
    expect(second.next_offset).toBeUndefined();
    expect(inspect(repo, { task_id: T, kind: "commands", limit: 500 }).items).toHaveLength(25);
    for (let i = 25; i < 130; i++) command(`c${i}`, `echo ${i}`, "");
    expect(inspect(repo, { task_id: T, kind: "commands", limit: 500 }).items).toHaveLength(100);
  });

  it("transcript: user and agent messages, commands and turn ends in order; no deltas; paged by seq", () => {
    repo.appendEvents(T, [
      ev("turn_started", {}),
      ev("user_message", { text: "please fix" }, "u1"),
      ev("message_delta", { text: "I will" }, "a1"),
      ev("message", { text: "I will fix it." }, "a1"),
      ev("command_started", { command: "npm test" }, "c1"),
      ev("command", { command: "npm test", status: "completed", exit_code: 0 }, "c1"),
      ev("plan", { explanation: null, steps: [{ step: "fix", status: "completed" }] }),
      ev("turn_completed", { status: "completed", has_final: true }),
      ev("user_message", { text: "now docs" }, "u2", "turn2"),
      ev("turn_completed", { status: "interrupted", has_final: false }, null, "turn2"),
    ]);
    repo.upsertItem({ task_id: T, item_id: "a2", turn_id: "turn1", type: "agentMessage", status: "completed", data: { text: "Fixed.", final: true } });

    const whole = inspect(repo, { task_id: T, kind: "transcript" });
    expect(whole.items).toEqual([
      { seq: 2, type: "user", text: "please fix" },
      { seq: 4, type: "agent", text: "I will fix it." },
      { seq: 6, type: "command", item_id: "c1", command: "npm test", exit_code: 0, status: "completed" },
      { seq: 8, type: "turn_end", status: "completed", final: "Fixed." },
      { seq: 9, type: "user", text: "now docs" },
      { seq: 10, type: "turn_end", status: "interrupted" },
    ]);
    expect(whole.total).toBe(6);
    expect(whole.next_offset).toBeUndefined();

    const pages = allPages({ task_id: T, kind: "transcript", limit: 4 });
    expect(pages.map((p) => p.next_offset)).toEqual([8, undefined]);
    expect(pages.flatMap((p) => p.items)).toEqual(whole.items);
  });

  it("plan, warnings and raw events", () => {
    repo.appendEvents(T, [
      ev("plan", { explanation: "two steps", steps: [{ step: "a", status: "pending" }] }),
      ev("warning", { message: "disk almost full" }),
      ev("message_delta", { text: "x" }, "a1"),
      ev("notice", { message: "Model metadata for m not found" }),
      ev("error", { message: "retrying", will_retry: true, info: null }),
      ev("connection_lost", { detail: "app-server exited" }),
      ev("plan", { explanation: null, steps: [{ step: "a", status: "completed" }] }),
    ]);
    expect(inspect(repo, { task_id: T, kind: "plan" }).items).toEqual([
      { seq: 1, explanation: "two steps", steps: [{ step: "a", status: "pending" }] },
      { seq: 7, steps: [{ step: "a", status: "completed" }] },
    ]);
    expect(inspect(repo, { task_id: T, kind: "warnings" }).items).toEqual([
      { seq: 2, kind: "warning", message: "disk almost full" },
      { seq: 4, kind: "notice", message: "Model metadata for m not found" },
      { seq: 5, kind: "error", message: "retrying", will_retry: true },
      { seq: 6, kind: "connection_lost", detail: "app-server exited" },
    ]);

    const raw = inspect(repo, { task_id: T, kind: "raw_event", offset: 2, limit: 2 });
    expect(raw.items).toEqual([
      { seq: 3, kind: "message_delta", turn_id: "turn1", item_id: "a1", at: expect.any(String), data: { text: "x" } },
      { seq: 4, kind: "notice", turn_id: "turn1", at: expect.any(String), data: { message: "Model metadata for m not found" } },
    ]);
    expect(raw.next_offset).toBe(4);
    expect(raw.total).toBe(7);
    const rest = allPages({ task_id: T, kind: "raw_event", offset: 4, limit: 2 });
    expect(rest.flatMap((p) => p.items).map((e) => (e as { seq: number }).seq)).toEqual([5, 6, 7]);
    expect(rest.at(-1)!.next_offset).toBeUndefined();
  });

  it("mcp_calls: a list with bounded arguments, one call in full by item_id", () => {
    const args = { query: "x".repeat(5000) };
    repo.upsertItem({ task_id: T, item_id: "m1", turn_id: "turn1", type: "mcpToolCall", status: "completed", data: { server: "docs", tool: "search", status: "completed", error: null, arguments: args } });
    const list = inspect(repo, { task_id: T, kind: "mcp_calls" });
    expect(list.items[0]).toMatchObject({ item_id: "m1", server: "docs", tool: "search", status: "completed" });
    expect(String((list.items[0] as { arguments: unknown }).arguments).length).toBeLessThanOrEqual(1000);
    expect(inspect(repo, { task_id: T, kind: "mcp_calls", item_id: "m1" }).items[0]).toMatchObject({ arguments: args });
  });
});
