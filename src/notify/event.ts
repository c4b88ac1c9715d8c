// The one JSON event every notifier gets. Content-free unless include_text: ids, project, state, request kind and a
// title and message made only of those (so a phone's lock screen shows nothing of the work). With include_text, the
// command, directory, reason, prompt and answer are added, redacted and cut short. Redacted always, whatever it holds.
import { redactValue } from "../policy/redact.ts";
import type { TaskNotice } from "../service/person.ts";

const TEXT_CHARS = 500;

export type NotifyEventName = "request_pending" | "task_ended" | "bridge_stopping";

export interface NotifyEvent {
  v: 1;
  event: NotifyEventName;
  at: string;
  title: string;
  message: string;
  task_id?: string;
  project_id?: string;
  state?: string;
  request_id?: string;
  request_kind?: string;
  failure_code?: string;
  live_tasks?: string[];
  pending_requests?: number;
  /** Notifications the rate limit held back since the last one delivered. */
  dropped?: number;
  /** Set from [notify] topic: how ntfy's JSON publishing picks the topic. */
  topic?: string;
  text?: Record<string, string>;
}

const cut = (s: string) => (s.length <= TEXT_CHARS ? s : `${s.slice(0, TEXT_CHARS - 1)}…`);

function texts(fields: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) if (v) out[k] = cut(v);
  return out;
}

export function requestEvent(n: TaskNotice, r: TaskNotice["awaiting"][number], withText: boolean): NotifyEvent {
  return redactValue({
    v: 1,
    event: "request_pending",
    at: new Date().toISOString(),
    title: `codex-bridge: ${n.task_id} awaits a decision`,
    message: `${r.kind} request ${r.request_id} in project ${n.project_id}; codex-bridge pending shows it`,
    task_id: n.task_id,
    project_id: n.project_id,
    state: n.state,
    request_id: r.request_id,
    request_kind: r.kind,
    ...(withText ? { text: texts({ command: r.command, cwd: r.cwd, reason: r.reason }) } : {}),
  }) as NotifyEvent;
}

export function endEvent(n: TaskNotice, withText: boolean): NotifyEvent {
  const how = n.state === "connection_lost" ? "was lost" : n.state;
  return redactValue({
    v: 1,
    event: "task_ended",
    at: new Date().toISOString(),
    title: `codex-bridge: ${n.task_id} ${how}`,
    message: `task ${n.task_id} in project ${n.project_id} ${how}${n.failure_code ? ` (${n.failure_code})` : ""}`,
    task_id: n.task_id,
    project_id: n.project_id,
    state: n.state,
    ...(n.failure_code ? { failure_code: n.failure_code } : {}),
    ...(withText ? { text: texts({ prompt: n.prompt, answer: n.final_message, failure: n.failure }) } : {}),
  }) as NotifyEvent;
}

export function stoppingEvent(live: { tasks: string[]; pending: number }): NotifyEvent {
  return {
    v: 1,
    event: "bridge_stopping",
    at: new Date().toISOString(),
    title: "codex-bridge is stopping with work live",
    message: `${live.tasks.length} task(s) running and ${live.pending} request(s) open will be cut off`,
    live_tasks: live.tasks,
    pending_requests: live.pending,
  };
}
