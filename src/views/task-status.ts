// codex_status as the domain answers it: one task with its open requests and context evidence, or the recent list.
import type { TaskRow } from "../store/rows.ts";
import type { BridgeAlert } from "../tasks/alerts.ts";
import type { ViewReads } from "./reads.ts";
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
export async function taskStatus(reads: ViewReads, taskId: string): Promise<TaskStatus> {
  reads.sync(taskId);
  const checked = reads.task(taskId).unknown ? await reads.checkUnknown(taskId) : null;
  reads.sync(taskId);
  const task = reads.task(taskId);
  const pending = reads.rows.interactions(task.id, ["pending"]).map((i) => requestDetail(i));
  const unknown = unknownView(task, checked);
  const alerts = reads.alerts();
  return { task, pending, context: reads.rows.context(task.id), ...(unknown ? { unknown } : {}), ...(alerts.length ? { alerts } : {}) };
}

export function recentTasks(reads: ViewReads, limit = 20): TaskRow[] {
  return reads.rows.recentTasks(limit);
}
