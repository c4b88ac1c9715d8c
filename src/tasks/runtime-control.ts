// The managed app-servers as the task domain sees them: their status beside the work in flight, and the restart rule:
// a restart is refused while anything could be lost by it (an active turn, an open request, an UNKNOWN outcome, a
// request Codex has not answered yet).
import { BridgeError } from "../bridge-error.ts";
import type { RuntimePool } from "../runtime/pool.ts";
import type { Repo } from "../store/repo.ts";

export interface RuntimeStatus {
  state: string;
  pid: number | null;
  restarts: number;
  uptime_s: number | null;
  active: number;
  pending: number;
  unknown: number;
  /** Requests sent to the app-server and not yet answered. */
  in_flight: number;
  /** Managed restarts so far; a wait cursor from an earlier generation is reported lost. */
  generation: number;
  last_exit?: unknown;
  /** "the app-server (pid N) has not answered for S s; …" while it does not answer. */
  not_answering?: string;
}

export type WorkCounts = { active: number; pending: number; unknown: number };

export async function runtimeControl(repo: Repo, runtimes: RuntimePool, work: () => WorkCounts, action: "status" | "restart", force = false): Promise<RuntimeStatus> {
  const count = () => ({ ...work(), in_flight: runtimes.all().reduce((n, slot) => n + (slot.runtime.current?.diagnostics().pendingRequests ?? 0), 0) });
  let counts = count();
  const runtime = runtimes.default;
  if (action === "restart") {
    const silence = runtime.silence();
    if (!force && (counts.active || counts.pending || counts.unknown || counts.in_flight)) {
      const unknown = repo.tasksWithUnknown().map((t) => `${t.id} ${t.unknown!.method}`);
      const way = unknown.length
        ? ` UNKNOWN: ${unknown.join(", ")}; codex_status <task> reads the thread and settles one Codex shows ended, codex_cancel <task> stops or gives it up (nothing is resent).`
        : "";
      const forced = silence ? ` ${silence}: codex_runtime restart with force=true kills and replaces it (its tasks end connection_lost, recoverable with codex_send; its UNKNOWN outcomes are settled as lost).` : "";
      throw new BridgeError(`restart refused: ${counts.active} active task(s), ${counts.pending} open request(s), ${counts.unknown} UNKNOWN outcome(s), ${counts.in_flight} request(s) in flight to the app-server; wait, cancel or settle them first.${way}${forced}`, "action");
    }
    try {
      // Forced: killed (a stopped or wedged app-server cannot refuse), its tasks connection_lost, its UNKNOWNs lost.
      if (force) await runtimes.forceRestart(`codex_runtime restart force=true${silence ? ` (${silence})` : ""}`);
      else await runtimes.restart();
    } finally {
      // The old child is gone even when the new one fails to start: its generation is over either way.
      repo.cursors.beginGeneration();
    }
    counts = count();
  }
  const info = runtime.info();
  const generation = repo.cursors.generation();
  const silence = runtime.silence();
  const after = runtime.livenessMs.restartAfter;
  const auto = after ? ` (it is replaced by itself after ${Math.round(after / 1000)} s)` : "";
  return {
    ...(silence ? { not_answering: `${silence}; codex_runtime restart with force=true replaces it${auto}` } : {}),
    state: info.state,
    pid: info.pid,
    restarts: info.restarts,
    uptime_s: info.uptimeMs === null ? null : Math.round(info.uptimeMs / 1000),
    ...counts,
    generation,
    ...(runtime.lastExit ? { last_exit: runtime.lastExit } : {}),
  };
}
