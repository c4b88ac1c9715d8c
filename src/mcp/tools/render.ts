// Plain-text renderings for a language model reader: each fact once, no JSON echo, nothing empty.
import { failureText } from "../../views/evidence.ts";
import { activityLine } from "../../views/activity.ts";
import type { RequestView } from "../../views/request-view.ts";
import type { WaitAnswer } from "../../views/wait.ts";
import { commandLine, type CommandView, type TaskDelta } from "../../views/wait-delta.ts";
import type { TaskRow, TaskStatus } from "../../service/bridge.ts";

export function requestLine(r: RequestView & { schema?: unknown; mcp_tool?: unknown }): string {
  const parts = [`${r.request_id} ${r.kind}`];
  if (r.command) parts.push(`\`${r.command}\``);
  if (r.cwd) parts.push(`cwd ${r.cwd}`);
  if (r.tool) parts.push(`${String(r.tool.capability)} (${String(r.tool.operation)}): ${r.tool.request}`);
  if (r.message) parts.push(r.message);
  if (r.paths?.length) parts.push(`paths: ${r.paths.join(", ")}`);
  if (r.reason) parts.push(`reason: ${r.reason}`);
  if (r.questions?.length) {
    parts.push(r.questions.map((q) => `[${q.id}] ${q.question}${q.options?.length ? ` (${q.options.join("|")})` : ""}`).join(" "));
  }
  if (r.mcp_tool) parts.push(`MCP tool call: ${JSON.stringify(r.mcp_tool)}`);
  if (r.schema && JSON.stringify(r.schema) !== '{"type":"object","properties":{}}') parts.push(`form: ${JSON.stringify(r.schema)}`);
  if (r.decisions?.length) parts.push(`→ ${r.decisions.join("|")}`);
  return parts.join(" · ");
}

function commandText(c: CommandView): string {
  const failed = c.exit_code !== 0 || c.status !== "completed";
  return `$ ${commandLine(c)}${failed && c.id ? ` [${c.id}]` : ""}${c.output ? `\n  ${c.output.replace(/\n/g, "\n  ")}` : ""}`;
}

/** The first line of a task's part: its state, and on an answer without news what it is doing now. */
function taskHead(d: TaskDelta): string {
  let head = d.ran_s !== undefined ? activityLine(d.state, { ran_s: d.ran_s, command: d.command }) : d.state;
  if (d.turn && d.turn.status !== d.state) head += ` · turn ${d.turn.status}`;
  if (d.turn?.error) head += `: ${d.turn.error}`;
  if (d.cursor_lost) head += ` · cursor lost: ${d.reanchor}`;
  if (d.next_cursor) head += ` · next_cursor ${d.next_cursor}`;
  if (d.has_more) head += " · more to read: call again";
  return head;
}

