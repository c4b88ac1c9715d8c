// Every plain-text rendering a tool result carries, for a language model reader: each fact once, no JSON echo, nothing
// empty. The sentences the views also put into structured fields (a failure, a command, an activity) come from them.
import {
  activityLine,
  commandLine,
  failureText,
  HOST_REPORT_NOTE,
  type CheckpointAnswer,
  type CommandView,
  type GitChecks,
  type HealthReport,
  type ModelPage,
  type RequestView,
  type RuntimeStatus,
  type TaskDelta,
  type TaskResult,
  type TaskRow,
  type TaskStatus,
  type ThreadsAnswer,
  type WaitAnswer,
} from "../../service/bridge.ts";

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

function more(n: number | undefined): string {
  return n ? ` (+${n} more)` : "";
}

function renderGit(g: GitChecks): string {
  if (g.error && !g.head && g.status_count === 0) return `Git: ${g.error}`;
  const parts: string[] = [];
  parts.push(g.head ? `HEAD ${g.head.slice(0, 12)}${g.branch ? ` on ${g.branch}` : " (detached)"}` : `no commits${g.branch ? ` on ${g.branch}` : ""}`);
  if (g.status_count === 0) parts.push("working tree clean");
  else parts.push(`${g.status_count} changed: ${g.status.join(", ")}${more(g.status_count - g.status.length)}`);
  if (g.diff_stat) parts.push(g.diff_stat);
  if (g.error) parts.push(`error: ${g.error}`);
  return `Git: ${parts.join("; ")}`;
}

/** Plain text for a model reader: the final message first, then one line per evidence group. */
export function renderResultText(r: TaskResult): string {
  const lines: string[] = [];
  if (r.final_message) lines.push(r.final_message, "");
  lines.push(`Task ${r.task_id} ${r.state}${r.turn_status ? ` (last turn ${r.turn_status})` : ""}${r.final_message ? "" : "; no final message"}.`);
  if (r.failure) lines.push(failureText(r.failure));
  if (r.unknown) lines.push(`Outcome unknown: ${r.unknown.method} was not acknowledged (${r.unknown.detail}); it may have been accepted.`);
  const e = r.evidence ?? {};
  if (e.commands || e.commands_omitted) {
    const list = (e.commands ?? []).map((c) => `\`${c.command}\` → ${c.exit_code !== undefined ? `exit ${c.exit_code}` : "no exit code"}${c.status === "completed" ? "" : ` (${c.status})`}`);
    const total = (e.commands?.length ?? 0) + (e.commands_omitted ?? 0);
    if (e.commands_exit_0 === undefined) lines.push(`Commands (${total}): ${list.join("; ")}${more(e.commands_omitted)}`);
    else {
      const rest = e.commands_omitted ? `${list.length ? `; +${e.commands_omitted} more` : ""}; codex_inspect kind=commands lists all` : "";
      lines.push(`Commands (${total}, ${e.commands_exit_0} exit 0)${list.length ? `: ${list.join("; ")}` : ""}${rest}`);
    }
  }
  if (e.file_changes) {
    const list = e.file_changes.map((f) => `${f.path} (${f.kind}${f.status === "completed" ? "" : `, ${f.status}`})`);
    lines.push(`File changes (${e.file_changes.length + (e.file_changes_omitted ?? 0)}): ${list.join(", ")}${more(e.file_changes_omitted)}`);
  }
  if (e.mcp_calls) {
    const list = e.mcp_calls.map((m) => `${m.server}/${m.tool} ${m.status}${m.error ? `: ${m.error}` : ""}`);
    lines.push(`MCP calls (${e.mcp_calls.length + (e.mcp_calls_omitted ?? 0)}): ${list.join("; ")}${more(e.mcp_calls_omitted)}`);
  }
  if (e.host_reports) {
    const list = e.host_reports.items.map((h) => `${h.request_id} ${h.capability}: ${h.status ?? "nothing submitted"}, ${h.state}`);
    lines.push(`Host reports (${HOST_REPORT_NOTE}): ${list.join("; ")}${more(e.host_reports.omitted)}`);
  }
  if (e.diff) lines.push(`Diff: ${e.diff.files} file(s), +${e.diff.insertions} -${e.diff.deletions} (codex_inspect kind=diff for the text)`);
  if (e.git) lines.push(renderGit(e.git));
  if (e.warnings) lines.push(`Warnings/errors: ${e.warnings} (codex_inspect kind=warnings)`);
  return lines.join("\n");
}

export function renderHealth(h: HealthReport): string {
  const lines = [`${h.healthy ? "healthy" : "UNHEALTHY"} · codex-bridge ${h.bridge.version} (${h.bridge.fingerprint.slice(0, 12)}) pid ${h.bridge.pid} up ${h.bridge.uptime_s}s`];
  for (const c of h.checks) lines.push(`${c.ok ? "ok " : "ERR"} ${c.name}: ${c.detail}`);
  for (const p of h.profiles ?? []) {
    const server = p.server ? ` · shared app-server ${p.server.socket} pid ${p.server.pid ?? "?"} (${p.server.started_by === "bridge" ? "started by the bridge" : "already running"})` : p.runtime === "shared" ? " · shared app-server" : "";
    lines.push(`profile ${p.id}: home ${p.codex_home}${p.isolated ? " (its own)" : ""}${server} · login ${p.login} · ${p.models ?? "?"} live models`);
  }
  if (h.codex.relay_disabled) lines.push(`relay disabled: ${h.codex.relay_disabled}`);
  const f = h.last_failure;
  if (f) lines.push(`last failure: ${f.task_id} at ${f.at}: ${failureText(f)}`);
  return lines.join("\n");
}

