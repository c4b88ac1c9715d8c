// The log holds events, never content: the REAL bridge process (debug level, a log file) runs the whole standard task
// with approvals against the real Codex, with a secret and a unique marker in the prompt, in a command's output and in
// the answer, then a turn the provider rejects with both in its error body. Every byte the bridge wrote to stderr and
// to its log files is scanned: no marker, no secret, no path inside the project or the Codex home.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { superviseStandardTask, type StandardRun } from "../../bench/standard-task.ts";
import { prepareBridge, type BridgeSetup } from "../support/bridge-process.ts";
import { connectHttpClient, startHttpBridge, type HttpBridge, type HttpClient } from "../support/http-bridge.ts";
import { sc } from "../support/task-waits.ts";

const MARKER = `MARK${randomBytes(6).toString("hex")}`;
const SECRET = `sk-proj-${randomBytes(24).toString("hex")}`;

let setup: BridgeSetup;
let bridge: HttpBridge | null = null;
let client: HttpClient;
let logDir = "";
let run: StandardRun;

beforeAll(async () => {
  setup = await prepareBridge({ approvalPolicy: "untrusted" });
  logDir = mkdtempSync(join(tmpdir(), "codex-bridge-logs-"));
  bridge = await startHttpBridge(setup.env, ["--http", "127.0.0.1:0", "--log-level", "debug", "--log-file", join(logDir, "bridge.log")]);
  client = await connectHttpClient(bridge.url);
  const host = { call: client.call, client: client.client, provider: setup.provider };
  run = await superviseStandardTask(host, "approvals", {
    prompt: `Standard task ${MARKER}. The deploy key is ${SECRET}; never print it.`,
    script: (h) =>
      h.provider!.enqueue(
        { kind: "output", items: [{ type: "message", text: `Plan for ${MARKER}: print, list, write.` }, { type: "exec", cmd: `echo ${MARKER} ${SECRET}` }] },
        { kind: "output", items: [{ type: "exec", cmd: "ls -la" }] },
        { kind: "output", items: [{ type: "exec", cmd: `echo ${MARKER} > result.txt` }] },
        { kind: "output", items: [{ type: "message", text: `Done: ${MARKER} written; the key was ${SECRET}.` }] },
      ),
  });
  // A rejected turn: the provider's error body carries both too.
  setup.provider.enqueue({ kind: "http_error", status: 401, message: `key ${SECRET} rejected for ${MARKER}` });
  const failed = sc(await client.call("codex_start", { project_id: "demo", prompt: `again ${MARKER}` })).task_id as string;
  for (let i = 0; i < 20; i++) if (sc(await client.call("codex_wait", { task_id: failed, timeout_seconds: 20 })).state === "failed") break;
}, 240_000);

afterAll(async () => {
  await client?.close();
  await bridge?.stop();
  await setup?.cleanup();
  if (logDir) rmSync(logDir, { recursive: true, force: true });
});

function everyLogByte(): string {
  let all = bridge!.stderr();
  for (const f of readdirSync(logDir)) all += readFileSync(join(logDir, f), "utf8");
  return all;
}

describe("logs without content", () => {
  it("the run really happened and really was logged, one event per line", () => {
    expect(run.finalState).toBe("completed");
    expect(run.decisions).toHaveLength(3);
    const file = readFileSync(join(logDir, "bridge.log"), "utf8");
    const lines = file.trim().split("\n");
    for (const l of lines) expect(l).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z (error|warn|info|debug) [a-z][a-z0-9_]* ?/);
    const events = new Set(lines.map((l) => l.split(" ")[2]));
    for (const e of ["ready", "app_server_started", "task_started", "request_pending", "request_answered", "turn_completed", "turn_failed"]) expect(events, e).toContain(e);
    expect(file).toMatch(/ error turn_failed task=t_[0-9a-f]{10} turn=\S+ code=auth_rejected\n/);
  });

  it("no marker, no secret, no project or Codex-home path in any byte of stderr or the log files", () => {
    const all = everyLogByte();
    expect(all.length).toBeGreaterThan(500);
    expect(all).not.toContain(MARKER);
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain(SECRET.slice(8, 24));
    expect(all).not.toContain(setup.projectDir);
    expect(all).not.toContain(setup.env.CODEX_HOME!);
  });

  it("stderr gets only what must be seen (the ready line, errors) while a log file is set", () => {
    const stderrLines = bridge!.stderr().trim().split("\n").filter(Boolean);
    for (const l of stderrLines) expect(l).toMatch(/ (error \w+|info ready) /);
    expect(existsSync(join(logDir, "bridge.log"))).toBe(true);
  });
});
