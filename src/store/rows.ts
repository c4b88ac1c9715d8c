// The rows of the state database as types, and the task and interaction states they move through.
import { z } from "zod";

export const TaskState = z.enum([
  "starting",
  "running",
  "waiting_for_approval",
  "waiting_for_tool",
  "completed",
  "failed",
  "interrupted",
  "connection_lost",
  "unknown",
]);
export type TaskState = z.infer<typeof TaskState>;

export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(["completed", "failed", "interrupted"]);
/** States in which nothing more will happen without the supervisor acting. */
export const SETTLED_STATES: ReadonlySet<TaskState> = new Set(["completed", "failed", "interrupted", "connection_lost", "unknown"]);

export const InteractionKind = z.enum(["command", "fileChange", "permissions", "userInput", "elicitation", "tool", "unknown"]);
export type InteractionKind = z.infer<typeof InteractionKind>;

export const InteractionState = z.enum(["pending", "submitted", "resolved", "stale", "uncertain"]);
export type InteractionState = z.infer<typeof InteractionState>;

export interface TaskRow {
  id: string;
  project_id: string;
  profile_id: string;
  thread_id: string | null;
  turn_id: string | null;
  state: TaskState;
  relay: boolean;
  prompt: string;
  model: string | null;
  effort: string | null;
  turn_count: number;
  last_seq: number;
  final_message: string | null;
  /** Why the last turn (or the start) failed, was interrupted or was lost; null while it runs or after success. */
  failure: Failure | null;
  unknown: UnknownOutcome | null;
  connection_id: string | null;
  created_at: string;
  updated_at: string;
  /** What retention removed from the finished task (its raw events, command output); null while it is whole. */
  compaction: CompactionRecord | null;
}

/** What one task's compaction removed, kept on the task so it can say so when asked for what is gone. */
export interface CompactionRecord {
  at: string;
  retention_days: number;
  /** Events up to this seq were thinned. */
  through_seq: number;
  events_removed: number;
  outputs_removed: number;
}

export const FAILURE_CODES = [
  "auth_required",
  "auth_rejected",
  "provider_unreachable",
  "provider_error",
  "rate_limited",
  "quota_exceeded",
  "model_unavailable",
  "context_window_exceeded",
  "invalid_request",
  "policy_refused",
  "sandbox_denied",
  "codex_missing",
  "codex_unverified_version",
  "app_server_crashed",
  "shared_server_unavailable",
  "bridge_restarted",
  "interrupted_by_supervisor",
  "unknown",
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

/** What a supervisor or a script branches on: a stable code, one sentence saying what to do, and whether a retry can help. */
export interface Failure {
  code: FailureCode;
  sentence: string;
  retryable: boolean;
}

/**
 * A mutating request whose acknowledgement timed out, kept with what correlates it to Codex's own evidence: the
 * JSON-RPC id it went out with on which connection, its thread, and its turn once known. Cleared only on evidence.
 */
export interface UnknownOutcome {
  method: string;
  at: string;
  detail: string;
  rpc_id?: number | string;
  connection_id?: string;
  thread_id?: string | null;
  turn_id?: string | null;
  /** When the request was written: only a thread/read started later can speak for it. */
  sent_at?: string;
  /** After this, evidence no longer resolves it (it stays UNKNOWN). */
  expires_at?: string;
  /** Turns the bridge knew on the thread before a turn/start: any other turn is a candidate for it. */
  known_turns?: string[];
  /** A turn/completed for the correlated turn, seen while it was unresolved. */
  terminal?: { turn_id: string; status: string };
}

export interface EventRow {
  task_id: string;
  seq: number;
  turn_id: string | null;
  kind: string;
  item_id: string | null;
  at: string;
  data: Record<string, unknown>;
}

export interface InteractionRow {
  id: string;
  task_id: string;
  kind: InteractionKind;
  method: string;
  rpc_id: number | string;
  connection_id: string;
  thread_id: string | null;
  turn_id: string | null;
  item_id: string | null;
  state: InteractionState;
  params: Record<string, unknown>;
  response: unknown;
  response_hash: string | null;
  /** Who gave the answer, as proven (policy/answerer.ts ANSWERED_BY); null while unanswered. */
  answered_by: string | null;
  note: string | null;
  created_at: string;
  updated_at: string;
}

export interface ItemRow {
  task_id: string;
  item_id: string;
  turn_id: string | null;
  type: string;
  status: string | null;
  data: Record<string, unknown>;
  updated_at: string;
}
