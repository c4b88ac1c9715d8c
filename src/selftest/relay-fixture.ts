// `codex-bridge relay-fixture`: proves the web-tool relay end to end. A real Codex turn calls bridge_web_tool, the
// fixture answers through codex_submit_tool_result with a random marker, and the SAME turn's final answer must
// carry that marker back. With --mock-provider the model is the built-in loopback mock, which builds its final answer
// only from the tool output it received, so the marker cannot appear unless the relay really delivered it.
import { randomBytes } from "node:crypto";
import type { Platform } from "../../platform/types.ts";
import { lastFunctionOutput } from "./mock-provider/index.ts";
import { startHarness, type Harness } from "./harness.ts";
import {
  AnswerSchema,
  DeadlineError,
  errorText,
  parseFlags,
  runTmpDir,
  ResultSchema,
  SETTLED,
  structured,
  TaskSchema,
  WaitSchema,
  withCodexHint,
  withDeadline,
  type WaitView,
} from "./scripted-session.ts";

export const RELAY_FIXTURE_FLAGS = ["--mock-provider", "--json"] as const;
const MOCK_DEADLINE_MS = 120_000;
const REAL_DEADLINE_MS = 300_000;
/**
 * Test hooks. SABOTAGE=1: the mock model's final answer leaves the tool output out, so the fixture must FAIL.
 * SABOTAGE=hang: the mock model never finishes after the tool output, so the deadline (DEADLINE_MS) must end the run.
 */
const SABOTAGE_ENV = "CODEX_BRIDGE_FIXTURE_SABOTAGE";
const DEADLINE_ENV = "CODEX_BRIDGE_FIXTURE_DEADLINE_MS";
type Sabotage = "none" | "drop-marker" | "hang";

export interface RelayFixtureReport {
  ok: boolean;
  marker: string;
  task_id: string | null;
  turn_id: string | null;
  final_message_excerpt: string | null;
  seconds: number;
  reason?: string;
}

class FixtureFailure extends Error {}

const progress = (msg: string): void => {
  process.stderr.write(`relay-fixture: ${msg}\n`);
};

function excerpt(text: string, marker: string): string {
  const at = text.indexOf(marker);
  if (text.length <= 300) return text;
  if (at < 0) return `${text.slice(0, 299)}…`;
  const from = Math.max(0, at - 120);
  return `${from > 0 ? "…" : ""}${text.slice(from, from + 300)}${from + 300 < text.length ? "…" : ""}`;
}

function realPrompt(): string {
  return [
    "This is an automated check of the bridge_web_tool relay; do not run shell commands or edit files.",
    'Call the bridge_web_tool tool exactly once with capability "web_search", operation "read" and request',
    '"Return the relay fixture marker". Then reply with one sentence that repeats, verbatim, the marker (a token',
    'starting with "RELAY-") from the tool\'s answer.',
  ].join(" ");
}

function scriptMock(h: Harness, sabotage: Sabotage): void {
  const provider = h.provider!;
  provider.enqueue({
    kind: "output",
    items: [
      {
        type: "tool",
        name: "bridge_web_tool",
        callId: "call_relay_fixture",
        arguments: { capability: "web_search", request: "Return the relay fixture marker", operation: "read" },
      },
    ],
  });
  provider.setResponder((req) => {
    const out = lastFunctionOutput(req);
    if (out === undefined) return undefined;
    if (sabotage === "hang") return { kind: "hang" };
    const text = sabotage === "drop-marker" ? "The tool answered; its content is withheld (sabotaged fixture)." : `The relay answered: ${out}`;
    return { kind: "output", items: [{ type: "message", text, deltas: 3 }] };
  });
}

async function waitFor(h: Harness, taskId: string, deadline: number, until: (w: WaitView) => boolean): Promise<WaitView> {
  let state = "starting";
  for (;;) {
    const left = Math.floor((deadline - Date.now()) / 1000);
    if (left <= 0) throw new FixtureFailure(`the run deadline passed while waiting for Codex (task still ${state})`);
    const w = structured("codex_wait", await h.call("codex_wait", { task_id: taskId, timeout_seconds: Math.min(20, left) }), WaitSchema);
    state = w.state;
    for (const m of w.messages ?? []) progress(`codex says: ${m.length > 160 ? `${m.slice(0, 159)}…` : m}`);
    // Nothing here should need an approval; a refusal keeps the turn going instead of hanging it.
    for (const r of w.requests ?? []) {
      progress(`declining unexpected ${r.kind} request ${r.request_id}${r.command ? ` (${r.command})` : ""}`);
      structured("codex_respond", await h.call("codex_respond", { task_id: taskId, request_id: r.request_id, action: "decline" }), AnswerSchema);
    }
    if (until(w)) return w;
    if (SETTLED.has(w.state)) return w;
  }
}

