// `codex-bridge demo`: a newcomer's first run. A whole supervised task through the bridge's own MCP tools against the
// real Codex app-server, with the built-in loopback mock as the model (no account, no network): start, wait, a web-tool
// relay, a command approval, the result with evidence, and the written file fetched as an artifact. The transcript
// shows each call the supervisor makes and the compact text the bridge answers.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Platform } from "../../platform/types.ts";
import { lastFunctionOutput } from "./mock-provider/index.ts";
import { startHarness, type Harness } from "./harness.ts";
import {
  AnswerSchema,
  ArtifactSchema,
  DeadlineError,
  errorText,
  parseFlags,
  runTmpDir,
  resourceTextOf,
  ResultSchema,
  SETTLED,
  structured,
  TaskSchema,
  textOf,
  WaitSchema,
  withCodexHint,
  withDeadline,
  type ResultView,
} from "./scripted-session.ts";

export const DEMO_FLAGS = [] as const;
const DEADLINE_MS = 120_000;
const LOOKUP_CALL = "call_demo_lookup";
const WRITE_CALL = "call_demo_write";
const REPORT = "report.md";
const RELAYED_ANSWER = "example-lib 2.4.1 is the current release (demo data: no real search was run)";
const PROMPT = `Ask the supervisor's host, through bridge_web_tool, for the current release of example-lib, then write ${REPORT} with the answer.`;

const out = (s: string): void => {
  process.stdout.write(`${s}\n`);
};
const indent = (s: string): string => s.replace(/^(?=.)/gm, "    ");

/** Keeps what can sit inside single quotes in a shell command unchanged. */
const shellSafe = (s: string): string => s.replace(/[^A-Za-z0-9 .,:;()/_+=-]/g, "").slice(0, 200);

/** The mock model's part: ask for the lookup, write the report from what came back, then say it is done. */
function scriptModel(h: Harness): void {
  const provider = h.provider!;
  provider.enqueue({
    kind: "output",
    items: [
      { type: "message", text: "I need the current release first; asking the supervisor's web tool.", deltas: 3 },
      {
        type: "tool",
        name: "bridge_web_tool",
        callId: LOOKUP_CALL,
        arguments: { capability: "web_search", request: "What is the current release of example-lib?", operation: "read" },
      },
    ],
  });
  provider.setResponder((req) => {
    if (lastFunctionOutput(req, WRITE_CALL) !== undefined) {
      return { kind: "output", items: [{ type: "message", text: `${REPORT} is written with the release the supervisor relayed.`, deltas: 3 }] };
    }
    const lookup = lastFunctionOutput(req, LOOKUP_CALL);
    if (lookup === undefined) return undefined;
    const answer = shellSafe(lookup.split("\n")[0] ?? "");
    return {
      kind: "output",
      items: [
        { type: "message", text: `Writing ${REPORT} with that answer.`, deltas: 2 },
        {
          type: "exec",
          callId: WRITE_CALL,
          cmd: `printf '%s\\n' '# example-lib release' '' 'Relayed by the supervisor: ${answer}' > ${REPORT}`,
        },
      ],
    };
  });
}

class Transcript {
  calls = 0;
  charsRead = 0;
  private readonly t0 = Date.now();

  constructor(private readonly h: Harness) {}

  note(s: string): void {
    out(`\n· ${s}`);
  }

  async call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    this.calls++;
    out(`\n[${this.calls}] supervisor → ${name} ${JSON.stringify(args)}`);
    const r = await this.h.call(name, args);
    const text = textOf(r);
    const embedded = resourceTextOf(r);
    this.charsRead += text.length + (embedded?.length ?? 0);
    out(indent(`${r.isError ? "ERROR: " : ""}${text}`));
    return r;
  }

  seconds(): number {
    return Math.round((Date.now() - this.t0) / 100) / 10;
  }
}

interface Seen {
  approved: string | null;
  relayed: string | null;
}

