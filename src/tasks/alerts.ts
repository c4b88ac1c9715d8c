// Conditions of the whole bridge that every task is subject to: the state database refusing writes (a full disk,
// damage) and an app-server that has stopped answering. Health, waits and status say them, each with what to do.
import type { RuntimePool } from "../runtime/pool.ts";
import type { Repo } from "../store/repo.ts";
import type { HeldWrites } from "./held-writes.ts";

export interface BridgeAlert {
  /** disk_full, state_corrupt, permissions, io, or app_server_unresponsive. */
  code: string;
  message: string;
  since: string;
}

/** What keeps the state database from taking writes now, and how many of the intake's writes wait for it. */
export function storageProblem(repo: Repo, writes: HeldWrites): (BridgeAlert & { cause: string; held: number }) | null {
  const p = repo.condition.problem;
  const held = writes.size;
  const why = p ? { cause: p.cause, message: p.message, since: p.since } : writes.reason ? { cause: writes.reason.storageCause, message: writes.reason.message, since: writes.heldSinceIso } : null;
  if (!why) return null;
  const pause = held ? ` ${held} write(s) of app-server events wait in memory; reading from the app-server is paused until they are stored (nothing it sent is lost).` : "";
  return { code: why.cause, cause: why.cause, since: why.since, held, message: `${why.message}${pause}` };
}

/** Bridge-wide conditions every task is subject to now (a full disk, a silent app-server), with what to do. */
export function bridgeAlerts({ repo, writes, runtimes }: { repo: Repo; writes: HeldWrites; runtimes: RuntimePool }): BridgeAlert[] {
  const out: BridgeAlert[] = [];
  const storage = storageProblem(repo, writes);
  if (storage) out.push({ code: storage.code, message: storage.message, since: storage.since });
  for (const slot of runtimes.all()) {
    const c = slot.runtime.current;
    if (!c || c.unresponsiveSince == null) continue;
    const silence = c.silenceText();
    const after = slot.runtime.livenessMs?.restartAfter ?? 0;
    const auto = after ? `; it is replaced by itself after ${Math.round(after / 1000)} s` : "";
    out.push({
      code: "app_server_unresponsive",
      since: new Date(c.unresponsiveSince).toISOString(),
      message: `${silence} (Codex home ${slot.home}). Nothing is sent to it meanwhile. codex_runtime restart with force=true kills and replaces it: its tasks end connection_lost (codex_send starts a recovery turn), its UNKNOWN outcomes are settled as lost${auto}.`,
    });
  }
  return out;
}
