// One task's part of a codex_wait answer: what happened since its cursor (messages, commands, requests, the turn's
// end, a delta_summary), or, when nothing needs the supervisor, one line of what it is doing now. Empty fields are
// left out everywhere.
import { isAbsolute, relative } from "node:path";
import { boundText } from "../tasks/bounded-output.ts";
import type { EventRow, Failure, InteractionRow, TaskRow } from "../store/rows.ts";
import { SETTLED_STATES } from "../store/rows.ts";
import { personDecides } from "../policy/answerer.ts";
import type { ViewReads } from "./reads.ts";
import { activity } from "./activity.ts";
import { requestView, type RequestView } from "./request-view.ts";
import { encodeCursor, REANCHOR, type Cursor } from "./wait-cursor.ts";
import { isValidationCommand } from "./validation.ts";
import { resolvedLine, unknownLine } from "./unknown-view.ts";

export type WaitMode = "auto" | "supervision" | "raw";

/** What a delta reads: the store and the project roots (paths are shown relative to them). */
export type WaitView = Pick<ViewReads, "rows" | "projectRoot" | "profile">;

// Output of a failing command shown inline (auto mode); routine output stays behind codex_inspect.
const FAILED_OUTPUT_CHARS = 240;
export const MAX_EVENTS_PER_WAIT = 400;
const RAW_PAGE = 100;
const CHANGES_MAX = 8;
const EXPANDED_EVENTS_MAX = 20;
/** Routine progress is held back until news comes, or until this many routine items have gathered. */
export const ROUTINE_BATCH = 12;
/** Kinds shown in auto/supervision answers; every other stored event is counted as suppressed. */
const SHOWN = new Set(["message", "plan", "command", "file_change", "request", "turn_completed", "error", "unknown", "unknown_resolved", "connection_lost", "warning"]);
const PROBLEM_KINDS = new Set(["error", "warning", "unknown", "connection_lost"]);

export interface CommandView {
  id: string;
  command: string;
  exit_code: number | null;
  status: string;
  output?: string;
}

export interface DeltaSummary {
  changes?: string[];
  commands?: CommandView[];
  /** Test and build commands with their exit codes: what was reported, never a verdict on the task. */
  validation?: string[];
  /** Requests still waiting from earlier answers (new ones are in `requests` in full). */
  pending?: string[];
  unresolved?: string[];
  /** The tools to call next, when it is not simply codex_wait again. */
  next?: string[];
}

export interface RawEvent {
  seq: number;
  kind: string;
  item_id?: string;
  data: Record<string, unknown>;
}

export interface TaskDelta {
  task_id: string;
  state: TaskRow["state"];
  /** On answers that end with no news: how long the turn has run and the command running now. */
  ran_s?: number;
  command?: string;
  /** Only where the supervisor needs it: it passed a cursor, reads raw pages, or its cursor was lost. */
  next_cursor?: string;
  has_more?: true;
  cursor_lost?: true;
  reanchor?: string;
  messages?: string[];
  plan?: { step: string; status: string }[];
  requests?: RequestView[];
  tool_requests?: RequestView[];
  turn?: { status: string; error?: string };
  /** Why the task failed, was interrupted or was lost: present once it is settled that way. */
  failure?: Failure;
  events?: RawEvent[];
  delta_summary?: DeltaSummary;
  /** Low-value events this answer does not show (streamed deltas, starts, notices), counted rather than dropped. */
  suppressed_events?: number;
}

/** Whether an event needs the supervisor now; routine progress (exit 0, file changes, plans) waits for the next news. */
export function isNews(e: EventRow, mode: WaitMode): boolean {
  if (mode === "raw") return e.kind !== "notice";
  switch (e.kind) {
    case "message":
    case "request":
    case "turn_completed":
    case "connection_lost":
    case "unknown":
    case "unknown_resolved":
      return true;
    case "error":
      return e.data.will_retry !== true;
    case "command":
      return e.data.exit_code !== 0 || e.data.status !== "completed";
    default:
      return false;
  }
}

export function isRoutine(e: EventRow): boolean {
  return e.kind === "command" || e.kind === "file_change" || e.kind === "plan";
}