function taskBody(d: TaskDelta): string[] {
  const lines: string[] = [];
  const s = d.delta_summary ?? {};
  if (d.failure) lines.push(failureText(d.failure));
  for (const m of d.messages ?? []) lines.push(`codex: ${m}`);
  if (d.plan) lines.push(`plan: ${d.plan.map((p) => `[${p.status}] ${p.step}`).join("; ")}`);
  for (const c of s.commands ?? []) lines.push(commandText(c));
  if (s.changes) lines.push(`changed: ${s.changes.join(", ")}`);
  for (const r of d.requests ?? []) lines.push(`request ${requestLine(r)}`);
  for (const r of d.tool_requests ?? []) lines.push(`tool request ${requestLine(r)}`);
  if (s.pending) lines.push(`still pending: ${s.pending.join(", ")}`);
  // A failed command is already on its own line above.
  const shown = new Set((s.commands ?? []).map(commandLine));
  const unresolved = (s.unresolved ?? []).filter((u) => !shown.has(u));
  if (unresolved.length) lines.push(`unresolved: ${unresolved.join("; ")}`);
  if (d.events?.length) lines.push(`evidence: ${d.events.map((e) => `#${e.seq} ${e.kind}${e.item_id ? ` ${e.item_id}` : ""} ${JSON.stringify(e.data)}`).join("\n  ")}`);
  if (s.next) lines.push(`next: ${s.next.join("; ")}`);
  return lines;
}

/** One task: its state line, then what happened. Several: each task's part opens with its id. */
export function renderWait(a: WaitAnswer): string {
  const text = waitText(a);
  return a.clamped ? `${text}\nnote: ${a.clamped}` : text;
}

function waitText(a: WaitAnswer): string {
  const alerts = alertLines(a.alerts);
  if (!a.multi) return [taskHead(a.tasks[0]!), ...alerts, ...taskBody(a.tasks[0]!)].join("\n");
  const quiet = quietTasks(a);
  if (quiet) return [`no news: ${Object.entries(quiet).map(([state, ids]) => `${ids.join(", ")} ${state}`).join("; ")}`, ...alerts].join("\n");
  return [...a.tasks.map((d) => [`${d.task_id} ${taskHead(d)}`, ...taskBody(d).map((l) => `  ${l}`)].join("\n")), ...alerts].join("\n");
}

/** A condition of the whole bridge, one line each: its code first, then what happened and what to do. */
export function alertLines(alerts: readonly { code: string; message: string }[] | undefined): string[] {
  return (alerts ?? []).map((a) => `bridge ${a.code}: ${a.message}`);
}

/** A wait over several tasks where none has news: only which tasks are in which state (progress notifications and
 * a single-task wait tell what one is doing). Undefined when some task has something to say. */
function quietTasks(a: WaitAnswer): Record<string, string[]> | undefined {
  const byState: Record<string, string[]> = {};
  for (const d of a.tasks) {
    const { task_id, state, ran_s: _r, command: _c, ...rest } = d;
    if (Object.keys(rest).length) return undefined;
    (byState[state] ??= []).push(task_id);
  }
  return byState;
}

/**
 * The typed half of a wait answer. Commands are `command → exit code` strings and their output stays in the text;
 * a single task's id is left out (the caller named it).
 */
export function waitStructured(a: WaitAnswer): Record<string, unknown> {
  const typed = waitTyped(a);
  return a.clamped ? { ...typed, note: a.clamped } : typed;
}

function waitTyped(a: WaitAnswer): Record<string, unknown> {
  const typed = (d: TaskDelta): Record<string, unknown> => {
    const { task_id, delta_summary, ...rest } = d;
    const summary = delta_summary?.commands ? { ...delta_summary, commands: delta_summary.commands.map(commandLine) } : delta_summary;
    return { ...(a.multi ? { task_id } : {}), ...rest, ...(summary ? { delta_summary: summary } : {}) };
  };
  const alerts = a.alerts ? { alerts: a.alerts } : {};
  if (!a.multi) return { ...typed(a.tasks[0]!), ...alerts };
  const quiet = quietTasks(a);
  // The text names the tasks; the typed half only counts them (the caller knows which it asked for).
  return { ...(quiet ? Object.fromEntries(Object.entries(quiet).map(([state, ids]) => [state, ids.length])) : { tasks: a.tasks.map(typed) }), ...alerts };
}

/** Threads adopted with thread_id (or started with the relay off) never had bridge_web_tool; Codex cannot add it later. */
export const NO_RELAY_NOTE = "no web-tool relay: this thread was started without bridge_web_tool and cannot gain it (codex_start a new task for the relay)";

export function taskLine(t: TaskRow): string {
  const bits = [`${t.id} ${t.state}`, `project ${t.project_id}`];
  if (t.thread_id) bits.push(`thread ${t.thread_id}`);
  if (t.turn_id) bits.push(`turn ${t.turn_id}`);
  if (!t.relay && t.thread_id) bits.push(NO_RELAY_NOTE);
  if (t.unknown) bits.push(`UNKNOWN: ${t.unknown.method}`);
  const line = bits.join(" · ");
  return t.failure ? `${line}\n${failureText(t.failure)}` : line;
}

/** The compact typed view of a task used in structuredContent. */
export function taskView(t: TaskRow): Record<string, unknown> {
  const v: Record<string, unknown> = { task_id: t.id, state: t.state, project_id: t.project_id };
  if (t.thread_id) v.thread_id = t.thread_id;
  if (t.turn_id) v.turn_id = t.turn_id;
  if (!t.relay && t.thread_id) v.relay = false;
  if (t.unknown) v.unknown = t.unknown;
  if (t.failure) v.failure = t.failure;
  return v;
}

/** Requested vs what Codex reported, one key at a time; a mismatch is marked so it cannot be missed. */
export function contextLine(ctx: Record<string, unknown>): string {
  const req = (ctx.requested ?? {}) as Record<string, unknown>;
  const nat = (ctx.native ?? {}) as Record<string, unknown>;
  const thread = Object.keys(req).map((k) => {
    const a = String(req[k]);
    const b = nat[k] === undefined ? "unverified" : String(nat[k]);
    const same = a === b || (k === "sandbox" && a.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()) === b) || a === "(default)";
    return same ? `${k}=${b}` : `${k}: asked ${a}, Codex says ${b}`;
  });
  const turn = ctx.turn as { turn_id?: string; asked?: Record<string, string>; reported?: Record<string, string> } | undefined;
  if (turn?.asked && turn.reported) {
    const asked = turn.asked;
    const reported = turn.reported;
    const keys = Object.keys(asked);
    const parts = keys.map((k) => (asked[k] === reported[k] || asked[k] === "(unchanged)" ? `${k}=${reported[k]}` : `${k} asked ${asked[k]}, Codex reports ${reported[k]}`));
    const silent = keys.every((k) => asked[k] === "(unchanged)" && reported[k] === "unknown");
    thread.push(`turn ${turn.turn_id}: ${silent ? "model, effort, service_tier unknown (Codex reported none)" : parts.join(", ")}`);
  }
  return thread.join("; ");
}

/** An open UNKNOWN in codex_status: what would settle it, and why the check just run did not. */
export function unknownText(u: NonNullable<TaskStatus["unknown"]>): string {
  return `UNKNOWN ${u.method} (request ${String(u.request)}${u.turn_id ? `, turn ${u.turn_id}` : ""}) is never resent; settles on: ${u.resolves_on.join("; ")}${u.checked ? `\nchecked now: ${u.checked}` : ""}`;
}
