// The supervisory checkpoint of a task: a short anchor (goal, constraints, state, next step) the supervisor keeps.
import type { Repo } from "../store/repo.ts";

export const CHECKPOINT_FIELDS = ["goal", "constraints", "state", "next_step"] as const;
export type CheckpointField = (typeof CHECKPOINT_FIELDS)[number];
export type CheckpointInput = { action: "read" | "update"; task_id: string } & Partial<Record<CheckpointField, string>>;

export function checkpoint(repo: Repo, input: CheckpointInput): { saved: boolean; checkpoint: Record<string, unknown> } {
  const cur = repo.checkpoint(input.task_id) ?? {};
  if (input.action !== "update") return { saved: false, checkpoint: cur };
  const next = { ...cur };
  for (const k of CHECKPOINT_FIELDS) if (input[k] !== undefined) next[k] = input[k];
  repo.setCheckpoint(input.task_id, next);
  return { saved: true, checkpoint: next };
}