export interface DeltaOptions {
  mode: WaitMode;
  from: number;
  generation: number;
  /** False: nothing for the supervisor yet; answer with the one-line activity and keep the cursor where it is. */
  deliver: boolean;
  /** The wait ended on its timeout, not on news: say what the task is doing now. */
  timedOut: boolean;
  /** The caller passed its own cursor for this task, so it needs the next one back. */
  explicit: boolean;
  lost: boolean;
}

/** Paths inside the project are shown relative to it; anything else stays absolute, so it stands out. */
function relativeTo(root: string | undefined, path: string): string {
  if (!root) return path;
  const r = relative(root, path);
  return r && !r.startsWith("..") && !isAbsolute(r) ? r : path;
}

function put<K extends keyof DeltaSummary>(s: DeltaSummary, k: K, v: NonNullable<DeltaSummary[K]>): void {
  if (v.length) s[k] = v;
}

export function commandLine(c: CommandView): string {
  return `${c.command} → ${c.exit_code ?? c.status}`;
}

/** One task's answer, and the cursor it moves the reader to. */
export function buildDelta(view: WaitView, taskId: string, o: DeltaOptions): { delta: TaskDelta; to: Cursor } {
  const { rows: repo } = view;
  const t = repo.task(taskId)!;
  const active = !SETTLED_STATES.has(t.state);
  const delta: TaskDelta = { task_id: taskId, state: t.state };
  const from: Cursor = { seq: o.from, generation: o.generation };
  if (!o.deliver) {
    if (active) Object.assign(delta, activity(repo, t));
    return { delta, to: from };
  }
  const projectRoot = view.projectRoot(t.project_id);
  // A classified failure says what Codex's error text and the lost connection's detail would say again.
  const explained = !active && t.failure !== null && t.failure.code !== "unknown";
  const page = o.mode === "raw" ? RAW_PAGE : MAX_EVENTS_PER_WAIT;
  const events = repo.events(taskId, o.from, page);
  const last = events.length ? events[events.length - 1]!.seq : o.from;
  const to: Cursor = { seq: last, generation: o.generation };

  const messages: string[] = [];
  const commands: CommandView[] = [];
  const changes: string[] = [];
  const validation: string[] = [];
  const unresolved: string[] = [];
  const newRequests: InteractionRow[] = [];
  const problems: EventRow[] = [];
  let suppressed = 0;

  for (const e of events) {
    if (!SHOWN.has(e.kind) || (e.kind === "warning" && o.mode === "supervision") || (e.kind === "error" && e.data.will_retry === true)) suppressed++;
    switch (e.kind) {
      case "message":
        messages.push(String(e.data.text ?? ""));
        break;
      case "plan":
        delta.plan = (e.data.steps as { step: string; status: string }[]) ?? [];
        break;
      case "command": {
        const exit = typeof e.data.exit_code === "number" ? e.data.exit_code : null;
        const status = String(e.data.status ?? "completed");
        const view: CommandView = { id: e.item_id ?? "", command: String(e.data.command ?? ""), exit_code: exit, status };
        const failed = exit !== 0 || status !== "completed";
        if (failed && o.mode !== "supervision") {
          const item = e.item_id ? repo.item(taskId, e.item_id) : undefined;
          const out = typeof item?.data.output === "string" ? item.data.output.trimEnd() : "";
          if (out) view.output = boundText(out, FAILED_OUTPUT_CHARS).text;
        }
        commands.push(view);
        if (failed) {
          unresolved.push(commandLine(view));
          problems.push(e);
        }
        if (isValidationCommand(view.command)) validation.push(commandLine(view));
        break;
      }
      case "file_change":
        for (const c of (e.data.changes as { path: string; kind: string }[]) ?? []) changes.push(`${c.kind} ${relativeTo(projectRoot, c.path)}`);
        break;
      case "request": {
        const i = repo.interaction(String(e.data.request_id));
        if (i && i.state === "pending") newRequests.push(i);
        break;
      }
      case "turn_completed":
        delta.turn = { status: String(e.data.status) };
        if (e.data.error && !explained) delta.turn.error = String(e.data.error);
        if (e.data.status === "failed" && !explained) problems.push(e);
        break;
      case "error":
        if (e.data.will_retry !== true && !explained) {
          unresolved.push(`error: ${String(e.data.message)}`);
          problems.push(e);
        }
        break;
      case "unknown":
        problems.push(e); // said once below, from the open correlation, with what would settle it
        break;
      case "unknown_resolved":
        changes.push(resolvedLine(e.data));
        break;
      case "connection_lost":
        if (!explained) {
          unresolved.push(`connection lost: ${String(e.data.detail)}`);
          problems.push(e);
        }
        break;
      case "warning":
        if (o.mode !== "supervision") unresolved.push(`warning: ${String(e.data.message)}`);
        break;
    }
  }

  const openUnknown = unknownLine(t);
  if (openUnknown) unresolved.unshift(openUnknown);
  const pendingAll = repo.interactions(taskId, ["pending"]);
  const shown = new Set(newRequests.map((i) => i.id));
  const troubled = events.length ? repo.interactions(taskId, ["stale", "uncertain"]) : [];
  for (const i of troubled) unresolved.push(`${i.id} ${i.state === "stale" ? "went stale (the bridge restarted before it was answered)" : "answer delivery uncertain (never resent)"}`);

  const next: string[] = [];
  const person = personDecides(view.profile(t.profile_id).approvals);
  for (const i of pendingAll) {
    next.push(i.kind === "tool" ? `codex_submit_tool_result ${i.id}` : person ? `${i.id} awaits the person's decision on the task card or at the machine (do not answer it)` : `codex_respond ${i.id}`);
  }
  if (t.state === "completed" || t.state === "failed" || t.state === "interrupted") next.push("codex_result");
  else if (t.state === "connection_lost") next.push("codex_send to start a recovery turn, or codex_result for what was kept");
  else if (t.state === "unknown") next.push("codex_status; do not resend blindly");

  if (o.lost) {
    delta.cursor_lost = true;
    delta.reanchor = REANCHOR;
  }
  if ((o.explicit || o.mode === "raw" || o.lost) && (last !== o.from || o.lost)) delta.next_cursor = encodeCursor(taskId, to);
  if (events.length === page && repo.events(taskId, last, 1).length) delta.has_more = true;
  if (o.timedOut && active) Object.assign(delta, activity(repo, t));
  if (messages.length) delta.messages = messages;
  if (!active && t.failure) delta.failure = t.failure;
  const views = newRequests.map((i) => {
    const v = requestView(i);
    if (v.cwd && v.cwd === projectRoot) delete v.cwd;
    return v;
  });
  const approvals = views.filter((v) => v.kind !== "tool");
  const tools = views.filter((v) => v.kind === "tool");
  if (approvals.length) delta.requests = approvals;
  if (tools.length) delta.tool_requests = tools;

  // auto shows the raw evidence of a problem (and only of it); raw pages everything; supervision never.
  const abnormal = problems.length > 0 || troubled.length > 0 || t.state === "unknown" || o.lost;
  if (o.mode === "raw") delta.events = events.map(rawEvent);
  else if (o.mode === "auto" && abnormal) {
    const related = new Set(troubled.map((i) => i.id));
    const explainedKinds = new Set(explained ? ["error", "connection_lost"] : []);
    const picked = events.filter((e) => problems.includes(e) || (PROBLEM_KINDS.has(e.kind) && !explainedKinds.has(e.kind)) || (e.kind === "request" && related.has(String(e.data.request_id))));
    if (picked.length) delta.events = picked.slice(-EXPANDED_EVENTS_MAX).map(rawEvent);
  }

  const summary: DeltaSummary = {};
  const moreChanges = changes.length > CHANGES_MAX ? [`… ${changes.length - CHANGES_MAX} more (codex_inspect kind=file_changes)`] : [];
  put(summary, "changes", [...changes.slice(0, CHANGES_MAX), ...moreChanges]);
  put(summary, "commands", commands);
  put(summary, "validation", validation);
  put(summary, "pending", pendingAll.filter((i) => !shown.has(i.id)).map((i) => `${i.id} ${i.kind}`));
  put(summary, "unresolved", unresolved);
  put(summary, "next", next);
  if (Object.keys(summary).length) delta.delta_summary = summary;
  if (suppressed && o.mode !== "raw") delta.suppressed_events = suppressed;
  return { delta, to };
}

function rawEvent(e: EventRow): RawEvent {
  return { seq: e.seq, kind: e.kind, ...(e.item_id ? { item_id: e.item_id } : {}), data: e.data };
}