export function modelsText({ models, next_cursor }: ModelPage): string {
  const text = models.map((m) => `${m.model}${m.default ? " (default)" : ""}: ${m.efforts.join("/")}`).join("\n") + (next_cursor ? `\nnext_cursor ${next_cursor}` : "");
  return text || "no models";
}

const moreThreads = (cursor: string | null | undefined) => (cursor ? `\nnext_cursor ${cursor}` : "");

export function threadsText(r: ThreadsAnswer & { action: "list" }): string {
  const text = r.threads.map((t) => `${t.thread_id}${t.task_id ? ` (${t.task_id})` : ""} ${String(t.cwd ?? "")}: ${t.preview}`).join("\n");
  return (text || "no threads") + moreThreads(r.next_cursor) + (r.note ? `\n${r.note}` : "");
}

export function threadText(r: ThreadsAnswer & { action: "read" }): string {
  const turns = r.turns.map((t) => `${t.turn_id} ${String(t.status)}${t.error ? `: ${t.error}` : ""}`).join("\n");
  return `thread ${r.thread_id} ${r.status}\n${turns || "no turns"}${moreThreads(r.next_cursor)}`;
}

export function checkpointText(r: CheckpointAnswer): string {
  const of = r.anchor.task_id ?? r.anchor.thread_id;
  if (r.saved) return `checkpoint of ${of} saved`;
  const text = Object.entries(r.checkpoint).map(([k, v]) => `${k}: ${String(v)}`).join("\n");
  return text || `no checkpoint of ${of} yet`;
}

export function runtimeText(v: RuntimeStatus): string {
  return `app-server ${v.state} pid ${v.pid ?? "-"} · generation ${v.generation} · restarts ${v.restarts} · active ${v.active} · pending ${v.pending} · unknown ${v.unknown} · in flight ${v.in_flight}`;
}

export function startedText(t: TaskRow): string {
  const unknown = t.unknown ? ` · UNKNOWN: ${t.unknown.method}` : "";
  const failed = t.failure ? `\n${failureText(t.failure)}` : "";
  const noRelay = !t.relay && t.thread_id ? `\n${NO_RELAY_NOTE}` : "";
  return `${t.id} ${t.state} · project ${t.project_id}${unknown}${failed}${noRelay}\nnext: ${t.failure ? "codex_status" : `codex_wait ${t.id}`}`;
}

export function statusText({ task, pending, context, unknown }: TaskStatus): string {
  const lines = [taskLine(task)];
  if (unknown) lines.push(unknownText(unknown));
  for (const r of pending) lines.push(`pending ${requestLine(r)}`);
  if (context) lines.push(`context: ${contextLine(context)}`);
  return lines.join("\n");
}

export function recentText(tasks: TaskRow[]): string {
  return tasks.length ? tasks.map(taskLine).join("\n") : "no tasks yet; start one with codex_start";
}

export function sentText(r: { action: string; task: TaskRow }): string {
  return `${r.action}: ${taskLine(r.task)}\nnext: codex_wait`;
}

const repeatNote = (repeated: boolean) => (repeated ? " (identical repeat; nothing resent)" : "");

/** The card's one line: the task's state and what it does now, or that nothing changed since the card's version. */
export function cardText(taskId: string, c: { state: string; doing: string } | null): string {
  return c ? `${taskId} ${c.state}: ${c.doing}` : `${taskId} unchanged`;
}

/** An answer taken: the model is told to wait next; the card (the person) needs no next step. */
export function answeredText(r: { interaction: { id: string; state: string }; repeated: boolean }, action: string, by: "supervisor" | "person" = "supervisor"): string {
  if (by === "person") return `${r.interaction.id} ${action} by the person: ${r.interaction.state}${repeatNote(r.repeated)}`;
  return `${r.interaction.id} ${action}: ${r.interaction.state}${repeatNote(r.repeated)}\nnext: codex_wait`;
}

export function toolResultText(r: { interaction: { id: string; state: string }; repeated: boolean; bytes: number }, status: string): string {
  return `${r.interaction.id} ${status}: ${r.interaction.state} (${r.bytes} bytes)${repeatNote(r.repeated)}\nnext: codex_wait`;
}

export function notReadyText(t: TaskRow, hint: string): string {
  return `${t.id} is ${t.state}: no result yet (${hint})${t.failure ? `\n${failureText(t.failure)}` : ""}`;
}

export function inspectText(kind: string, taskId: string, page: { items: unknown[]; next_offset?: number }): string {
  const text = page.items.map((i) => (typeof i === "string" ? i : JSON.stringify(i))).join("\n");
  return `${kind} ${taskId}${page.next_offset !== undefined ? ` · next_offset ${page.next_offset}` : ""}\n${text}`;
}

export function cancelledText(r: { task: TaskRow; note: string; terminated?: number }): string {
  return `${taskLine(r.task)}\n${r.note}${r.terminated ? `; stopped ${r.terminated} background command(s)` : ""}`;
}