async function runFixture(platform: Platform, env: Record<string, string | undefined>, mock: boolean, marker: string, deadline: number, report: RelayFixtureReport, setHarness: (h: Harness) => void): Promise<void> {
  progress(mock ? "starting the bridge, a real Codex app-server and the loopback mock model (offline)" : "starting the bridge and a real Codex app-server with your Codex login");
  const h = await startHarness(platform, { mockProvider: mock, env, approvalPolicy: "never", sandboxType: "read-only" });
  setHarness(h);
  if (mock) {
    const hook = process.env[SABOTAGE_ENV];
    scriptMock(h, hook === "1" ? "drop-marker" : hook === "hang" ? "hang" : "none");
  }

  const prompt = mock ? "Ask the supervisor's host for the relay fixture marker through bridge_web_tool, then report it." : realPrompt();
  const start = structured("codex_start", await h.call("codex_start", { project_id: "demo", prompt }), TaskSchema);
  report.task_id = start.task_id;
  if (start.turn_id) report.turn_id = start.turn_id;
  if (SETTLED.has(start.state)) throw new FixtureFailure(`the task could not start: ${start.state}${start.error ? `: ${start.error}` : ""}`);
  progress(`started ${start.task_id}${start.turn_id ? ` (turn ${start.turn_id})` : ""}; waiting for a bridge_web_tool request`);

  const asked = await waitFor(h, start.task_id, deadline, (w) => (w.tool_requests ?? []).length > 0);
  const toolRequest = asked.tool_requests?.[0];
  if (!toolRequest) {
    throw new FixtureFailure(`the turn ended (${asked.state}${asked.turn?.error ? `: ${asked.turn.error}` : ""}) without a bridge_web_tool request`);
  }
  progress(`Codex asked ${toolRequest.request_id}: ${String(toolRequest.tool?.capability)} "${toolRequest.tool?.request ?? ""}"`);

  const answer = structured(
    "codex_submit_tool_result",
    await h.call("codex_submit_tool_result", {
      task_id: start.task_id,
      request_id: toolRequest.request_id,
      status: "success",
      result: `The relay fixture marker is ${marker}.`,
      tool_used: "codex-bridge relay-fixture (a local fixture, not a web search)",
    }),
    AnswerSchema,
  );
  progress(`answered ${answer.request_id} with marker ${marker} (${answer.state}); waiting for the turn to end`);

  const end = await waitFor(h, start.task_id, deadline, (w) => SETTLED.has(w.state));
  if (end.state !== "completed") throw new FixtureFailure(`the turn ended ${end.state}${end.turn?.error ? `: ${end.turn.error}` : ""}`);

  // The same turn must have carried the answer: a second turn would mean the relay did not continue the original one.
  const status = structured("codex_status", await h.call("codex_status", { task_id: start.task_id }), TaskSchema);
  if (report.turn_id && status.turn_id !== report.turn_id) {
    throw new FixtureFailure(`the final answer came from turn ${String(status.turn_id)}, not the turn ${report.turn_id} that asked`);
  }
  report.turn_id = status.turn_id ?? report.turn_id;

  const result = structured("codex_result", await h.call("codex_result", { task_id: start.task_id }), ResultSchema);
  const final = result.final_message ?? "";
  report.final_message_excerpt = excerpt(final, marker);
  if (!final) throw new FixtureFailure("the turn completed without a final message");
  if (!final.includes(marker)) throw new FixtureFailure(`the final answer does not contain the marker ${marker}`);
  const relayed = result.evidence?.host_reports?.items.find((i) => i.request_id === toolRequest.request_id);
  if (!relayed) throw new FixtureFailure(`codex_result lists no host report for ${toolRequest.request_id}`);
  progress(`final answer of turn ${report.turn_id ?? "?"} carries the marker; host report ${relayed.request_id} is ${relayed.state}`);
}

export async function runRelayFixture(platform: Platform, args: string[]): Promise<number> {
  const parsed = parseFlags("relay-fixture", args, RELAY_FIXTURE_FLAGS);
  if ("error" in parsed) {
    process.stderr.write(`${parsed.error}\n`);
    return 2;
  }
  const mock = parsed.flags.has("--mock-provider");
  const json = parsed.flags.has("--json");
  if (!mock) {
    progress("without --mock-provider this uses your Codex login (your CODEX_HOME) and spends a little quota: one short model turn.");
  }
  const marker = `RELAY-${randomBytes(8).toString("hex").toUpperCase()}`;
  const started = Date.now();
  const override = Number(process.env[DEADLINE_ENV]);
  const limit = Number.isInteger(override) && override > 0 ? override : mock ? MOCK_DEADLINE_MS : REAL_DEADLINE_MS;
  const report: RelayFixtureReport = { ok: false, marker, task_id: null, turn_id: null, final_message_excerpt: null, seconds: 0 };
  const scratch = runTmpDir("codex-bridge-relay-fixture");
  let harness: Harness | null = null;
  let closing: Promise<void> | null = null;
  const closeHarness = (h: Harness) => h.close().catch((e: unknown) => progress(`cleanup: ${errorText(e)}`));
  const cleanup = () => (closing ??= harness ? closeHarness(harness) : Promise.resolve());
  // A harness that finishes starting after the deadline already fired is closed at once.
  const adopt = (h: Harness) => {
    harness = h;
    if (closing) void closeHarness(h);
  };

  try {
    await withDeadline(limit, "the relay fixture", () => runFixture(platform, scratch.env, mock, marker, started + limit, report, adopt), cleanup);
    report.ok = true;
  } catch (err) {
    report.reason = err instanceof FixtureFailure || err instanceof DeadlineError ? err.message : withCodexHint(err);
  } finally {
    await cleanup();
    scratch.remove();
  }
  report.seconds = Math.round((Date.now() - started) / 100) / 10;

  if (json) process.stdout.write(`${JSON.stringify(report)}\n`);
  else if (report.ok) process.stdout.write(`relay-fixture: PASS: turn ${report.turn_id ?? "?"} of ${report.task_id} answered with marker ${marker} in ${report.seconds} s\n`);
  else process.stdout.write(`relay-fixture: FAIL: ${report.reason}\n`);
  return report.ok ? 0 : 1;
}
