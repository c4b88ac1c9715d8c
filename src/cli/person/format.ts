// How the person commands print what the bridge answers: a table of tasks, every pending request in full, one line per
// watched event. Plain text a terminal and a script can both read; --json prints the bridge's answer as it came.
import type { PendingRequest, TaskLine } from "../../service/person.ts";
import type { WatchLineMessage } from "../../control/protocol.ts";

export function ageText(s: number): string {
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
  return `${Math.floor(s / 86_400)}d`;
}

export function taskTable(rows: TaskLine[], all: boolean): string {
  if (rows.length === 0) return all ? "No tasks yet." : "No live tasks, and none ended in the last hour (codex-bridge tasks --all lists every task).";
  const head = ["TASK", "PROJECT", "STATE", "AGE", "NOW"];
  const body = rows.map((r) => [r.task_id, r.project_id, r.state, ageText(r.age_s), r.doing]);
  const widths = head.map((h, c) => Math.max(h.length, ...body.map((r) => r[c]!.length)));
  const fmt = (r: string[]) => r.map((v, c) => (c === r.length - 1 ? v : v.padEnd(widths[c]!))).join("  ");
  return [fmt(head), ...body.map(fmt)].join("\n");
}

const field = (name: string, value: string | undefined) => (value ? [`  ${`${name}:`.padEnd(11)}${value}`] : []);

export function pendingText(list: PendingRequest[]): string {
  if (list.length === 0) return "Nothing awaits a decision.";
  const out: string[] = [];
  for (const r of list) {
    out.push(`${r.request_id}  ${r.kind}  task ${r.task_id}  project ${r.project_id}  approvals = ${r.approvals}  asked ${r.asked_at}`);
    out.push(...field("command", r.command), ...field("directory", r.cwd), ...field("reason", r.reason), ...field("message", r.message));
    if (r.paths?.length) out.push(...field("paths", r.paths.join(", ")));
    for (const q of r.questions ?? []) out.push(...field(`question ${q.id}`, `${q.question}${q.options?.length ? ` [${q.options.join(" | ")}]` : ""}`));
    if (r.tool) out.push(...field("web tool", `${String(r.tool.capability)}: ${r.tool.request}`));
    if (r.decisions?.length) out.push(...field("decisions", r.decisions.join(", ")));
    out.push(...field("answer", answerHint(r)));
    out.push("");
  }
  return out.join("\n").trimEnd();
}

function answerHint(r: PendingRequest): string {
  if (r.kind === "tool") return "the supervisor answers it (codex_submit_tool_result)";
  if (r.approvals === "supervisor") return `the supervisor answers it (approvals = "supervisor")`;
  if (r.kind === "userInput") return `codex-bridge answer ${r.request_id} TEXT  (or --answer ID=TEXT per question; decline ${r.request_id})`;
  const session = r.decisions?.some((d) => d === "acceptForSession") ? " [--for-session]" : "";
  return `codex-bridge approve ${r.request_id}${session}  |  codex-bridge decline ${r.request_id}`;
}

/** `22:41:07 t_0123456789  $ npm test  -> exit 0` in the local time of this terminal. */
export function watchLine(l: WatchLineMessage): string {
  const d = new Date(l.at);
  const hms = Number.isNaN(d.getTime()) ? l.at : [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
  return `${hms} ${l.task_id}  ${l.text}`;
}
