// codex_wait's answers, on a store filled by hand: what wakes a wait and what only waits for the next news, empty
// fields left out, the observe modes (supervision, auto, raw), validation and suppressed counts, waits over several
// tasks, the one-wait-per-task rule and cursors across app-server generations. Read as the supervisor reads them.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { redactor } from "../../src/policy/redact.ts";
import { getPlatform } from "../../platform/index.ts";
import type { Platform } from "../../platform/types.ts";
import { openStateDatabase, type OpenedStore } from "../../src/store/open.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { Repo, type NewEvent } from "../../src/store/repo.ts";
import type { TaskState } from "../../src/store/rows.ts";
import { RuntimePool } from "../../src/runtime/pool.ts";
import { TaskDomain } from "../../src/tasks/domain.ts";
import { CodexRuntime } from "../../src/runtime/app-server.ts";
import { DEFAULT_PROFILE } from "../../src/config/settings.ts";
import { waitForTasks, type WaitAnswer, type WaitContext, type WaitInput } from "../../src/views/wait.ts";
import { WaitGuard } from "../../src/views/wait-guard.ts";
import { viewReads, type ViewReads } from "../../src/views/reads.ts";
import { ROUTINE_BATCH } from "../../src/views/wait-delta.ts";
import { renderWait, waitStructured } from "../../src/mcp/tools/render.ts";

const ROOT = "/home/user/project";
type S = Record<string, any>;

let platform: Platform;
let store: OpenedStore;
let repo: Repo;
let reads: ViewReads;
let guard: WaitGuard;

beforeEach(async () => {
  platform = await getPlatform();
  store = await openStateDatabase(platform, ":memory:", MIGRATIONS);
  repo = new Repo(store.db, redactor);
  // Never started: these tests fill the store the way the intake would.
  const runtime = new CodexRuntime({ platform, codexBin: null, env: {}, version: "test" }, { notification() {}, request() {}, exit() {} });
  const settings = {
    projects: { p: { id: "p", cwd: ROOT } },
    profiles: { default: { ...DEFAULT_PROFILE } },
    relay: { enabled: true, max_result_bytes: 1024 },
    ackTimeoutMs: 1000,
    maxWaitSeconds: 300,
  };
  reads = viewReads(new TaskDomain(repo, new RuntimePool({ profiles: {}, env: {}, userHome: "/home/nobody", make: () => runtime }), settings), repo, settings);
  guard = new WaitGuard();
});
afterEach(() => store.close());

let n = 0;
function task(state: TaskState = "running"): string {
  const id = `t_${String(++n).padStart(10, "0")}`;
  repo.insertTask({ id, project_id: "p", profile_id: "default", prompt: "do it", relay: true, model: null, effort: null, state: "running" });
  repo.updateTask(id, { turn_id: "turn1", thread_id: `th${n}`, state });
  repo.appendEvents(id, [{ turn_id: "turn1", kind: "turn_started", data: {} }]);
  return id;
}

const ev = (kind: string, data: Record<string, unknown> = {}, item_id?: string): NewEvent => ({ turn_id: "turn1", kind, data, ...(item_id ? { item_id } : {}) });

function commandDone(id: string, item: string, command: string, exit: number, output = "ok\n"): NewEvent[] {
  const status = exit === 0 ? "completed" : "failed";
  repo.upsertItem({ task_id: id, item_id: item, turn_id: "turn1", type: "commandExecution", status, data: { command, status, exit_code: exit, output } });
  return [ev("command_started", { command }, item), ev("command", { command, status, exit_code: exit }, item)];
}

function commandRunning(id: string, item: string, command: string): void {
  repo.upsertItem({ task_id: id, item_id: item, turn_id: "turn1", type: "commandExecution", status: "inProgress", data: { command } });
  repo.appendEvents(id, [ev("command_started", { command }, item)]);
}

const ctx = (extra: Partial<WaitContext> = {}): WaitContext => ({ connectionKey: "c1", ...extra });
const wait = (input: WaitInput, c: WaitContext = ctx()) => waitForTasks(reads, guard, { timeout_seconds: 0, ...input }, c);
const one = (a: WaitAnswer): S => waitStructured(a);
/** What a supervisor reads: the text and the structured content, as the economy benchmark counts them. */
const size = (a: WaitAnswer) => renderWait(a).length + JSON.stringify(waitStructured(a)).length;

