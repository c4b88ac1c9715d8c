// What the live task card in an MCP Apps host shows: one bounded snapshot of a task (state, times, what Codex is
// doing, commands with output, changed files and diff, plan, requests with who answered, final answer). Only the
// card reads it, through an app-only tool, so none of it reaches the model.
import { boundText } from "../tasks/bounded-output.ts";
import type { ViewReads } from "./reads.ts";
import { SETTLED_STATES, type InteractionRow, type ItemRow, type TaskRow } from "../store/rows.ts";
import type { ApprovalsSetting } from "../policy/answerer.ts";
import { failureText, projectPath } from "./evidence.ts";
import { requestView, type RequestView } from "./request-view.ts";

// Bounds that keep one snapshot a few hundred KB at most however long the task ran; the card polls it.
const CARD_COMMANDS = 50;
const CARD_OUTPUT_CHARS = 4_000;
const CARD_DIFF_CHARS = 120_000;
const CARD_TEXT_CHARS = 20_000;
const CARD_LINE_CHARS = 300;

export interface CardCommand {
  id: string;
  command: string;
  status: string;
  exit_code: number | null;
  duration_ms?: number;
  output?: string;
  /** Characters of the original output, when the card holds less of it. */
  output_chars?: number;
}

export interface CardRequest extends RequestView {
  state: string;
  answered_by?: string;
  /** The decision given, e.g. "accept". */
  answer?: string;
}

export interface CardToolRequest {
  request_id: string;
  state: string;
  capability: string;
  operation?: string;
  request: string;
  status?: string;
}

export interface TaskCard {
  task_id: string;
  project_id: string;
  state: string;
  settled: boolean;
  /** Server time of this snapshot, so the card can count elapsed time on its own clock. */
  now: string;
  started_at: string;
  ended_at?: string;
  prompt: string;
  /** One line: what Codex is doing now. */
  doing: string;
  last_message?: string;
  approvals: ApprovalsSetting;
  commands: CardCommand[];
  commands_omitted?: number;
  files: { path: string; kind: string }[];
  diff?: string;
  diff_chars?: number;
  plan?: { step: string; status: string }[];
  requests: CardRequest[];
  tool_requests: CardToolRequest[];
  final_message?: string;
  error?: string;
  /** Changes whenever anything shown changes; the card passes it back as `since` to skip unchanged snapshots. */
  version: string;
}

export type CardAnswer = { unchanged: true; version: string } | ({ unchanged?: undefined } & TaskCard);

const text = (v: unknown): string | null => (typeof v === "string" ? v : null);

// Every stored change of a task appends an event or touches an interaction, so these four say when to redraw.
function versionOf(t: TaskRow, interactions: InteractionRow[]): string {
  const latest = interactions.reduce((m, i) => (i.updated_at > m ? i.updated_at : m), "");
  return `${t.last_seq}.${t.state}.${interactions.length}.${latest}`;
}

/**
 * Codex's own unified diff once a turn ended; while it runs, the file changes' diffs in the same shape (an added
 * file's diff is its content, so its lines are marked as additions).
 */
function diffOf(reads: ViewReads, taskId: string, changes: ItemRow[], root: string | undefined): string {
  const turns = reads.rows.items(taskId, "turnDiff").map((d) => text(d.data.diff) ?? "").filter(Boolean);
  if (turns.length) return turns.join("\n");
  const parts: string[] = [];
  for (const i of changes) {
    for (const raw of Array.isArray(i.data.changes) ? i.data.changes : []) {
      const o = (raw ?? {}) as Record<string, unknown>;
      const path = projectPath(text(o.path) ?? "?", root);
      const body = text(o.diff) ?? "";
      const unified = /^(@@|---|diff )/m.test(body);
      const lines = unified ? body : body.replace(/\n$/, "").split("\n").map((l) => `${o.kind === "delete" ? "-" : "+"}${l}`).join("\n");
      parts.push(`diff --git a/${path} b/${path}\n${lines}`);
    }
  }
  return parts.join("\n");
}

function commandOf(i: ItemRow): CardCommand {
  const c: CardCommand = {
    id: i.item_id,
    command: text(i.data.command) ?? "",
    status: text(i.data.status) ?? i.status ?? "inProgress",
    exit_code: typeof i.data.exit_code === "number" ? i.data.exit_code : null,
  };
  if (typeof i.data.duration_ms === "number") c.duration_ms = i.data.duration_ms;
  const stored = text(i.data.output) ?? "";
  const out = stored.trimEnd();
  if (out) {
    const bounded = boundText(out, CARD_OUTPUT_CHARS);
    c.output = bounded.text;
    // The store itself keeps head and tail of long output; either cut is worth saying.
    const original = typeof i.data.output_chars === "number" ? i.data.output_chars : stored.length;
    if (bounded.cut > 0 || original > stored.length) c.output_chars = original;
  }
  return c;
}

/** The decision an answer carried, in the words the request offered. */
function answerOf(i: InteractionRow): string | undefined {
  const r = i.response && typeof i.response === "object" ? (i.response as Record<string, unknown>) : null;
  if (!r) return undefined;
  if (typeof r.decision === "string") return r.decision;
  if (r.decision && typeof r.decision === "object") return Object.keys(r.decision)[0];
  if (typeof r.action === "string") return r.action;
  if (r.answers && typeof r.answers === "object") return Object.keys(r.answers).length ? "answered" : "declined";
  if (r.permissions && typeof r.permissions === "object") return Object.keys(r.permissions).length ? "accept" : "decline";
  return undefined;
}

