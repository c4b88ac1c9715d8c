// `codex-bridge watch`: a task's stored events as one line each, for a person following it in a terminal: a message,
// a command with its exit code, a file change, a request (with how to answer it), an answer and who gave it, an end.
// Streaming deltas and bookkeeping events give no line; the finished message does.
import type { EventRow, InteractionRow } from "../store/rows.ts";
import type { ViewReads } from "./reads.ts";
import { projectPath } from "./evidence.ts";
import { requestView } from "./request-view.ts";

const TEXT_CHARS = 200;
const PAGE = 500;

export interface WatchLine {
  task_id: string;
  seq: number;
  at: string;
  text: string;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** First line of a text, at most TEXT_CHARS, saying how much more there is. */
function oneLine(text: string): string {
  const lines = text.trim().split(/\r?\n/);
  let first = lines[0] ?? "";
  if (first.length > TEXT_CHARS) first = `${first.slice(0, TEXT_CHARS - 1)}…`;
  return lines.length > 1 ? `${first} (+${lines.length - 1} lines)` : first;
}

/** Every task's last stored seq (where a watch of every task begins), without reading the task rows. */
export function taskSeqs(reads: ViewReads): Map<string, number> {
  const rows = reads.rows.db.prepare(`SELECT id, last_seq FROM tasks`).all();
  return new Map(rows.map((r) => [String(r.id), Number(r.last_seq)]));
}

/** The lines of a task's events after `afterSeq`, and the last seq read. */
export function watchLines(reads: ViewReads, taskId: string, afterSeq: number): { lines: WatchLine[]; last: number } {
  const lines: WatchLine[] = [];
  let last = afterSeq;
  const t = reads.rows.task(taskId);
  const root = t ? reads.projectRoot(t.project_id) : undefined;
  for (;;) {
    const page = reads.rows.events(taskId, last, PAGE);
    for (const e of page) {
      last = e.seq;
      const texts = e.kind === "turn_completed" ? [finalAnswer(reads, e), lineOf(reads, e, root)] : [lineOf(reads, e, root)];
      for (const text of texts) if (text !== null) lines.push({ task_id: taskId, seq: e.seq, at: e.at, text });
    }
    if (page.length < PAGE) return { lines, last };
  }
}

/** The turn's final answer: held back from the message events until the turn ended, stored as the turn's item. */
function finalAnswer(reads: ViewReads, e: EventRow): string | null {
  if (e.data.has_final !== true) return null;
  const item = reads.rows.items(e.task_id, "agentMessage").findLast((i) => i.turn_id === e.turn_id && i.data.final === true);
  if (!item) return null;
  // A message is stored once: the current turn's final answer lives only in the task row (see inspect's transcript).
  const task = typeof item.data.text === "string" ? null : reads.rows.task(e.task_id);
  const text = task ? (task.turn_id === e.turn_id ? task.final_message : null) : item.data.text;
  return `answer: ${oneLine(str(text))}`;
}

function lineOf(reads: ViewReads, e: EventRow, root: string | undefined): string | null {
  const d = e.data;
  switch (e.kind) {
    case "turn_started":
      return "turn started";
    case "user_message":
      return `> ${oneLine(str(d.text))}`;
    case "message":
      return `message: ${oneLine(str(d.text))}`;
    case "command": {
      const end = typeof d.exit_code === "number" ? `exit ${d.exit_code}` : str(d.status) || "ended";
      return `$ ${oneLine(str(d.command))}  -> ${end}`;
    }
    case "file_change": {
      const list = Array.isArray(d.changes) ? (d.changes as Record<string, unknown>[]) : [];
      const files = list.map((c) => `${str(c.kind) || "update"} ${projectPath(str(c.path) || "?", root)}`).join(", ");
      return `files: ${files || "(none listed)"}${str(d.status) && d.status !== "completed" ? ` [${str(d.status)}]` : ""}`;
    }
    case "request":
      return requestLine(reads.rows.interaction(str(d.request_id)));
    case "request_closed":
      return closedLine(reads.rows.interaction(str(d.request_id)), str(d.state));
    case "plan": {
      const steps = Array.isArray(d.steps) ? (d.steps as Record<string, unknown>[]) : [];
      return `plan: ${steps.filter((s) => s.status === "completed").length}/${steps.length} steps done`;
    }
    case "turn_completed":
      return `turn ${str(d.status) || "ended"}${str(d.error) ? `: ${oneLine(str(d.error))}` : ""}`;
    case "cancel_requested":
      return `cancel requested: ${oneLine(str(d.reason))}`;
    case "connection_lost":
      return `connection lost: ${oneLine(str(d.detail))}`;
    case "error":
    case "warning":
      return `${e.kind}: ${oneLine(str(d.message) || JSON.stringify(d))}`;
    case "mcp_call":
      return `mcp tool ${str(d.server)}.${str(d.tool)} ${str(d.status)}`;
    case "tool_call":
      return `tool ${str(d.tool)} ${str(d.status)}`;
    default:
      return null;
  }
}

const LABEL: Record<string, string> = { command: "command approval", fileChange: "file change approval", permissions: "permission request", userInput: "question", elicitation: "MCP elicitation" };

function requestLine(i: InteractionRow | undefined): string | null {
  if (!i) return null;
  if (i.kind === "tool") return `? ${i.id} web tool request for the supervisor`;
  const v = requestView(i);
  const what = v.command ? `: ${oneLine(v.command)}${v.cwd ? ` (in ${v.cwd})` : ""}` : v.questions ? `: ${v.questions.length} question(s)` : v.paths?.length ? `: ${v.paths.join(", ")}` : "";
  const how = i.kind === "userInput" ? `codex-bridge answer ${i.id} …` : `codex-bridge approve ${i.id} | decline ${i.id}`;
  return `? ${i.id} ${LABEL[i.kind] ?? i.kind}${what}  [${how}]`;
}

function closedLine(i: InteractionRow | undefined, state: string): string | null {
  if (!i) return null;
  if (state !== "resolved") return `  ${i.id} closed by Codex without an answer`;
  const r = i.response && typeof i.response === "object" ? (i.response as Record<string, unknown>) : {};
  const decision = typeof r.decision === "string" ? r.decision : r.decision ? Object.keys(r.decision)[0] : typeof r.action === "string" ? r.action : i.kind === "tool" ? str(r.status) || "result" : "answered";
  return `  ${i.id} ${decision} by ${i.answered_by ?? "?"}`;
}
