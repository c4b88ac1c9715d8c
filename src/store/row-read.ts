// How rows of the state database are read back into the typed rows of rows.ts: SQLite's loose values made strict,
// JSON columns parsed (a damaged one reads as its fallback), old failure rows read as unclassified failures.
import type { Row, SqlValue } from "../../platform/types.ts";
import { unpackText } from "./compaction.ts";
import type { EventRow, Failure, InteractionRow, InteractionState, ItemRow, TaskRow, TaskState } from "./rows.ts";

const str = (v: SqlValue | undefined): string | null => (v === null || v === undefined ? null : String(v));
export const num = (v: SqlValue | undefined): number => (v === null || v === undefined ? 0 : Number(v));
export const json = <T>(v: SqlValue | undefined, fallback: T): T => {
  if (v === null || v === undefined) return fallback;
  try {
    return JSON.parse(String(v)) as T;
  } catch {
    return fallback;
  }
};

export function toTask(r: Row): TaskRow {
  return {
    id: String(r.id),
    project_id: String(r.project_id),
    profile_id: String(r.profile_id),
    thread_id: str(r.thread_id),
    turn_id: str(r.turn_id),
    state: String(r.state) as TaskState,
    relay: num(r.relay) === 1,
    prompt: String(r.prompt),
    model: str(r.model),
    effort: str(r.effort),
    turn_count: num(r.turn_count),
    last_seq: num(r.last_seq),
    final_message: unpackText(r.final_message),
    failure: asFailure(json<Record<string, unknown> | null>(r.error_json, null)),
    unknown: json(r.unknown_json, null),
    connection_id: str(r.connection_id),
    created_at: String(r.created_at),
    updated_at: String(r.updated_at),
    compaction: json(r.compaction_json, null),
  };
}

/** Rows written before failures had codes hold {message, explanation}: read them as an unclassified failure. */
export function asFailure(v: Record<string, unknown> | null): Failure | null {
  if (!v) return null;
  if (typeof v.code === "string") return v as unknown as Failure;
  return { code: "unknown", sentence: String(v.explanation ?? v.message ?? "the turn failed"), retryable: false };
}

export function toEvent(r: Row): EventRow {
  return {
    task_id: String(r.task_id),
    seq: num(r.seq),
    turn_id: str(r.turn_id),
    kind: String(r.kind),
    item_id: str(r.item_id),
    at: String(r.at),
    data: json(r.data, {}),
  };
}

export function toInteraction(r: Row): InteractionRow {
  return {
    id: String(r.id),
    task_id: String(r.task_id),
    kind: String(r.kind) as InteractionRow["kind"],
    method: String(r.method),
    rpc_id: json(r.rpc_id, 0),
    connection_id: String(r.connection_id),
    thread_id: str(r.thread_id),
    turn_id: str(r.turn_id),
    item_id: str(r.item_id),
    state: String(r.state) as InteractionState,
    params: json(r.params, {}),
    response: json(r.response, null),
    response_hash: str(r.response_hash),
    answered_by: str(r.answered_by),
    note: str(r.note),
    created_at: String(r.created_at),
    updated_at: String(r.updated_at),
  };
}

export function toItem(r: Row): ItemRow {
  return {
    task_id: String(r.task_id),
    item_id: String(r.item_id),
    turn_id: str(r.turn_id),
    type: String(r.type),
    status: str(r.status),
    data: json(r.data, {}),
    updated_at: String(r.updated_at),
  };
}
