// codex_status as the domain answers it: one task with its open requests and context evidence, or the recent list.
import type { TaskRow } from "../store/rows.ts";
import { bridgeAlerts, type BridgeAlert } from "../tasks/alerts.ts";
import type { TaskDomain } from "../tasks/domain.ts";
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
export async function taskStatus(domain: TaskDomain, taskId: string): Promise<TaskStatus> {
  domain.sync(taskId);
  const checked = domain.task(taskId).unknown ? await domain.checkUnknown(taskId) : null;
  domain.sync(taskId);
  const task = domain.task(taskId);
  const pending = domain.repo.interactions(task.id, ["pending"]).map((i) => requestDetail(i));
  const unknown = unknownView(task, checked);
  const alerts = bridgeAlerts(domain);
  return { task, pending, context: domain.repo.context(task.id), ...(unknown ? { unknown } : {}), ...(alerts.length ? { alerts } : {}) };
}

export function recentTasks(domain: TaskDomain, limit = 20): TaskRow[] {
  return domain.repo.recentTasks(limit);
}
