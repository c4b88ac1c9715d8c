// The person at the machine, against the real Codex through a real bridge process: a profile with approvals = "person"
// in a host without MCP Apps (the tunnel emulator, a plain MCP client). The model's own codex_respond is refused; the
// command approval is given with `codex-bridge approve` from another process while the supervisor's codex_wait holds;
// the ledger says the person at the machine answered; `watch` shows the whole task and `tasks` lists it.
import { afterEach, describe, expect, it } from "vitest";
import { lastFunctionOutput } from "../../src/selftest/mock-provider/index.ts";
import { getPlatform } from "../../platform/index.ts";
import { openStateDatabase } from "../../src/store/open.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { Repo } from "../../src/store/repo.ts";
import { redactor } from "../../src/policy/redact.ts";
import { bridgeFixture, callTool } from "../support/bridge-process.ts";
import { poll } from "../support/poll.ts";
import { personCli, startWatch, type Watcher } from "./person-cli.ts";

const bridges = bridgeFixture({ deadlineMs: 120_000 });
const WRITE_CALL = "call_write_notes";
let watcher: Watcher | null = null;
afterEach(async () => {
  await watcher?.stop();
  watcher = null;
});

describe("codex-bridge approve beside a supervisor's codex_wait (real Codex)", () => {
  it("approvals = person: the model is refused, the terminal's approve is taken, the ledger and watch say who answered", async () => {
    const setup = await bridges.prepare({ approvalPolicy: "untrusted", extraConfig: `approvals = "person"` });
    setup.provider.setResponder((req) => {
      if (lastFunctionOutput(req, WRITE_CALL) !== undefined) return { kind: "output", items: [{ type: "message", text: "notes.txt is written." }] };
      return {
        kind: "output",
        items: [
          { type: "message", text: "Writing notes.txt now." },
          { type: "exec", callId: WRITE_CALL, cmd: "printf 'hello\\n' > notes.txt" },
        ],
      };
    });
    const t = await bridges.start(setup);
    await t.initialize();
    // Answered once the bridge is assembled (initialize may be answered earlier), and so its endpoint is open.
    await t.request("tools/list", {});

    // Before any task: the endpoint answers, and the list is empty.
    const empty = await personCli(setup.statePath, ["tasks", "--all"]);
    expect(empty, empty.stderr).toMatchObject({ code: 0 });
    expect(empty.stdout).toContain("No tasks yet.");
    watcher = startWatch(setup.statePath);
    await poll(() => watcher!.stderr().includes("watching every task"), { timeoutMs: 30_000, what: "watch to start" });

    const start = await callTool(t, "codex_start", { project_id: "demo", prompt: "write notes.txt" });
    expect(start.isError, start.text).toBe(false);
    const taskId = start.structured.task_id as string;
    const request = await poll(
      async () => {
        const w = await callTool(t, "codex_wait", { task_id: taskId, timeout_seconds: 20 });
        if (w.isError) throw new Error(w.text);
        return (w.structured.requests as { request_id: string; kind: string }[] | undefined)?.find((r) => r.kind === "command");
      },
      { timeoutMs: 90_000, interval: 0, what: "Codex to ask for the command approval" },
    );
    const requestId = request.request_id;

    // The model may not decide it.
    const refused = await callTool(t, "codex_respond", { task_id: taskId, request_id: requestId, action: "accept" });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/the person's to decide.*approvals = "person".*codex-bridge approve/);

    // The person sees it in full.
    const pending = await personCli(setup.statePath, ["pending"]);
    expect(pending.code, pending.stderr).toBe(0);
    expect(pending.stdout).toContain(requestId);
    expect(pending.stdout).toMatch(/command:\s+.*printf 'hello\\n' > notes\.txt/);
    expect(pending.stdout).toContain(`directory: ${setup.projectDir}`);
    expect(pending.stdout).toMatch(/decisions:\s+accept.*decline/);
    expect(pending.stdout).toContain(`codex-bridge approve ${requestId}`);
    const listed = await personCli(setup.statePath, ["tasks"]);
    expect(listed.stdout).toMatch(new RegExp(`${taskId}\\s+demo\\s+waiting_for_approval\\s+\\S+\\s+awaits a decision: ${requestId} \\(command\\)`));

    // The supervisor's wait holds while the person approves from another terminal.
    const held = callTool(t, "codex_wait", { task_id: taskId, timeout_seconds: 60 });
    let heldReturned = false;
    void held.then(() => (heldReturned = true));
    const approved = await personCli(setup.statePath, ["approve", requestId]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`${requestId} (${taskId}): accept sent, answered_by person at the machine`);
    // A second, different answer is refused by the same ledger.
    const again = await personCli(setup.statePath, ["decline", requestId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already answered/);

    const woke = await held;
    expect(woke.isError, woke.text).toBe(false);
    expect(heldReturned).toBe(true);
    await poll(
      async () => {
        const w = await callTool(t, "codex_wait", { task_id: taskId, timeout_seconds: 20 });
        return w.structured.state === "completed";
      },
      { timeoutMs: 90_000, interval: 0, what: `task ${taskId} to complete` },
    );
    const inspect = await callTool(t, "codex_inspect", { task_id: taskId, kind: "requests" });
    expect(inspect.text).toContain(requestId);

    const done = await personCli(setup.statePath, ["tasks"]);
    expect(done.stdout).toMatch(new RegExp(`${taskId}\\s+demo\\s+completed\\s+\\S+\\s+ended`));
    expect((await personCli(setup.statePath, ["pending"])).stdout).toContain("Nothing awaits a decision.");

    // watch printed the whole task, one line each, in order.
    await poll(() => watcher!.stdout().includes("turn completed"), { timeoutMs: 30_000, what: "watch to show the end of the turn" });
    const seen = (await watcher.stop()).stdout.split("\n").filter(Boolean).map((l) => l.replace(/^\d\d:\d\d:\d\d /, ""));
    watcher = null;
    const expected = [
      `${taskId}  turn started`,
      `${taskId}  > write notes.txt`,
      `${taskId}  message: Writing notes.txt now.`,
      `${taskId}  ? ${requestId} command approval: printf 'hello\\n' > notes.txt (in ${setup.projectDir})  [codex-bridge approve ${requestId} | decline ${requestId}]`,
      `${taskId}    ${requestId} accept by person at the machine`,
      `${taskId}  $ printf 'hello\\n' > notes.txt  -> exit 0`,
      `${taskId}  answer: notes.txt is written.`,
      `${taskId}  turn completed`,
    ];
    let at = -1;
    for (const line of expected) {
      const i = seen.indexOf(line, at + 1);
      expect(i, `watch output lacks (in order) ${JSON.stringify(line)}:\n${seen.join("\n")}`).toBeGreaterThan(at);
      at = i;
    }

    // A project added while it runs: the file changes, and the person is told the running bridge needs a restart.
    const more = await personCli(setup.statePath, ["projects", "add", "more", setup.projectDir], { CODEX_BRIDGE_CONFIG: setup.configPath });
    expect(more.code, more.stderr).toBe(0);
    expect(more.stdout).toMatch(/A codex-bridge is running with the projects it read when it started: restart it/);

    // With the bridge gone, the commands say so plainly (and fast), and the ledger says who answered.
    expect((await t.stop()).exited).toBe(true);
    const gone = await personCli(setup.statePath, ["tasks"]);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/no codex-bridge is running on the state database/);
    const store = await openStateDatabase(await getPlatform(), setup.statePath, MIGRATIONS);
    try {
      const row = new Repo(store.db, redactor).interaction(requestId)!;
      expect(row).toMatchObject({ state: "resolved", answered_by: "person at the machine" });
      expect(row.response).toEqual({ decision: "accept" });
    } finally {
      store.close();
    }
  }, 240_000);

  it("cancel from the terminal stops a running turn; tasks shows it thinking, then interrupted; watch TASK replays it whole", async () => {
    const setup = await bridges.prepare({ approvalPolicy: "never" });
    setup.provider.setResponder(() => ({ kind: "hang", partialText: "Thinking about it" }));
    const t = await bridges.start(setup);
    await t.initialize();
    await t.request("tools/list", {});
    const start = await callTool(t, "codex_start", { project_id: "demo", prompt: "think forever" });
    const taskId = start.structured.task_id as string;
    await poll(async () => (await personCli(setup.statePath, ["tasks"])).stdout.match(new RegExp(`${taskId}\\s+demo\\s+running\\s+\\S+\\s+thinking`)), {
      timeoutMs: 60_000,
      what: "tasks to show the task running",
    });
    const cancelled = await personCli(setup.statePath, ["cancel", taskId]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toMatch(new RegExp(`^${taskId}: interrupted`));
    const after = await personCli(setup.statePath, ["tasks", "--json"]);
    expect(JSON.parse(after.stdout)).toContainEqual(expect.objectContaining({ task_id: taskId, state: "interrupted", doing: "interrupted_by_supervisor" }));

    // A watch begun after the end prints the task's whole history first.
    const replay = startWatch(setup.statePath, [taskId]);
    watcher = replay;
    await poll(() => replay.stdout().includes("turn interrupted"), { timeoutMs: 30_000, what: "the replayed end of the turn" });
    const lines = (await replay.stop()).stdout.split("\n").filter(Boolean).map((l) => l.replace(/^\d\d:\d\d:\d\d /, ""));
    watcher = null;
    expect(lines).toEqual([`${taskId}  turn started`, `${taskId}  > think forever`, `${taskId}  cancel requested: cancelled by the person at the machine`, `${taskId}  turn interrupted`]);
  }, 240_000);
});