// The request in full, as Codex asked it (an absolute cwd included): the person decides on what will really run.
function requestOf(i: InteractionRow): CardRequest {
  const v: CardRequest = { ...requestView(i), state: i.state };
  if (i.answered_by) v.answered_by = i.answered_by;
  const answer = answerOf(i);
  if (answer) v.answer = answer;
  return v;
}

function toolRequestOf(i: InteractionRow): CardToolRequest {
  const a = (i.params.arguments ?? {}) as Record<string, unknown>;
  const s = i.response && typeof i.response === "object" ? (i.response as Record<string, unknown>) : null;
  const out: CardToolRequest = { request_id: i.id, state: i.state, capability: text(a.capability) ?? "?", request: boundText(text(a.request) ?? "", CARD_LINE_CHARS).text };
  if (text(a.operation)) out.operation = String(a.operation);
  if (s && text(s.status)) out.status = String(s.status);
  return out;
}

/** One line for "now": the open request first, then a running command, then the latest event. */
function doingNow(reads: ViewReads, t: TaskRow, commands: CardCommand[], pending: InteractionRow[]): string {
  if (SETTLED_STATES.has(t.state)) return `turn ${t.state}`;
  const ask = pending.find((i) => i.kind !== "tool");
  if (ask) {
    const v = requestView(ask);
    return `waiting for a decision: ${ask.kind}${v.command ? ` \`${v.command}\`` : ""}`;
  }
  const tool = pending.find((i) => i.kind === "tool");
  if (tool) return `waiting for the supervisor's web tool (${toolRequestOf(tool).capability})`;
  const running = commands.filter((c) => c.status === "inProgress").at(-1);
  if (running) return `running \`${running.command}\``;
  for (let seq = t.last_seq; seq > 0 && seq > t.last_seq - 5; seq--) {
    const e = reads.rows.event(t.id, seq);
    if (!e) continue; // a completed message's streamed chunks are not kept
    if (e.kind === "message_delta") return "writing a message";
    if (e.kind === "message") return "wrote a message";
    if (e.kind === "plan") return "updated the plan";
    if (e.kind === "file_change") return "edited files";
    if (e.kind === "command") return `ran \`${text(e.data.command) ?? ""}\``;
    if (e.kind === "turn_started" || e.kind === "user_message") return "thinking";
  }
  return t.state === "starting" ? "starting" : "working";
}

function lastEvent(reads: ViewReads, taskId: string, kind: string): Record<string, unknown> | undefined {
  const all = reads.rows.events(taskId, 0, 10_000, [kind]);
  return all.at(-1)?.data;
}

/** The card's snapshot of a task, or just its version when the caller already holds that version. */
export function taskCard(reads: ViewReads, taskId: string, since?: string): CardAnswer {
  reads.sync(taskId);
  const t = reads.task(taskId);
  const interactions = reads.rows.interactions(t.id);
  const version = versionOf(t, interactions);
  if (since === version) return { unchanged: true, version };

  const root = reads.projectRoot(t.project_id);
  const items = reads.rows.items(t.id, "commandExecution");
  const commands = items.slice(-CARD_COMMANDS).map(commandOf);
  const pending = interactions.filter((i) => i.state === "pending");
  // Codex starts a command item before it asks to run it; until then it is waiting, not running.
  for (const c of commands) if (c.status === "inProgress" && pending.some((i) => i.item_id === c.id)) c.status = "awaitingApproval";
  const files = new Map<string, string>();
  const changes = reads.rows.items(t.id, "fileChange");
  for (const i of changes) {
    for (const raw of Array.isArray(i.data.changes) ? i.data.changes : []) {
      const o = (raw ?? {}) as Record<string, unknown>;
      files.set(projectPath(text(o.path) ?? "?", root), text(o.kind) ?? "update");
    }
  }
  const card: TaskCard = {
    task_id: t.id,
    project_id: t.project_id,
    state: t.state,
    settled: SETTLED_STATES.has(t.state),
    now: new Date().toISOString(),
    started_at: t.created_at,
    prompt: boundText(t.prompt, CARD_TEXT_CHARS).text,
    doing: doingNow(reads, t, commands, pending),
    approvals: reads.profile(t.profile_id).approvals,
    commands,
    files: [...files].map(([path, kind]) => ({ path, kind })),
    requests: interactions.filter((i) => i.kind !== "tool").map(requestOf),
    tool_requests: interactions.filter((i) => i.kind === "tool").map(toolRequestOf),
    version,
  };
  if (card.settled) card.ended_at = t.updated_at;
  if (items.length > CARD_COMMANDS) card.commands_omitted = items.length - CARD_COMMANDS;
  const message = lastEvent(reads, t.id, "message");
  if (message && text(message.text)) card.last_message = boundText(String(message.text), CARD_TEXT_CHARS).text;
  const diff = diffOf(reads, t.id, changes, root);
  if (diff) {
    card.diff = boundText(diff, CARD_DIFF_CHARS).text;
    if (diff.length > CARD_DIFF_CHARS) card.diff_chars = diff.length;
  }
  const plan = lastEvent(reads, t.id, "plan");
  if (plan && Array.isArray(plan.steps)) card.plan = plan.steps as TaskCard["plan"];
  if (t.final_message) card.final_message = boundText(t.final_message, CARD_TEXT_CHARS).text;
  if (t.failure) card.error = failureText(t.failure);
  return card;
}
