// How a settled UNKNOWN changes its task: the correlation is cleared, an event says by what and how, and a task that
// had become UNKNOWN itself gets the state the evidence shows (or the one an explicit give-up or the exit leaves).
import { THREAD_RESUME, THREAD_START } from "../codex/protocol/thread.ts";
import { TURN_START } from "../codex/protocol/turn.ts";
import { redactText } from "../policy/redact.ts";
import type { TaskRow, TaskState, TurnError } from "../store/rows.ts";
import type { TaskContext } from "./context.ts";
import { TERMINAL_TURN, type Verdict } from "./unknown-evidence.ts";

export type Settlement = "accepted" | "refused" | "abandoned" | "connection_closed";

const NO_TURN = "no turn was started; codex_send starts one on this thread";

function failure(message: string, explanation: string): TurnError {
  return { message: redactText(message), codexErrorInfo: null, explanation };
}

export function applyVerdict(ctx: TaskContext, task: TaskRow, v: Verdict, by: string, how: Settlement): void {
  const { repo, events, threadTask } = ctx;
  const runtime = ctx.runtimes.forProfile(task.profile_id);
  const u = task.unknown!;
  const patch: Parameters<typeof repo.updateTask>[1] = { unknown: null };
  const accepted = v.kind === "accepted" ? v : null;
  // Only a task that became UNKNOWN itself changes state; a steer or interrupt left its task's state to the intake.
  if (task.state === "unknown") {
    if (u.method === TURN_START) {
      if (accepted?.turnId) {
        const ended = accepted.status && TERMINAL_TURN.has(accepted.status) ? accepted.status : u.terminal?.turn_id === accepted.turnId ? u.terminal.status : null;
        patch.state = (ended ?? "running") as TaskState;
        patch.turn_id = accepted.turnId;
        patch.turn_count = task.turn_count + 1;
        events.state(task.id).ingest.setTurn(accepted.turnId);
      } else if (how === "connection_closed") {
        patch.state = "connection_lost";
      } else {
        patch.state = "failed";
        patch.error =
          v.kind === "refused"
            ? failure(v.message, "Codex refused the turn/start (its late answer was an error): no turn ran")
            : failure("turn/start outcome UNKNOWN, given up by the supervisor", "nothing was resent; if Codex ran it after all, codex_threads read shows the turn");
      }
    } else {
      // thread/start or thread/resume while starting the task: no turn was ever sent.
      if (accepted?.threadId) {
        patch.thread_id = accepted.threadId;
        threadTask.set(accepted.threadId, task.id);
        if (runtime.current?.connectionId === u.connection_id) runtime.loadedThreads.add(accepted.threadId);
      }
      patch.state = "failed";
      const what = u.method === THREAD_START ? "the thread was created late" : "the thread was resumed late";
      patch.error =
        accepted ? failure(`${u.method} was answered after its deadline`, `${what}; ${NO_TURN}`)
        : v.kind === "refused" ? failure(v.message, `Codex refused ${u.method}; nothing ran`)
        : failure(`${u.method} outcome UNKNOWN`, how === "connection_closed" ? "the app-server exited before answering; start a new task" : "given up by the supervisor; start a new task");
    }
  } else if (accepted && u.method === THREAD_RESUME && runtime.current?.connectionId === u.connection_id) {
    runtime.loadedThreads.add(u.thread_id!);
  }
  events.flush(task.id);
  repo.tx(() => {
    repo.updateTask(task.id, patch);
    repo.appendEvents(task.id, [
      {
        turn_id: patch.turn_id ?? u.turn_id ?? task.turn_id,
        kind: "unknown_resolved",
        data: { method: u.method, by, outcome: how, ...(accepted?.turnId ? { turn_id: accepted.turnId } : {}), ...(accepted?.status ? { status: accepted.status } : {}) },
      },
    ]);
  });
  events.wake(task.id);
}
