// What the person at the machine reads through the control endpoint (`codex-bridge tasks` and `pending`): every task
// with what it is doing now, and every request that awaits a decision, in full. The owner's own terminal, so paths and
// commands are shown as Codex asked them (redacted like everything the service hands out).
import { SETTLED_STATES, type TaskRow } from "../store/rows.ts";
import type { ViewReads } from "./reads.ts";
import { activity, duration } from "./activity.ts";
import { requestDetail, type RequestDetail } from "./request-detail.ts";

// Without --all: the live tasks and those that ended within the last hour; with it, this many of the newest.
const RECENT_MS = 3_600_000;
const ALL_LIMIT = 500;

export interface TaskLine {
  task_id: string;
  project_id: string;
  state: string;
  /** Seconds since the task was started. */
  age_s: number;
  /** One line: what it is doing now. */
  doing: string;
}

export interface PendingRequest extends RequestDetail {
  task_id: string;
  project_id: string;
  /** The profile's `approvals`: who may answer it. */
  approvals: string;
  asked_at: string;
}

export function taskLines(reads: ViewReads, all: boolean): TaskLine[] {
  const rows = reads.rows.recentTasks(ALL_LIMIT);
  const cutoff = Date.now() - RECENT_MS;
  const shown = all ? rows : rows.filter((t) => !SETTLED_STATES.has(t.state) || Date.parse(t.updated_at) >= cutoff);
  return shown.map((t) => lineOf(reads, t));
}

function lineOf(reads: ViewReads, t: TaskRow): TaskLine {
  const a = activity(reads.rows, t);
  const pending = t.state === "waiting_for_approval" ? reads.rows.interactions(t.id, ["pending"]).find((i) => i.kind !== "tool") : undefined;
  const doing = pending
    ? `awaits a decision: ${pending.id} (${pending.kind})`
    : t.state === "waiting_for_tool"
      ? "awaits the supervisor's web tool"
      : SETTLED_STATES.has(t.state)
        ? (t.failure?.code ?? "ended")
        : a.command
          ? `$ ${a.command}`
          : t.state === "starting"
            ? "starting"
            : `thinking (turn ${duration(a.ran_s)})`;
  return { task_id: t.id, project_id: t.project_id, state: t.state, age_s: Math.max(0, Math.round((Date.now() - Date.parse(t.created_at)) / 1000)), doing };
}

/** Every request awaiting an answer (bridge_web_tool calls included: they await the supervisor, and say so). */
export function pendingRequests(reads: ViewReads): PendingRequest[] {
  return reads.rows.interactionsInStates(["pending"]).map((i) => {
    const t = reads.rows.task(i.task_id);
    const approvals = i.kind === "tool" ? "supervisor" : t ? profileApprovals(reads, t.profile_id) : "?";
    return { ...requestDetail(i, true), task_id: i.task_id, project_id: t?.project_id ?? "?", approvals, asked_at: i.created_at };
  });
}

function profileApprovals(reads: ViewReads, profileId: string): string {
  try {
    return reads.profile(profileId).approvals;
  } catch {
    return "?";
  }
}
