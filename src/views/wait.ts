// codex_wait: the bounded long-poll and the delta it answers with (messages, commands, requests, delta_summary).
import { isAbsolute, relative } from "node:path";
import { BridgeError } from "../bridge-error.ts";
import { boundText } from "../tasks/bounded-output.ts";
import type { EventRow, Failure, InteractionRow, TaskRow } from "../store/rows.ts";
import { SETTLED_STATES } from "../store/rows.ts";
import { offeredDecisions } from "../policy/decisions.ts";
import { personDecides } from "../policy/answerer.ts";
import type { Supervisor } from "../tasks/supervisor.ts";

export type WaitMode = "auto" | "supervision" | "raw";

// Command output shown inline in a wait: enough to judge the command, the rest behind codex_inspect.
const WAIT_OUTPUT_CHARS = 240;
const WAIT_OUTPUT_OK_CHARS = 160;
const MAX_EVENTS_PER_WAIT = 400;
const RAW_PAGE = 100;
const SUMMARY_MAX = 8;
const VALIDATION_RE = /\b(test|tests|pytest|jest|vitest|mocha|cargo (test|check|clippy)|go (test|vet)|tsc|lint|eslint|ruff|mypy|make check|npm run (build|check|lint|test)|build)\b/i;

export interface CommandView {
  id: string;
  command: string;
  exit_code: number | null;
  status: string;
  output?: string;
}

export interface RequestView {
  request_id: string;
  kind: string;
  command?: string;
  cwd?: string;
  reason?: string;
  decisions?: string[];
  questions?: { id: string; question: string; options?: string[] }[];
  message?: string;
  tool?: { capability: unknown; operation: unknown; request: string; context?: unknown };
  paths?: string[];
}

export interface DeltaSummary {
  changes: string[];
  commands: CommandView[];
  validation: string[];
  pending: string[];
  unresolved: string[];
  next: string[];
}

export interface WaitAnswer {
  task_id: string;
  state: TaskRow["state"];
  next_cursor: string;
  /** Present (true) when the wait ended on its timeout with nothing new worth reporting. */
  timed_out?: boolean;
  messages?: string[];
  plan?: { step: string; status: string }[];
  /** Requests first seen in this delta, in full; older ones are only listed in delta_summary.pending. */
  requests?: RequestView[];
  tool_requests?: RequestView[];
  turn?: { status: string; error?: string };
  /** Why the task failed, was interrupted or was lost: present once it is settled that way. */
  failure?: Failure;
  events?: { seq: number; kind: string; item_id?: string; data: Record<string, unknown> }[];
  delta_summary: DeltaSummary;
}

export function encodeCursor(taskId: string, seq: number): string {
  return `${taskId}:${seq}`;
}

export function decodeCursor(cursor: string, taskId: string): number {
  const m = /^(t_[0-9a-f]+):(\d+)$/.exec(cursor);
  if (!m) throw new BridgeError(`cursor "${cursor}" is malformed; pass the next_cursor of an earlier codex_wait unchanged, or omit it`, "cursor");
  if (m[1] !== taskId) throw new BridgeError(`cursor "${cursor}" belongs to task ${m[1]}, not ${taskId}; omit it or use this task's next_cursor`, "cursor");
  return Number(m[2]);
}

const SUPERVISION_WAKE = new Set(["message", "plan", "request", "turn_completed", "connection_lost", "unknown"]);

function wakes(e: EventRow, mode: WaitMode): boolean {
  if (mode === "raw") return e.kind !== "notice";
  if (SUPERVISION_WAKE.has(e.kind)) return true;
  if (e.kind === "error") return e.data.will_retry !== true;
  if (mode === "auto" && e.kind === "command") return e.data.exit_code !== 0 || e.data.status !== "completed";
  return false;
}

export interface WaitContext {
  connectionKey: string;
  onProgress?: (elapsedMs: number, totalMs: number) => void;
  signal?: AbortSignal;
  /** Defers moving the automatic cursor until the answer was really delivered; without it the cursor moves at once. */
  commitWhenDelivered?: (commit: () => void) => void;
}

