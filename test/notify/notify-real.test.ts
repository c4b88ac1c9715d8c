// Notifications from a real bridge process against the real Codex: a command notifier and a loopback webhook each get
// one content-free JSON event for a request awaiting the person and for the task's completion (no prompt, command
// text or path), and a webhook that hangs delays no tool answer.
import { writeFileSync, readFileSync, existsSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lastFunctionOutput } from "../../src/selftest/mock-provider/index.ts";
import { bridgeFixture, callTool, type BridgeSetup } from "../support/bridge-process.ts";
import { poll } from "../support/poll.ts";
import { tempDir } from "../support/temp-dir.ts";
import { personCli } from "../control/person-cli.ts";

const bridges = bridgeFixture({ deadlineMs: 120_000 });
const WRITE_CALL = "call_write_secret";
const PROMPT_MARK = "PROMPTMARK7781";
const COMMAND_MARK = "CMDMARK5512";

interface Hook {
  url: string;
  bodies: Record<string, any>[];
  /** Requests received and not answered yet (a hanging hook holds them). */
  open: ServerResponse[];
  close(): Promise<void>;
}

let hook: Hook | null = null;
afterEach(async () => {
  await hook?.close();
  hook = null;
});

async function loopbackHook(hang: boolean): Promise<Hook> {
  const bodies: Record<string, any>[] = [];
  const open: ServerResponse[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      bodies.push(JSON.parse(body));
      if (hang) {
        // Held for 30 s: the bridge gives up on it after its own deadline; nothing else may wait for it.
        open.push(res);
        setTimeout(() => res.end("late"), 30_000).unref();
      } else res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    bodies,
    open,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A command notifier: a small program appending each event it reads on stdin to a file. */
function commandNotifier(): { argv: string[]; events(): Record<string, any>[] } {
  const dir = tempDir("notify-command-");
  const out = join(dir, "events.jsonl");
  const script = join(dir, "notifier.cjs");
  writeFileSync(script, `let s="";process.stdin.on("data",(c)=>s+=c).on("end",()=>require("node:fs").appendFileSync(${JSON.stringify(out)},s));`);
  return {
    argv: [process.execPath, script],
    events: () => (existsSync(out) ? readFileSync(out, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []),
  };
}

function script(setup: BridgeSetup): void {
  setup.provider.setResponder((req) => {
    if (lastFunctionOutput(req, WRITE_CALL) !== undefined) return { kind: "output", items: [{ type: "message", text: "written." }] };
    return { kind: "output", items: [{ type: "exec", callId: WRITE_CALL, cmd: `printf '${COMMAND_MARK}\\n' > marked.txt` }] };
  });
}

/** Nothing of the work in an event: no prompt, no command text, no path. */
function expectContentFree(e: Record<string, any>, setup: BridgeSetup): void {
  const s = JSON.stringify(e);
  expect(s).not.toContain(PROMPT_MARK);
  expect(s).not.toContain(COMMAND_MARK);
  expect(s).not.toContain("marked.txt");
  expect(s).not.toContain(setup.projectDir);
  expect(e.text).toBeUndefined();
}

async function firstRequest(t: Parameters<typeof callTool>[0], taskId: string): Promise<string> {
  const r = await poll(
    async () => {
      const w = await callTool(t, "codex_wait", { task_id: taskId, timeout_seconds: 20 });
      return (w.structured.requests as { request_id: string; kind: string }[] | undefined)?.find((x) => x.kind === "command");
    },
    { timeoutMs: 90_000, interval: 0, what: "the command approval" },
  );
  return r.request_id;
}

describe("[notify] from a real bridge", () => {
  it("a command notifier and a loopback webhook each get a content-free request_pending and task_ended", async () => {
    hook = await loopbackHook(false);
    const cmd = commandNotifier();
    const setup = await bridges.prepare({
      approvalPolicy: "untrusted",
      extraConfig: `approvals = "person"\n\n[notify]\ncommand = ${JSON.stringify(cmd.argv)}\nurl = ${JSON.stringify(hook.url)}\n`,
    });
    script(setup);
    const t = await bridges.start(setup);
    await t.initialize();
    const start = await callTool(t, "codex_start", { project_id: "demo", prompt: `write the file ${PROMPT_MARK}` });
    const taskId = start.structured.task_id as string;
    const requestId = await firstRequest(t, taskId);

    const pendingIn = (list: Record<string, any>[]) => list.find((e) => e.event === "request_pending");
    const viaHook = await poll(() => pendingIn(hook!.bodies), { timeoutMs: 30_000, what: "request_pending at the webhook" });
    const viaCommand = await poll(() => pendingIn(cmd.events()), { timeoutMs: 30_000, what: "request_pending at the command" });
    for (const e of [viaHook, viaCommand]) {
      expect(e).toMatchObject({ v: 1, event: "request_pending", task_id: taskId, project_id: "demo", state: "waiting_for_approval", request_id: requestId, request_kind: "command" });
      expectContentFree(e, setup);
    }

    const approved = await personCli(setup.statePath, ["approve", requestId]);
    expect(approved.code, approved.stderr).toBe(0);
    const endedIn = (list: Record<string, any>[]) => list.find((e) => e.event === "task_ended");
    const endHook = await poll(() => endedIn(hook!.bodies), { timeoutMs: 90_000, what: "task_ended at the webhook" });
    const endCommand = await poll(() => endedIn(cmd.events()), { timeoutMs: 30_000, what: "task_ended at the command" });
    for (const e of [endHook, endCommand]) {
      expect(e).toMatchObject({ v: 1, event: "task_ended", task_id: taskId, project_id: "demo", state: "completed" });
      expectContentFree(e, setup);
    }
    // One event each, not one per wake.
    expect(hook.bodies.filter((e) => e.event === "request_pending")).toHaveLength(1);
    expect(cmd.events().filter((e) => e.event === "task_ended")).toHaveLength(1);
  }, 240_000);

  it("a webhook that hangs for 30 s delays no tool answer: the task is approved and completes while it still hangs", async () => {
    hook = await loopbackHook(true);
    const setup = await bridges.prepare({ approvalPolicy: "untrusted", extraConfig: `approvals = "either"\n\n[notify]\nurl = ${JSON.stringify(hook.url)}\n` });
    script(setup);
    const t = await bridges.start(setup);
    await t.initialize();
    const start = await callTool(t, "codex_start", { project_id: "demo", prompt: "write the file" });
    const taskId = start.structured.task_id as string;
    const requestId = await firstRequest(t, taskId);
    // The hook has the request_pending event and is holding it.
    await poll(() => hook!.open.length === 1, { timeoutMs: 30_000, what: "the webhook to be holding the first event" });
    const held = hook.open[0]!;

    const answered = await callTool(t, "codex_respond", { task_id: taskId, request_id: requestId, action: "accept" });
    expect(answered.isError, answered.text).toBe(false);
    const done = await poll(
      async () => {
        const w = await callTool(t, "codex_wait", { task_id: taskId, timeout_seconds: 20 });
        return w.structured.state === "completed" ? w : undefined;
      },
      { timeoutMs: 90_000, interval: 0, what: `task ${taskId} to complete` },
    );
    expect(done.isError).toBe(false);
    // Every answer above came while the webhook still held its first request unanswered.
    expect(held.writableEnded).toBe(false);
    expect(hook.bodies[0]).toMatchObject({ event: "request_pending", request_id: requestId });
  }, 240_000);

  it("a bridge stopped (stdin closed, as the tunnel does) with a turn running says so: bridge_stopping with the task", async () => {
    hook = await loopbackHook(false);
    const cmd = commandNotifier();
    const setup = await bridges.prepare({ approvalPolicy: "never", extraConfig: `\n[notify]\ncommand = ${JSON.stringify(cmd.argv)}\nurl = ${JSON.stringify(hook.url)}\n` });
    setup.provider.setResponder(() => ({ kind: "hang" }));
    const t = await bridges.start(setup);
    await t.initialize();
    const start = await callTool(t, "codex_start", { project_id: "demo", prompt: "think forever" });
    const taskId = start.structured.task_id as string;
    await poll(async () => (await callTool(t, "codex_status", { task_id: taskId })).structured.state === "running", { timeoutMs: 60_000, what: "the turn to run" });
    expect((await t.stop()).exited).toBe(true);
    const stopping = (list: Record<string, any>[]) => list.find((e) => e.event === "bridge_stopping");
    // The webhook is answered by this process; the command notifier outlives the bridge and writes its file.
    const viaHook = await poll(() => stopping(hook!.bodies), { timeoutMs: 30_000, what: "bridge_stopping at the webhook" });
    expect(viaHook).toMatchObject({ v: 1, event: "bridge_stopping", live_tasks: [taskId] });
    const viaCommand = await poll(() => stopping(cmd.events()), { timeoutMs: 30_000, what: "bridge_stopping at the command" });
    expect(viaCommand).toMatchObject({ live_tasks: [taskId] });
  }, 240_000);
});
