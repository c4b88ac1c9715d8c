// `doctor` while a bridge holds the state database's lock: a running bridge is the normal case, not a fault, so the
// checks run beside it (throwaway in-memory state) and the report names the running bridge instead of failing.
import type { Platform } from "../../platform/types.ts";
import type { StoreLockedError } from "../store/lock.ts";
import { assembleBridge, type Bridge } from "../app/assemble.ts";
import { checkIntegrity } from "../store/integrity.ts";

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
  const damage = await readOnlyIntegrity(platform, locked.databasePath);
  const detail = damage ?? `${locked.databasePath} in use by the running codex-bridge PID ${holder.pid} on ${holder.hostname} (since ${holder.startedAt}); every page read back sound`;
  const checks = report.checks.map((c) => (c.name === "sqlite" ? { name: "sqlite", ok: !damage, detail } : c));
  return {
    ...report,
    healthy: checks.every((c) => c.ok),
    sqlite: { path: locked.databasePath, ok: !damage, ...(damage ? { problem: "state_corrupt" } : {}) },
    checks,
    running_bridge: running,
  };
}

/** Every page of the file the running bridge holds, read beside it (SQLite allows readers next to a writer); why not sound, or null. */
async function readOnlyIntegrity(platform: Platform, path: string): Promise<string | null> {
  let db: Awaited<ReturnType<Platform["openDatabase"]>> | null = null;
  try {
    db = await platform.openDatabase(path);
    db.exec("PRAGMA busy_timeout=5000");
    checkIntegrity(db, path, path, "full");
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    db?.close();
  }
}