async function supervise(platform: Platform, env: Record<string, string | undefined>, setHarness: (h: Harness) => void): Promise<Transcript> {
  out("codex-bridge demo: one supervised Codex task, driven only through the bridge's MCP tools.");
  out("Real Codex app-server; the model is the built-in loopback mock (no account, no network). Temporary project, removed afterwards.");
  const h = await startHarness(platform, {
    mockProvider: true,
    env,
    approvalPolicy: "untrusted",
    sandboxType: "workspace-write",
    files: { "README.md": "# demo project\n\nA throwaway Git project created by `codex-bridge demo`.\n" },
  });
  setHarness(h);
  scriptModel(h);
  const tr = new Transcript(h);
  const deadline = Date.now() + DEADLINE_MS;

  tr.note("Start a task in project \"demo\" (approval policy untrusted: commands that change things need the supervisor's yes).");
  const task = structured("codex_start", await tr.call("codex_start", { project_id: "demo", prompt: PROMPT }), TaskSchema);
  if (SETTLED.has(task.state)) throw new Error(`the task could not start: ${task.state}${task.error ? `: ${task.error}` : ""}`);

  const seen: Seen = { approved: null, relayed: null };
  for (;;) {
    const left = Math.floor((deadline - Date.now()) / 1000);
    if (left <= 0) throw new Error("the task did not settle before the demo's deadline");
    const w = structured("codex_wait", await tr.call("codex_wait", { task_id: task.task_id, timeout_seconds: Math.min(20, left) }), WaitSchema);
    for (const t of w.tool_requests ?? []) {
      tr.note(`Codex asks the supervisor's host for "${t.tool?.request ?? ""}". A real supervisor would use its own search tool; the demo returns canned data, labelled as such.`);
      structured(
        "codex_submit_tool_result",
        await tr.call("codex_submit_tool_result", {
          task_id: task.task_id,
          request_id: t.request_id,
          status: "success",
          result: RELAYED_ANSWER,
          tool_used: "codex-bridge demo (canned answer, not a web search)",
        }),
        AnswerSchema,
      );
      seen.relayed = t.request_id;
    }
    for (const r of w.requests ?? []) {
      const action = r.kind === "command" && (r.decisions ?? ["accept"]).includes("accept") ? "accept" : "decline";
      tr.note(`Codex asks to run ${r.command ? `\`${r.command}\`` : `a ${r.kind} request`}: it only writes ${REPORT} inside the project, so the supervisor answers "${action}".`);
      structured("codex_respond", await tr.call("codex_respond", { task_id: task.task_id, request_id: r.request_id, action }), AnswerSchema);
      if (action === "accept") seen.approved = r.request_id;
    }
    if (SETTLED.has(w.state)) {
      if (w.state !== "completed") throw new Error(`the turn ended ${w.state}${w.turn?.error ? `: ${w.turn.error}` : ""}`);
      break;
    }
  }

  tr.note("The turn is over: read the final answer with the evidence the bridge recorded and checked itself.");
  const result = structured("codex_result", await tr.call("codex_result", { task_id: task.task_id }), ResultSchema);
  await checkWrite(platform, h, result);

  tr.note(`Fetch the file Codex wrote, as an artifact.`);
  const artifactCall = await tr.call("codex_artifact", { project_id: "demo", path: REPORT });
  structured("codex_artifact", artifactCall, ArtifactSchema);
  const content = resourceTextOf(artifactCall);
  if (content !== undefined) out(indent(`--- ${REPORT} ---\n${content.trimEnd()}\n---`));

  check(seen, result, content);
  return tr;
}

/**
 * The command that writes the report ran under Codex's sandbox; when it failed, say whether the sandbox itself can run
 * anything on this machine (Codex's own `codex sandbox -- true`), because Codex was found and ran: reinstalling it is
 * not the way out.
 */
async function checkWrite(platform: Platform, h: Harness, result: ResultView): Promise<void> {
  const write = result.evidence?.commands?.find((c) => c.command.includes(REPORT));
  if (!write || write.exit_code === 0) return;
  const said = `Codex ran the command that writes ${REPORT}, and it exited ${String(write.exit_code ?? write.status)}`;
  const probe = await sandboxProbe(platform, h.env);
  if (probe === null) throw new Error(`${said}. Codex's sandbox runs \`true\` on this machine, so the command itself failed.`);
  throw new Error(
    `${said}: Codex's sandbox cannot run commands on this machine (\`codex sandbox -- true\`: ${probe}). Codex itself was found ` +
      `and works. Run the bridge where the sandbox works (Linux with user namespaces, macOS), or give a profile ` +
      `sandbox_type = "danger-full-access" where commands may run unconfined.`,
  );
}

/** null when Codex's sandbox runs `true`; else the first words of why not. */
async function sandboxProbe(platform: Platform, env: Record<string, string | undefined>): Promise<string | null> {
  const defined: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) defined[k] = v;
  const child = platform.spawn(defined.CODEX_BIN ?? "codex", ["sandbox", "--", "true"], { cwd: process.cwd(), env: defined });
  child.endStdin();
  let err = "";
  child.onStderr((c) => (err += c));
  child.onStdout(() => {});
  const exit = await child.exited;
  if (exit.code === 0) return null;
  return err.trim().split("\n")[0]?.slice(0, 200) || `exit ${String(exit.code ?? exit.signal)}`;
}

/** The demo fails loudly when any step it promises did not really happen. */
function check(seen: Seen, result: ResultView, content: string | undefined): void {
  if (!seen.relayed) throw new Error("Codex never asked for bridge_web_tool, so no relay happened");
  if (!seen.approved) throw new Error("Codex never asked for a command approval");
  const write = result.evidence?.commands?.find((c) => c.command.includes(REPORT));
  if (!write) throw new Error(`codex_result shows no command that wrote ${REPORT}`);
  if (write.exit_code !== 0) throw new Error(`the command that wrote ${REPORT} exited ${String(write.exit_code ?? write.status)}`);
  if (!result.evidence?.git?.status.some((s) => s.includes(REPORT))) throw new Error(`git status in the project does not show ${REPORT}`);
  if (!content?.includes(RELAYED_ANSWER)) throw new Error(`${REPORT} does not carry the relayed answer`);
}

export async function runDemo(platform: Platform, args: string[]): Promise<number> {
  const parsed = parseFlags("demo", args, DEMO_FLAGS);
  if ("error" in parsed) {
    process.stderr.write(`${parsed.error}\n`);
    return 2;
  }
  let harness: Harness | null = null;
  let closing: Promise<void> | null = null;
  const closeHarness = (h: Harness): Promise<void> =>
    h.close().catch((e: unknown) => {
      process.stderr.write(`demo: cleanup: ${errorText(e)}\n`);
    });
  const cleanup = () => (closing ??= harness ? closeHarness(harness) : Promise.resolve());
  const adopt = (h: Harness) => {
    harness = h;
    if (closing) void closeHarness(h);
  };
  const started = Date.now();
  const scratch = runTmpDir("codex-bridge-demo");
  try {
    const tr = await withDeadline(DEADLINE_MS + 10_000, "the demo", () => supervise(platform, scratch.env, adopt), cleanup);
    await cleanup();
    scratch.remove();
    out(`\nDone: ${tr.calls} MCP calls, ${tr.charsRead.toLocaleString("en-US")} characters read by the supervisor, ${tr.seconds()} s.`);
    out("Next: `codex-bridge init` writes your own config; `codex-bridge doctor` checks it.");
    return 0;
  } catch (err) {
    await cleanup();
    scratch.remove();
    const why = err instanceof DeadlineError ? err.message : withCodexHint(err);
    process.stderr.write(`\ndemo FAILED after ${Math.round((Date.now() - started) / 100) / 10} s: ${why}\n`);
    return 1;
  }
}
