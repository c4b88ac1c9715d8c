// codex_result's steps: only a terminal task has a result; then the stored evidence plus the bridge's own Git checks.
import type { Platform } from "../../platform/types.ts";
import type { TaskRow } from "../store/rows.ts";
import type { ViewReads } from "./reads.ts";
import { buildResult, requireSettledTask, type TaskResult } from "./evidence.ts";
import { runGitChecks } from "./git-checks.ts";

/** Not ready: the turn has not ended, or its connection was lost (then the task's failure says why). */
export type ResultAnswer = { ready: false; task: TaskRow; hint: string } | { ready: true; task: TaskRow; result: TaskResult };

export async function taskResult(reads: ViewReads, platform: Platform, taskId: string): Promise<ResultAnswer> {
  reads.sync(taskId);
  const t = reads.task(taskId);
  if (!reads.isTerminal(t.state)) {
    const hint = t.state === "connection_lost" ? "the connection was lost; codex_send starts a recovery turn" : "the turn has not ended; call codex_wait";
    return { ready: false, task: t, hint };
  }
  requireSettledTask(reads.rows, t.id);
  const root = reads.projectRoot(t.project_id);
  const git = root !== undefined ? await runGitChecks(platform, root) : null;
  return { ready: true, task: t, result: buildResult(reads.rows, t.id, git, { projectRoot: root }) };
}