export interface WaitInput {
  task_id: string;
  cursor?: string;
  timeout_seconds?: number;
  mode?: WaitMode;
}

/**
 * Bounded long-poll. Returns as soon as something a supervisor must read arrives (or at once when the task is
 * settled or has requests waiting), else after the timeout with "still running".
 */
export async function waitForTask(
  sup: Supervisor,
  input: WaitInput,
  ctx: WaitContext,
): Promise<WaitAnswer> {
  const task = sup.task(input.task_id);
  const mode = input.mode ?? "auto";
  const profile = sup.profile(task.profile_id);
  const timeoutS = Math.min(input.timeout_seconds ?? profile.wait_timeout_seconds, sup.settings.maxWaitSeconds);
  const from = input.cursor !== undefined ? decodeCursor(input.cursor, task.id) : sup.repo.cursor(ctx.connectionKey, task.id) ?? 0;
  const deadline = Date.now() + timeoutS * 1000;
  const started = Date.now();

  let timedOut = false;
  for (;;) {
    sup.sync(task.id);
    const t = sup.repo.task(task.id)!;
    const events = sup.repo.events(task.id, from, MAX_EVENTS_PER_WAIT);
    // A request left to the person was reported once (its event woke a wait); it does not keep every wait short.
    const hasPending = sup.repo.interactions(task.id, ["pending"]).some((i) => i.kind === "tool" || !personDecides(profile.approvals));
    if (events.some((e) => wakes(e, mode)) || SETTLED_STATES.has(t.state) || hasPending || events.length >= MAX_EVENTS_PER_WAIT) break;
    const left = deadline - Date.now();
    if (left <= 0 || ctx.signal?.aborted) {
      timedOut = true;
      break;
    }
    await new Promise<void>((resolve) => {
      const step = Math.min(left, 5000);
      const timer = setTimeout(done, step);
      const off = sup.addWaiter(task.id, done);
      function done() {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
    ctx.onProgress?.(Date.now() - started, timeoutS * 1000);
  }

  sup.sync(task.id);
  const answer = buildAnswer(sup, task.id, from, mode, timedOut);
  if (input.cursor === undefined) {
    const commit = () => sup.repo.setCursor(ctx.connectionKey, task.id, seqOf(answer.next_cursor));
    if (ctx.commitWhenDelivered) ctx.commitWhenDelivered(commit);
    else commit();
  }
  return answer;
}

function seqOf(cursor: string): number {
  return Number(cursor.slice(cursor.lastIndexOf(":") + 1));
}

export function buildAnswer(sup: Supervisor, taskId: string, from: number, mode: WaitMode, timedOut: boolean): WaitAnswer {
  const t = sup.repo.task(taskId)!;
  const projectRoot = sup.settings.projects[t.project_id]?.cwd;
  // A classified failure says what Codex's error text and the lost connection's detail would say again.
  const explained = SETTLED_STATES.has(t.state) && t.failure !== null && t.failure.code !== "unknown";
  // Raw mode pages: the cursor stops at the last event returned, so nothing is skipped.
  const events = sup.repo.events(taskId, from, mode === "raw" ? RAW_PAGE : MAX_EVENTS_PER_WAIT);
  const last = events.length ? events[events.length - 1]!.seq : from;
  const messages: string[] = [];
  let plan: WaitAnswer["plan"];
  const commands: CommandView[] = [];
  const changes: string[] = [];
  const validation: string[] = [];
  const unresolved: string[] = [];
  const newRequests: InteractionRow[] = [];
  let turn: WaitAnswer["turn"];
  const started = new Map<string, string>();
  let abnormal = false;

  for (const e of events) {
    switch (e.kind) {
      case "message":
        messages.push(String(e.data.text ?? ""));
        break;
      case "plan":
        plan = (e.data.steps as { step: string; status: string }[]) ?? [];
        break;
      case "command_started":
        if (e.item_id) started.set(e.item_id, String(e.data.command ?? ""));
        break;
      case "command": {
        if (e.item_id) started.delete(e.item_id);
        const item = e.item_id ? sup.repo.item(taskId, e.item_id) : undefined;
        const out = typeof item?.data.output === "string" ? item.data.output : "";
        const exit = typeof e.data.exit_code === "number" ? e.data.exit_code : null;
        const status = String(e.data.status ?? "completed");
        const view: CommandView = { id: e.item_id ?? "", command: String(e.data.command ?? ""), exit_code: exit, status };
        const trimmed = out.trimEnd();
        if (trimmed) view.output = boundText(trimmed, exit === 0 && status === "completed" ? WAIT_OUTPUT_OK_CHARS : WAIT_OUTPUT_CHARS).text;
        commands.push(view);
        if (exit !== 0 || status !== "completed") abnormal = true;
        if (VALIDATION_RE.test(view.command)) validation.push(`${view.command} → ${status === "completed" && exit === 0 ? "passed" : `failed (exit ${exit ?? status})`}`);
        break;
      }
      case "file_change":
        for (const c of (e.data.changes as { path: string; kind: string }[]) ?? []) changes.push(`${c.kind} ${relativeTo(projectRoot, c.path)}`);
        break;
      case "request": {
        const i = sup.repo.interaction(String(e.data.request_id));
        if (i && i.state === "pending") newRequests.push(i);
        break;
      }
      case "turn_completed":
        turn = { status: String(e.data.status) };
        if (e.data.error && !explained) turn.error = String(e.data.error);
        break;
      case "error":
        if (e.data.will_retry !== true && !explained) {
          unresolved.push(`error: ${String(e.data.message)}`);
          abnormal = true;
        }
        break;
      case "unknown":
        unresolved.push(`${String(e.data.method)} outcome UNKNOWN (may have been accepted; not retried)`);
        abnormal = true;
        break;
      case "connection_lost":
        if (!explained) unresolved.push(`connection lost: ${String(e.data.detail)}`);
        abnormal = true;
        break;
      case "warning":
        if (mode !== "supervision") unresolved.push(`warning: ${String(e.data.message)}`);
        break;
    }
  }
  const pendingAll = sup.repo.interactions(taskId, ["pending"]);
  const awaitingApproval = new Set(pendingAll.map((i) => i.item_id));
  // A command waiting for approval is already shown as the request; listing it as running too would say it twice.
  // Still-running commands matter when nothing else happened; in an answer woken by news they are noise that the
  // next answer reports finished anyway.
  if (timedOut) for (const [id, cmd] of started) if (!awaitingApproval.has(id)) unresolved.push(`running: ${cmd} (${id})`);
  for (const c of commands) if (c.status !== "completed" || c.exit_code !== 0) unresolved.push(`${c.command} → ${c.exit_code ?? c.status}`);
  for (const i of sup.repo.interactions(taskId, ["uncertain"])) unresolved.push(`${i.id} answer delivery uncertain (never resent)`);

  const pending = pendingAll.map((i) => `${i.id} ${i.kind}`);
  const cursor = encodeCursor(taskId, last);
  const next: string[] = [];
  const person = personDecides(sup.profile(t.profile_id).approvals);
  for (const i of pendingAll) {
    next.push(i.kind === "tool" ? `codex_submit_tool_result ${i.id}` : person ? `${i.id} awaits the person's decision on the task card (do not answer it)` : `codex_respond ${i.id}`);
  }
  if (t.state === "completed" || t.state === "failed" || t.state === "interrupted") next.push("codex_result");
  else if (t.state === "connection_lost") next.push("codex_send to start a recovery turn, or codex_result for what was kept");
  else if (t.state === "unknown") next.push("codex_status; do not resend blindly");
  else next.push("codex_wait");

  const views = newRequests.map((i) => {
    const v = requestView(i);
    if (v.cwd && v.cwd === projectRoot) delete v.cwd;
    return v;
  });
  const answer: WaitAnswer = {
    task_id: taskId,
    state: t.state,
    next_cursor: cursor,
    delta_summary: {
      changes: changes.slice(0, SUMMARY_MAX),
      commands: commands.slice(-SUMMARY_MAX),
      validation: validation.slice(0, SUMMARY_MAX),
      pending: pending.slice(0, SUMMARY_MAX),
      unresolved: unresolved.slice(0, SUMMARY_MAX),
      next: next.slice(0, SUMMARY_MAX),
    },
  };
  if (timedOut && events.every((e) => !wakes(e, mode))) answer.timed_out = true;
  if (messages.length) answer.messages = messages;
  if (plan) answer.plan = plan;
  const approvals = views.filter((v) => v.kind !== "tool");
  const tools = views.filter((v) => v.kind === "tool");
  if (approvals.length) answer.requests = approvals;
  if (tools.length) answer.tool_requests = tools;
  if (turn) answer.turn = turn;
  if (SETTLED_STATES.has(t.state) && t.failure) answer.failure = t.failure;
  if (mode === "raw" || (mode === "auto" && abnormal)) {
    const evidenceKinds = explained ? ["warning", "command", "unknown"] : ["error", "warning", "command", "unknown", "connection_lost"];
    const raw = mode === "raw" ? events : events.filter((e) => evidenceKinds.includes(e.kind)).slice(-20);
    answer.events = raw.map((e) => ({ seq: e.seq, kind: e.kind, ...(e.item_id ? { item_id: e.item_id } : {}), data: e.data }));
  }
  return answer;
}

/** Paths inside the project are shown relative to it; anything else stays absolute, so it stands out. */
function relativeTo(root: string | undefined, path: string): string {
  if (!root) return path;
  const r = relative(root, path);
  return r && !r.startsWith("..") && !isAbsolute(r) ? r : path;
}

export function requestView(i: InteractionRow): RequestView {
  const p = i.params;
  const v: RequestView = { request_id: i.id, kind: i.kind };
  const str = (x: unknown) => (typeof x === "string" && x ? x : undefined);
  switch (i.kind) {
    case "command": {
      const actions = Array.isArray(p.commandActions) ? (p.commandActions as Record<string, unknown>[]) : [];
      const raw = actions.length === 1 ? str(actions[0]!.command) : undefined;
      v.command = raw ?? str(p.command);
      v.cwd = str(p.cwd);
      v.reason = str(p.reason);
      v.decisions = offeredDecisions(p);
      break;
    }
    case "fileChange":
      v.reason = str(p.reason);
      if (str(p.grantRoot)) v.paths = [String(p.grantRoot)];
      v.decisions = ["accept", "acceptForSession", "decline", "cancel"];
      break;
    case "permissions": {
      v.reason = str(p.reason);
      const fsPerm = ((p.permissions as Record<string, unknown> | undefined)?.fileSystem ?? {}) as Record<string, unknown>;
      v.paths = [...(Array.isArray(fsPerm.read) ? fsPerm.read : []), ...(Array.isArray(fsPerm.write) ? fsPerm.write : [])].map(String);
      v.decisions = ["accept", "decline"];
      break;
    }
    case "userInput":
      v.questions = (Array.isArray(p.questions) ? (p.questions as Record<string, unknown>[]) : []).map((q) => ({
        id: String(q.id),
        question: String(q.question ?? q.header ?? ""),
        ...(Array.isArray(q.options) ? { options: (q.options as Record<string, unknown>[]).map((o) => String(o.label ?? o.value ?? "")) } : {}),
      }));
      v.decisions = ["answer", "decline", "cancel"];
      break;
    case "elicitation":
      v.message = str(p.message) ?? str(p.description);
      v.decisions = ["accept", "decline", "cancel"];
      break;
    case "tool": {
      const a = (p.arguments ?? {}) as Record<string, unknown>;
      v.tool = { capability: a.capability, operation: a.operation, request: String(a.request ?? "") };
      if (a.context !== undefined) v.tool.context = a.context;
      break;
    }
    default:
      v.message = `unsupported request ${i.method}`;
      v.decisions = ["decline", "cancel"];
  }
  return v;
}
