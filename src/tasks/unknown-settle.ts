// How a settled UNKNOWN changes its task: the correlation is cleared, an event says by what and how, and a task that
// had become UNKNOWN itself gets the state the evidence shows (or the one an explicit give-up or the exit leaves).
import { THREAD_RESUME, THREAD_START } from "../codex/protocol/thread.ts";
import { TURN_START } from "../codex/protocol/turn.ts";
import { redactText } from "../policy/redact.ts";
import type { TaskRow, TaskState } from "../store/rows.ts";
import type { TaskContext } from "./context.ts";
import { failure } from "./failure.ts";
import { TERMINAL_TURN, type Verdict } from "./unknown-evidence.ts";

export type Settlement = "accepted" | "refused" | "abandoned" | "connection_closed";

const NO_TURN = "no turn was started; codex_send starts one on this thread";

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
        patch.failure = failure("app_server_crashed");
      } else {
        patch.state = "failed";
        patch.failure =
          v.kind === "refused"
            ? failure("invalid_request", `Codex refused the turn/start (its late answer was an error: ${redactText(v.message)}); no turn ran.`)
            : failure("unknown", "The turn/start outcome stayed UNKNOWN and the supervisor gave it up; nothing was resent (codex_threads read shows whether Codex ran it).");
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
      patch.failure =
        accepted ? failure("unknown", `${u.method} was answered after its deadline: ${what}; ${NO_TURN}.`, true)
        : v.kind === "refused" ? failure("invalid_request", `Codex refused ${u.method} (${redactText(v.message)}); nothing ran.`)
        : how === "connection_closed" ? failure("app_server_crashed", `The app-server exited before answering ${u.method}; start a new task.`)
        : failure("unknown", `The ${u.method} outcome stayed UNKNOWN and the supervisor gave it up; start a new task.`);
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
