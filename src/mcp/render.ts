// Plain-text renderings for a language model reader: each fact once, no JSON echo, nothing empty.
import { failureText } from "../views/evidence.ts";
import type { RequestView, WaitAnswer } from "../views/wait.ts";
import type { TaskRow } from "../service/bridge-service.ts";

function requestLine(r: RequestView): string {
  const parts = [`${r.request_id} ${r.kind}`];
  if (r.command) parts.push(`\`${r.command}\``);
  if (r.tool) parts.push(`${String(r.tool.capability)} (${String(r.tool.operation)}): ${r.tool.request}`);
  if (r.message) parts.push(r.message);
  if (r.paths?.length) parts.push(`paths: ${r.paths.join(", ")}`);
  if (r.reason) parts.push(`reason: ${r.reason}`);
  if (r.questions?.length) {
    parts.push(r.questions.map((q) => `[${q.id}] ${q.question}${q.options?.length ? ` (${q.options.join("|")})` : ""}`).join(" "));
  }
  if (r.decisions?.length) parts.push(`→ ${r.decisions.join("|")}`);
  return parts.join(" · ");
}

export function renderWait(a: WaitAnswer): string {
  const lines: string[] = [];
  const head = a.turn ? `turn ${a.turn.status}${a.turn.error ? `: ${a.turn.error}` : ""}` : a.timed_out ? "still running, call again" : a.state;
  lines.push(`${a.task_id} ${a.state}${head !== a.state ? ` · ${head}` : ""} · cursor ${a.next_cursor}`);
  if (a.failure) lines.push(failureText(a.failure));
  for (const m of a.messages ?? []) lines.push(`codex: ${m}`);
  if (a.plan) lines.push(`plan: ${a.plan.map((s) => `[${s.status}] ${s.step}`).join("; ")}`);
  for (const c of a.delta_summary.commands) {
    lines.push(`$ ${c.command} → ${c.exit_code ?? c.status}${c.output ? `\n  ${c.output.replace(/\n/g, "\n  ")}` : ""}`);
  }
  if (a.delta_summary.changes.length) lines.push(`changed: ${a.delta_summary.changes.join(", ")}`);
  if (a.delta_summary.validation.length) lines.push(`validation: ${a.delta_summary.validation.join("; ")}`);
  for (const r of a.requests ?? []) lines.push(`request ${requestLine(r)}`);
  for (const r of a.tool_requests ?? []) lines.push(`tool request ${requestLine(r)}`);
  const newIds = new Set([...(a.requests ?? []), ...(a.tool_requests ?? [])].map((r) => r.request_id));
  const older = a.delta_summary.pending.filter((p) => !newIds.has(p.split(" ")[0]!));
  if (older.length) lines.push(`still pending: ${older.join(", ")}`);
  if (a.delta_summary.unresolved.length) lines.push(`unresolved: ${a.delta_summary.unresolved.join("; ")}`);
  if (a.events?.length) lines.push(`evidence: ${a.events.map((e) => `#${e.seq} ${e.kind} ${JSON.stringify(e.data)}`).join("\n  ")}`);
  lines.push(`next: ${a.delta_summary.next.join("; ")}`);
  return lines.join("\n");
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
  return Object.keys(req)
    .map((k) => {
      const a = String(req[k]);
      const b = nat[k] === undefined ? "unverified" : String(nat[k]);
      const same = a === b || (k === "sandbox" && a.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()) === b) || a === "(default)";
      return same ? `${k}=${b}` : `${k}: asked ${a}, Codex says ${b}`;
    })
    .join("; ");
}
