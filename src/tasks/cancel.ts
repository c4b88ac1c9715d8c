// codex_cancel: turn/interrupt, a short wait for Codex's own turn/completed, then the turn's background terminals.
// On a task whose turn/start is UNKNOWN it first reads the thread; a turn found running is interrupted, and one that
// cannot be found is given up explicitly. An interrupt whose own outcome is UNKNOWN is never sent again.
import { RpcError, UnknownOutcomeError } from "../codex/errors.ts";
import { backgroundTerminalsList, backgroundTerminalTerminate } from "../codex/protocol/thread.ts";
import { TURN_INTERRUPT, turnInterrupt } from "../codex/protocol/turn.ts";
import { redactText } from "../policy/redact.ts";
import { SETTLED_STATES, type TaskRow } from "../store/rows.ts";
import type { TaskContext } from "./context.ts";
import type { UnknownOutcomes } from "./unknown-outcomes.ts";

export interface CancelAnswer {
  task: TaskRow;
  terminated: number;
  note: string;
}

export async function cancelTask(ctx: TaskContext, unknowns: UnknownOutcomes, task: TaskRow, reason: string | undefined, waitMs: number): Promise<CancelAnswer> {
  const { repo, runtimes, events, settings } = ctx;
  // The app-server of the task's profile (each distinct Codex home has its own).
  const client = runtimes.forProfile(task.profile_id).current;
  if (task.unknown?.method === TURN_INTERRUPT) {
    return { task, terminated: 0, note: "an earlier turn/interrupt of this task has an UNKNOWN outcome and is never resent; codex_status checks it" };
  }
  if (task.state === "unknown") {
    const why = await unknowns.check(task.id, client);
    task = repo.task(task.id)!;
    if (task.state === "unknown") {
      const bound = task.unknown?.turn_id;
      if (!bound || !client || task.unknown?.connection_id !== client.connectionId) {
        unknowns.abandon(task.id);
        return { task: repo.task(task.id)!, terminated: 0, note: `given up: ${why ?? "it could not be settled"}. Nothing was resent; codex_threads read shows whether Codex ran it` };
      }
      // The thread shows the turn running: stop it; its turn/completed plus idle then settles the UNKNOWN.
      task = { ...task, turn_id: bound };
    }
  }
  if (SETTLED_STATES.has(task.state) && task.state !== "unknown") return { task, terminated: 0, note: `already ${task.state}; nothing to cancel` };
  if (!client || task.connection_id !== client.connectionId || !task.thread_id || !task.turn_id) {
    return { task, terminated: 0, note: "the turn is not on the live connection; nothing was sent" };
  }
  const threadId = task.thread_id;
  const turnId = task.turn_id;
  if (reason) events.appendNow(task.id, [{ turn_id: turnId, kind: "cancel_requested", data: { reason: redactText(reason) } }]);
  // A turn found through an UNKNOWN is done when that UNKNOWN settles (its task was "unknown", a settled state, all along).
  const done = task.state === "unknown" ? events.waitFor(task.id, (t) => !t.unknown, waitMs) : events.waitForSettled(task.id, waitMs);
  // The failure the turn gets when Codex confirms the interrupt (unless the bridge had stopped it for a cause already).
  events.state(task.id).stopReason ??= "interrupted_by_supervisor";
  const interrupt = () => turnInterrupt(client, { threadId, turnId }, { timeoutMs: settings.ackTimeoutMs });
  try {
    try {
      await interrupt();
    } catch (err) {
      // Right after turn/start Codex may not count the turn as active yet; a refused request was not applied, so one retry is safe.
      if (!(err instanceof RpcError) || !/no active turn/.test(err.message)) throw err;
      await new Promise((r) => setTimeout(r, 300));
      if (SETTLED_STATES.has(repo.task(task.id)!.state)) return { task: repo.task(task.id)!, terminated: 0, note: "the turn had already ended" };
      await interrupt();
    }
  } catch (err) {
    if (err instanceof UnknownOutcomeError) {
      unknowns.record(task.id, err, { connectionId: client.connectionId, threadId, turnId, sentAt: new Date(Date.now() - err.timeoutMs).toISOString(), taskUnknown: false });
      return { task: repo.task(task.id)!, terminated: 0, note: `${err.message} codex_status checks it later` };
    }
    throw err;
  }
  const settled = await done;
  // The interrupt leaves running commands alive as background terminals: stop them too.
  let terminated = 0;
  try {
    const list = await backgroundTerminalsList(client, { threadId }, { timeoutMs: 5000 });
    for (const term of list.data ?? []) {
      if (!term.processId) continue;
      const r = await backgroundTerminalTerminate(client, { threadId, processId: term.processId }, { timeoutMs: 5000 });
      if (r.terminated) terminated++;
    }
  } catch (err) {
    ctx.log("warn", "terminal_cleanup_failed", { task: task.id, error: err instanceof Error ? err.constructor.name : "unknown" });
  }
  const after = repo.task(task.id)!;
  return { task: after, terminated, note: settled ? `turn ${after.state}` : "interrupt sent; turn/completed not seen yet, keep calling codex_wait" };
}
