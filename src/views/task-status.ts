// codex_status as the domain answers it: one task with its open requests and context evidence, or the recent list.
import type { TaskRow } from "../store/rows.ts";
import type { BridgeAlert } from "../tasks/alerts.ts";
import type { Supervisor } from "../tasks/supervisor.ts";
import { unknownView, type UnknownView } from "./unknown-view.ts";
import { requestDetail, type RequestDetail } from "./request-detail.ts";

export interface TaskStatus {
  task: TaskRow;
  /** Open requests in full (a wait shows each whole only once; this is where a lost one is read again). */
  pending: RequestDetail[];
  context: Record<string, unknown> | undefined;
  unknown?: UnknownView;
  /** Conditions of the whole bridge (a full disk, a silent app-server) with what to do. */
  alerts?: BridgeAlert[];
}

/**
 * One task now. An open UNKNOWN is checked first (one thread/read, never a resend): settled if Codex's thread shows
 * the turn ended, else shown with what would settle it and why this check did not.
 */
export async function taskStatus(sup: Supervisor, taskId: string): Promise<TaskStatus> {
  sup.sync(taskId);
  const checked = sup.task(taskId).unknown ? await sup.checkUnknown(taskId) : null;
  sup.sync(taskId);
  const task = sup.task(taskId);
  const pending = sup.repo.interactions(task.id, ["pending"]).map((i) => requestDetail(i));
  const unknown = unknownView(task, checked);
  const alerts = sup.alerts();
  return { task, pending, context: sup.repo.context(task.id), ...(unknown ? { unknown } : {}), ...(alerts.length ? { alerts } : {}) };
}

export function recentTasks(sup: Supervisor, limit = 20): TaskRow[] {
  return sup.repo.recentTasks(limit);
}
