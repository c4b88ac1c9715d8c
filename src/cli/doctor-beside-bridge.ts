// `doctor` while a bridge holds the state database's lock: a running bridge is the normal case, not a fault, so the
// checks run beside it (throwaway in-memory state) and the report names the running bridge instead of failing.
import type { Platform } from "../../platform/types.ts";
import type { StoreLockedError } from "../store/lock.ts";
import { assembleBridge, type Bridge } from "../app/assemble.ts";

type HealthReport = Awaited<ReturnType<Bridge["health"]>>;

export interface RunningBridge {
  pid: number;
  hostname: string;
  started_at: string;
  state: string;
}

/** What doctor prints: the health report, plus the running bridge when one holds the database. */
export type DoctorReport = HealthReport & { running_bridge?: RunningBridge };

/** Null when the lock names no holder (an unreadable lock file): that stays an error for the caller to report. */
export async function healthBesideRunningBridge(
  platform: Platform,
  locked: StoreLockedError,
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<DoctorReport | null> {
  const holder = locked.holder;
  if (!holder) return null;
  const running: RunningBridge = { pid: holder.pid, hostname: holder.hostname, started_at: holder.startedAt, state: locked.databasePath };
  // Everything but the database: config, projects, Codex, app-server, login, models.
  const bridge = await assembleBridge(platform, { env: { ...env, CODEX_BRIDGE_STATE: ":memory:" }, cwd, log: () => {}, lockWaitMs: 0 });
  let report: HealthReport;
  try {
    report = await bridge.health();
  } finally {
    await bridge.close();
  }
  const detail = `${locked.databasePath} in use by the running codex-bridge PID ${holder.pid} on ${holder.hostname} (since ${holder.startedAt}); its own codex_health checks it`;
  const checks = report.checks.map((c) => (c.name === "sqlite" ? { name: "sqlite", ok: true, detail } : c));
  return {
    ...report,
    healthy: checks.every((c) => c.ok),
    sqlite: { path: locked.databasePath, ok: true },
    checks,
    running_bridge: running,
  };
}
