// codex_status as the domain answers it: one task with its open requests and context evidence, or the recent list.
import type { InteractionRow, TaskRow } from "../store/rows.ts";
import type { Supervisor } from "../tasks/supervisor.ts";

export interface TaskStatus {
  task: TaskRow;
  pending: string[];
  context: Record<string, unknown> | undefined;
}

export function taskStatus(sup: Supervisor, taskId: string): TaskStatus {
  sup.sync(taskId);
  const task = sup.task(taskId);
  const pending = sup.repo.interactions(task.id, ["pending"]).map((i: InteractionRow) => `${i.id} ${i.kind}`);
  return { task, pending, context: sup.repo.context(task.id) };
}

export function recentTasks(sup: Supervisor, limit = 20): TaskRow[] {
  return sup.repo.recentTasks(limit);
}
