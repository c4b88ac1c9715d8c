// The supervisory checkpoint, what a supervisor keeps across its own context resets: a short, bounded anchor kept per
// native thread (or per task before it has one). The original goal and hard constraints are set once; state keeps its
// previous value; nothing in it may be a copy of a transcript, a prompt, command output or a final answer.
import { BridgeError } from "../bridge-error.ts";
import { redactText } from "../policy/redact.ts";
import type { Repo } from "../store/repo.ts";
import type { TaskRow } from "../store/rows.ts";
import { looksCopied, taskSources } from "./checkpoint-copies.ts";

export const CHECKPOINT_FIELDS = ["goal", "constraints", "state", "acceptance_status", "current_understanding", "next_step"] as const;
export type CheckpointField = (typeof CHECKPOINT_FIELDS)[number];
/** The original goal and hard constraints: a later change of mind goes into state or understanding, never here. */
const SET_ONCE: ReadonlySet<CheckpointField> = new Set(["goal", "constraints"]);
export const CHECKPOINT_FIELD_MAX_CHARS = 2_000;
export const CHECKPOINT_MAX_CHARS = 8_000;

export type CheckpointInput = { action: "read" | "update"; task_id?: string; thread_id?: string } & Partial<Record<CheckpointField, string>>;

export interface CheckpointAnswer {
  saved: boolean;
  /** What the record is kept for: the native thread when there is one, else the task. */
  anchor: { task_id?: string; thread_id?: string };
  checkpoint: Record<string, unknown>;
}

interface Anchor {
  key: string;
  /** A record saved for the task before its thread existed. */
  fallbackKey?: string;
  task?: TaskRow;
  view: CheckpointAnswer["anchor"];
}

function anchorOf(repo: Repo, input: CheckpointInput): Anchor {
  if (input.task_id && input.thread_id) throw new BridgeError("give task_id or thread_id, not both: a task's checkpoint is its thread's", "thread_id");
  if (input.task_id) {
    const task = repo.task(input.task_id);
    if (!task) throw new BridgeError(`task_id "${input.task_id}" is unknown; codex_status without task_id lists recent tasks`, "task_id");
    if (!task.thread_id) return { key: `task:${task.id}`, task, view: { task_id: task.id } };
    return { key: `thread:${task.thread_id}`, fallbackKey: `task:${task.id}`, task, view: { task_id: task.id, thread_id: task.thread_id } };
  }
  if (input.thread_id) {
    const task = repo.taskByThread(input.thread_id);
    return { key: `thread:${input.thread_id}`, task, view: { ...(task ? { task_id: task.id } : {}), thread_id: input.thread_id } };
  }
  throw new BridgeError("task_id or thread_id is required: the task or native thread this checkpoint anchors", "task_id");
}

const size = (r: Record<string, unknown>) => Object.entries(r).reduce((n, [k, v]) => n + (k === "updated_at" ? 0 : String(v).length), 0);

export function checkpoint(repo: Repo, input: CheckpointInput): CheckpointAnswer {
  const anchor = anchorOf(repo, input);
  const cur = repo.checkpoint(anchor.key) ?? (anchor.fallbackKey ? repo.checkpoint(anchor.fallbackKey) : undefined) ?? {};
  if (input.action !== "update") return { saved: false, anchor: anchor.view, checkpoint: cur };

  const given = CHECKPOINT_FIELDS.filter((k) => input[k] !== undefined);
  if (given.length === 0) throw new BridgeError(`update needs at least one of: ${CHECKPOINT_FIELDS.join(", ")}`, "action");
  const sources = anchor.task ? taskSources(repo, anchor.task) : [];
  const next: Record<string, unknown> = { ...cur };
  for (const k of given) {
    const value = redactText(input[k]!.trim());
    if (value.length > CHECKPOINT_FIELD_MAX_CHARS) {
      throw new BridgeError(`${k} is ${value.length} characters; a checkpoint field holds at most ${CHECKPOINT_FIELD_MAX_CHARS}. Keep it to the essentials`, k);
    }
    if (SET_ONCE.has(k) && typeof cur[k] === "string" && cur[k] !== "" && cur[k] !== value) {
      throw new BridgeError(`${k} is the original ${k === "goal" ? "goal" : "hard constraints"} and was set once; it never changes. Put what changed into state or current_understanding`, k);
    }
    const copied = looksCopied(value, sources);
    if (copied) {
      throw new BridgeError(`${k} looks like ${copied}; a checkpoint keeps a short anchor in your own words, never transcripts, prompts, command output or final answers (those stay readable through codex_inspect and codex_result)`, k);
    }
    if (k === "state" && typeof cur.state === "string" && cur.state !== value) next.previous_state = cur.state;
    next[k] = value;
  }
  delete next.updated_at;
  const total = size(next);
  if (total > CHECKPOINT_MAX_CHARS) {
    throw new BridgeError(`the checkpoint would be ${total} characters; a whole checkpoint holds at most ${CHECKPOINT_MAX_CHARS} (each field at most ${CHECKPOINT_FIELD_MAX_CHARS}). Shorten a field`, given[0]);
  }
  next.updated_at = new Date().toISOString();
  repo.setCheckpoint(anchor.key, anchor.task?.id ?? null, next);
  return { saved: true, anchor: anchor.view, checkpoint: next };
}
