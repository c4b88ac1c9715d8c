// How a server command stops, the same for stdio and HTTP: stop serving, stop the app-servers, close the store, exit 0,
// all within STOP_DEADLINE_MS, and kill whatever an app-server left in its process group on the way out (the group
// outlives its leader). The deadline is the stdio tunnel's: it stops the bridge by closing stdin, then SIGTERM, never
// SIGKILL, and starts nothing until the bridge is gone; it leaves the app-server its close grace (300 ms) plus margin
// and stays under the second a restart may wait. HTTP keeps the same budget: its sessions close at once.
import type { Bridge } from "../app/assemble.ts";
import type { EventLog } from "../log.ts";

export const STOP_DEADLINE_MS = 800;

/** The one shutdown of a serving bridge; the first call stops it, later calls do nothing. */
export function shutdownFor(bridge: Bridge, log: EventLog, stopServing: () => Promise<void>): (why: string) => Promise<void> {
  let stopping = false;
  return async (why) => {
    if (stopping) return;
    stopping = true;
    log("info", "stopping", { reason: why });
    const appServers = bridge.runtimes.all().map((s) => s.runtime.current);
    const finish = () => {
      for (const appServer of appServers) appServer?.kill("SIGKILL");
      try {
        bridge.store.close();
      } catch {
        // closed already
      }
      process.exit(0);
    };
    const hard = setTimeout(() => {
      log("warn", "stop_forced", { after_ms: STOP_DEADLINE_MS });
      finish();
    }, STOP_DEADLINE_MS);
    try {
      await stopServing();
      await bridge.close();
    } catch (err) {
      log("error", "stop_failed", { error: err instanceof Error ? err.constructor.name : "unknown" });
    } finally {
      clearTimeout(hard);
      finish();
    }
  };
}
