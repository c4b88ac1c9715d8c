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
}

export type WorkCounts = { active: number; pending: number; unknown: number };

export async function runtimeControl(repo: Repo, runtimes: RuntimePool, work: WorkCounts, action: "status" | "restart"): Promise<RuntimeStatus> {
  const counts = { ...work, in_flight: runtimes.all().reduce((n, slot) => n + (slot.runtime.current?.diagnostics().pendingRequests ?? 0), 0) };
  const runtime = runtimes.default;
  if (action === "restart") {
    if (counts.active || counts.pending || counts.unknown || counts.in_flight) {
      const unknown = repo.tasksWithUnknown().map((t) => `${t.id} ${t.unknown!.method}`);
      const way = unknown.length
        ? ` UNKNOWN: ${unknown.join(", ")}; codex_status <task> reads the thread and settles one Codex shows ended, codex_cancel <task> stops or gives it up (nothing is resent).`
        : "";
      throw new BridgeError(`restart refused: ${counts.active} active task(s), ${counts.pending} open request(s), ${counts.unknown} UNKNOWN outcome(s), ${counts.in_flight} request(s) in flight to the app-server; wait, cancel or settle them first.${way}`, "action");
    }
    try {
      await runtimes.restart();
    } finally {
      // The old child is gone even when the new one fails to start: its generation is over either way.
      repo.cursors.beginGeneration();
    }
  }
  const info = runtime.info();
  const generation = repo.cursors.generation();
  return { state: info.state, pid: info.pid, restarts: info.restarts, uptime_s: info.uptimeMs === null ? null : Math.round(info.uptimeMs / 1000), ...counts, generation, ...(runtime.lastExit ? { last_exit: runtime.lastExit } : {}) };
}