/** Every array and object nested anywhere in a value, so "nothing empty" can be checked everywhere. */
function empties(v: unknown, path = "$"): string[] {
  if (Array.isArray(v)) return v.length === 0 ? [path] : v.flatMap((x, i) => empties(x, `${path}[${i}]`));
  if (v && typeof v === "object") {
    const entries = Object.entries(v);
    return entries.length === 0 ? [path] : entries.flatMap(([k, x]) => (x === undefined || x === "" ? [`${path}.${k}`] : empties(x, `${path}.${k}`)));
  }
  return [];
}

describe("a wait with no news", () => {
  it("answers in one short line: state, how long the turn has run, what runs now; nothing else, cursor kept", async () => {
    const id = task();
    const thinking = await wait({ task_id: id });
    expect(one(thinking)).toEqual({ state: "running", ran_s: expect.any(Number) });
    expect(renderWait(thinking)).toMatch(/^running \d+s, thinking$/);
    expect(size(thinking)).toBeLessThanOrEqual(100);

    commandRunning(id, "c1", "npm run test -- --reporter=verbose packages/core");
    const running = await wait({ task_id: id });
    expect(one(running)).toEqual({ state: "running", ran_s: expect.any(Number), command: "npm run test --…" });
    expect(renderWait(running)).toMatch(/^running \d+s: \$ npm run test --…$/);
    expect(size(running)).toBeLessThanOrEqual(100);
    // The command's start was not delivered: the automatic cursor did not move.
    expect(repo.cursors.get("c1", id)).toBeUndefined();
  });

  it("holds routine progress (exit 0, file changes, plans) back until news comes, then delivers it with the news", async () => {
    const id = task();
    repo.appendEvents(id, [
      ...commandDone(id, "c1", "ls -la", 0),
      ev("file_change", { status: "completed", changes: [{ path: `${ROOT}/a.txt`, kind: "add" }] }, "f1"),
      ev("plan", { explanation: null, steps: [{ step: "write a.txt", status: "completed" }] }),
    ]);
    const quiet = await wait({ task_id: id });
    expect(one(quiet)).toEqual({ state: "running", ran_s: expect.any(Number) });

    repo.appendEvents(id, [ev("message", { text: "a.txt is written; now the tests" }, "m1")]);
    const news = one(await wait({ task_id: id, timeout_seconds: 30 }));
    expect(news.messages).toEqual(["a.txt is written; now the tests"]);
    expect(news.delta_summary.commands).toEqual(["ls -la → 0"]);
    expect(news.delta_summary.changes).toEqual(["add a.txt"]);
    expect(news.plan).toEqual([{ step: "write a.txt", status: "completed" }]);
    expect(news.ran_s).toBeUndefined();
    expect(empties(news)).toEqual([]);
    // Delivered once: the next wait has none of it.
    expect(one(await wait({ task_id: id }))).toEqual({ state: "running", ran_s: expect.any(Number) });
  });

  it("holds no longer than the transport allows, and reports progress with the same line", async () => {
    const id = task();
    commandRunning(id, "c1", "sleep 600");
    const seen: [number, string][] = [];
    const a = await waitForTasks(reads, guard, { task_id: id, timeout_seconds: 30 }, ctx({ hold: { defaultSeconds: 1, maxSeconds: 1 }, onProgress: (_e, total, line) => seen.push([total, line]) }));
    expect(one(a)).toEqual({ state: "running", ran_s: expect.any(Number), command: "sleep 600", note: expect.stringMatching(/^timeout_seconds 30 is above this bridge's 1 s limit/) });
    expect(seen.length).toBeGreaterThan(0);
    for (const [total, line] of seen) {
      expect(total).toBe(1000);
      expect(line).toMatch(/^running \d+s: \$ sleep 600$/);
    }
  });

  it(`delivers gathered routine progress at the timeout once ${ROUTINE_BATCH} items have piled up`, async () => {
    const id = task();
    for (let i = 0; i < ROUTINE_BATCH; i++) repo.appendEvents(id, commandDone(id, `c${i}`, `echo ${i}`, 0));
    const a = one(await wait({ task_id: id }));
    expect(a.delta_summary.commands).toHaveLength(ROUTINE_BATCH);
    expect(a.ran_s).toEqual(expect.any(Number));
  });
});

describe("what ends a wait at once", () => {
  it.each([
    ["a message from Codex", [ev("message", { text: "hello" }, "m1")]],
    ["a failing command", [ev("command", { command: "false", status: "failed", exit_code: 1 }, "c9")]],
    ["the turn's end", [ev("turn_completed", { status: "completed" })]],
    ["an error Codex will not retry", [ev("error", { message: "boom", will_retry: false })]],
  ])("%s", async (_what, events) => {
    const id = task();
    repo.appendEvents(id, events);
    const a = one(await wait({ task_id: id, timeout_seconds: 30 }));
    // An answer that ended on its timeout would say what the task is doing now (ran_s).
    expect(a.ran_s).toBeUndefined();
  });

  it("a pending request, shown in full with the decisions it offers", async () => {
    const id = task("waiting_for_approval");
    repo.insertInteraction({
      id: "r_0000000001", task_id: id, kind: "command", method: "item/commandExecution/requestApproval", rpc_id: 3, connection_id: "x",
      thread_id: "th", turn_id: "turn1", item_id: "c1", state: "pending", params: { command: "rm -rf build", cwd: ROOT, reason: "clean" },
    });
    repo.appendEvents(id, [ev("request", { request_id: "r_0000000001" })]);
    const a = one(await wait({ task_id: id, timeout_seconds: 30 }));
    expect(a.requests).toEqual([expect.objectContaining({ request_id: "r_0000000001", command: "rm -rf build", reason: "clean", decisions: expect.arrayContaining(["accept", "decline"]) })]);
    expect(a.requests[0].cwd).toBeUndefined();
    expect(a.delta_summary.next).toEqual(["codex_respond r_0000000001"]);
    expect(a.delta_summary.pending).toBeUndefined();
  });
});

describe("observe modes", () => {
  function failingTask(): string {
    const id = task();
    repo.appendEvents(id, [
      ev("message_delta", { text: "Running" }, "m1"),
      ev("message", { text: "Running the tests." }, "m1"),
      ...commandDone(id, "c1", "ls", 0),
      ...commandDone(id, "c2", "npm test", 1, "FAIL src/a.test.ts\n1 failed, 9 passed\n"),
      ev("notice", { message: "Model metadata for mock-model not found" }),
    ]);
    return id;
  }

  it("supervision: compact state only (commands and exit codes, no output, no raw events)", async () => {
    const id = failingTask();
    const a = await wait({ task_id: id, mode: "supervision" });
    const s = one(a);
    expect(s.events).toBeUndefined();
    expect(s.delta_summary.commands).toEqual(["ls → 0", "npm test → 1"]);
    expect(renderWait(a)).not.toContain("FAIL src/a.test.ts");
  });

  it("auto: the failure's output inline and its raw event, and only the failure's; validation carries test commands with exit codes", async () => {
    const id = failingTask();
    const a = await wait({ task_id: id });
    const s = one(a);
    expect(renderWait(a)).toContain("$ npm test → 1 [c2]\n  FAIL src/a.test.ts");
    expect(s.events.map((e: S) => [e.kind, e.item_id])).toEqual([["command", "c2"]]);
    expect(s.delta_summary.validation).toEqual(["npm test → 1"]);
    expect(s.delta_summary.unresolved).toEqual(["npm test → 1"]);
    // Counted, not silently dropped: the streamed delta, two command starts, the notice (and the turn start).
    expect(s.suppressed_events).toBe(5);
  });

  it("auto: low noise when nothing is wrong (no raw events)", async () => {
    const id = task();
    repo.appendEvents(id, [...commandDone(id, "c1", "npm run build", 0), ev("message", { text: "built" }, "m1")]);
    const s = one(await wait({ task_id: id }));
    expect(s.events).toBeUndefined();
    expect(s.delta_summary.validation).toEqual(["npm run build → 0"]);
  });

  it("auto: expands to raw for a stale or uncertain request and for UNKNOWN", async () => {
    const id = task("connection_lost");
    for (const [rid, state] of [["r_0000000002", "stale"], ["r_0000000003", "uncertain"]] as const) {
      repo.insertInteraction({ id: rid, task_id: id, kind: "command", method: "item/commandExecution/requestApproval", rpc_id: 4, connection_id: "x", thread_id: "th", turn_id: "turn1", item_id: "c1", state, params: { command: "make" } });
      repo.appendEvents(id, [ev("request", { request_id: rid })]);
    }
    repo.appendEvents(id, [ev("connection_lost", { detail: "the bridge restarted while the turn was active" })]);
    const s = one(await wait({ task_id: id }));
    expect(s.events.map((e: S) => e.kind)).toEqual(["request", "request", "connection_lost"]);
    expect(s.delta_summary.unresolved.join("\n")).toMatch(/r_0000000002 went stale[\s\S]*r_0000000003 answer delivery uncertain/);

    const u = task("unknown");
    repo.appendEvents(u, [ev("unknown", { method: "turn/start", detail: "no acknowledgement in 20000 ms" })]);
    const us = one(await wait({ task_id: u }));
    expect(us.events.map((e: S) => e.kind)).toEqual(["unknown"]);
    expect(us.delta_summary.next).toEqual(["codex_status; do not resend blindly"]);
  });

  it("raw: pages every stored event, redacted as stored, with the cursor to the next page", async () => {
    const id = task();
    for (let i = 0; i < 149; i++) repo.appendEvents(id, [ev("message_delta", { text: `part ${i} token=[REDACTED]` }, "m1")]);
    const first = one(await wait({ task_id: id, mode: "raw" }));
    expect(first.events).toHaveLength(100);
    expect(first.has_more).toBe(true);
    expect(first.next_cursor).toBe(`${id}:100`);
    expect(first.suppressed_events).toBeUndefined();
    const second = one(await wait({ task_id: id, mode: "raw", cursor: first.next_cursor }));
    expect(second.events.map((e: S) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => 101 + i));
    expect(second.has_more).toBeUndefined();
    // The explicit cursor read independently; the automatic cursor sits after the first page.
    expect(repo.cursors.get("c1", id)).toEqual({ seq: 100, generation: 0 });
  });
});

describe("waits over several tasks", () => {
  it("returns at the first news from any of them, each part labelled with its task; cursors stay per task", async () => {
    const [a, b, c] = [task(), task(), task()];
    repo.appendEvents(b, [ev("message", { text: "b speaks" }, "m1")]);
    repo.appendEvents(c, commandDone(c, "c1", "ls", 0));
    const answer = await wait({ task_ids: [a, b, c], timeout_seconds: 30 });
    expect(one(answer)).toEqual({ tasks: [{ task_id: b, state: "running", messages: ["b speaks"], suppressed_events: 1 }] });
    expect(renderWait(answer)).toBe(`${b} running\n  codex: b speaks`);
    expect(repo.cursors.get("c1", b)?.seq).toBe(2);
    expect(repo.cursors.get("c1", c)).toBeUndefined();
  });

  it("with no news says only which tasks are in which state", async () => {
    const [a, b] = [task(), task()];
    const answer = await wait({ task_ids: [a, b] });
    expect(one(answer)).toEqual({ running: 2 });
    expect(renderWait(answer)).toBe(`no news: ${a}, ${b} running`);
  });

  it("without ids covers the tasks this connection started, and says so when there are none", async () => {
    await expect(wait({})).rejects.toThrow(/no active task on this connection; pass task_id or task_ids/);
    const [mine, other] = [task(), task()];
    repo.cursors.follow("c1", mine);
    repo.cursors.follow("c2", other);
    repo.appendEvents(other, [ev("message", { text: "not for c1" }, "m1")]);
    repo.appendEvents(mine, [ev("turn_completed", { status: "completed" })]);
    repo.updateTask(mine, { state: "completed" });
    const answer = one(await wait({}));
    expect(answer.tasks.map((t: S) => [t.task_id, t.state])).toEqual([[mine, "completed"]]);
    // Read to the end and settled: no longer one of this connection's active tasks.
    await expect(wait({})).rejects.toThrow(/no active task on this connection/);
  });

  it("takes one explicit cursor per task, each naming its task", async () => {
    const [a, b] = [task(), task()];
    repo.appendEvents(a, [ev("message", { text: "a1" }, "m1")]);
    repo.appendEvents(b, [ev("message", { text: "b1" }, "m1")]);
    const s = one(await wait({ task_ids: [a, b], cursor: `${a}:2 ${b}:1` }));
    expect(s.tasks.map((t: S) => [t.task_id, t.messages, t.next_cursor])).toEqual([[b, ["b1"], `${b}:2`]]);
    await expect(wait({ task_ids: [a], cursor: `${b}:1` })).rejects.toThrow(/belongs to task/);
  });
});

describe("one automatic wait per connection and task", () => {
  it("refuses a second concurrent wait on the same task and connection; another connection or an explicit cursor may read", async () => {
    const id = task();
    const first = wait({ task_id: id, timeout_seconds: 2 });
    await expect(wait({ task_id: id })).rejects.toThrow(/another codex_wait on t_\d+ is still running on this connection/);
    await expect(wait({ task_ids: [task(), id] })).rejects.toThrow(/another codex_wait/);
    await expect(wait({ task_id: id }, ctx({ connectionKey: "c2" }))).resolves.toBeTruthy();
    await expect(wait({ task_id: id, cursor: `${id}:0` })).resolves.toBeTruthy();
    await first;
    await expect(wait({ task_id: id })).resolves.toBeTruthy();
  });
});

describe("app-server generations", () => {
  it("a cursor from before a managed restart is lost: re-anchor instruction, then only what came after", async () => {
    const id = task();
    repo.appendEvents(id, [ev("message", { text: "before" }, "m1")]);
    const before = one(await wait({ task_id: id, mode: "raw" }));
    repo.appendEvents(id, [ev("message", { text: "unread at the restart" }, "m2"), ev("turn_completed", { status: "completed" })]);
    repo.updateTask(id, { state: "completed" });
    expect(repo.cursors.beginGeneration()).toBe(1);
    repo.appendEvents(id, [ev("turn_started"), ev("message", { text: "after" }, "m3")]);
    repo.updateTask(id, { state: "running" });

    for (const a of [one(await wait({ task_id: id, cursor: before.next_cursor })), one(await wait({ task_id: id }))]) {
      expect(a.cursor_lost).toBe(true);
      expect(a.reanchor).toMatch(/app-server was restarted.*codex_checkpoint read.*codex_status/);
      expect(a.messages).toEqual(["after"]);
      expect(a.next_cursor).toMatch(new RegExp(`^${id}:g1:\\d+$`));
    }
    // Re-anchored: the automatic cursor is in the new generation and reads on normally.
    repo.appendEvents(id, [ev("message", { text: "later" }, "m4")]);
    const next = one(await wait({ task_id: id }));
    expect(next.cursor_lost).toBeUndefined();
    expect(next.messages).toEqual(["later"]);
    await expect(wait({ task_id: id, cursor: `${id}:g7:1` })).rejects.toThrow(/generation 7, but this bridge is at generation 1/);
  });
});

describe("the wait limit (max_wait_seconds, 55 s unless the config raises it)", () => {
  it("a timeout_seconds above the limit is shortened to it and said once in the text and once in the structured answer", async () => {
    (reads as { maxWaitSeconds: number }).maxWaitSeconds = 55;
    const id = task("completed");
    const a = await wait({ task_id: id, timeout_seconds: 120 });
    expect(renderWait(a).match(/limit/g)).toHaveLength(1);
    expect(renderWait(a)).toContain("note: timeout_seconds 120 is above this bridge's 55 s limit (MCP hosts end a tool call at about 60 s); held 55 s");
    expect(one(a).note).toBe("timeout_seconds 120 is above this bridge's 55 s limit (MCP hosts end a tool call at about 60 s); held 55 s");
    for (const asked of [55, 10]) {
      const b = await wait({ task_id: id, timeout_seconds: asked });
      expect(renderWait(b)).not.toContain("limit");
      expect(one(b).note).toBeUndefined();
    }
  });

  it("a running task with no news is held for the limit, not for the larger time asked", async () => {
    (reads as { maxWaitSeconds: number }).maxWaitSeconds = 1;
    const id = task("running");
    const a = await wait({ task_id: id, timeout_seconds: 300 });
    expect(one(a).state).toBe("running");
    expect(one(a).note).toMatch(/timeout_seconds 300 is above this bridge's 1 s limit/);
  });

  it("a transport's own limit (serve --http --max-wait-seconds) is the limit there", async () => {
    const id = task("completed");
    const a = await wait({ task_id: id, timeout_seconds: 90 }, ctx({ hold: { defaultSeconds: 70, maxSeconds: 70 } }));
    expect(one(a).note).toMatch(/timeout_seconds 90 is above this bridge's 70 s limit/);
  });
});
