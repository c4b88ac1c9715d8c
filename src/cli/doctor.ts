// `codex-bridge doctor [--json]`: the health report from the command line; exit 0 when healthy.
import type { Platform } from "../../platform/types.ts";
import { renderHealth } from "../mcp/tools/render.ts";
import { StoreLockedError } from "../store/lock.ts";
import { assembleBridge, describeStartupError } from "../app/assemble.ts";
import { healthBesideRunningBridge, type DoctorReport } from "./doctor-beside-bridge.ts";
import { Logger } from "../log.ts";

const stderr = new Logger();

export async function runDoctor(platform: Platform, args: string[]): Promise<number> {
  const json = args.includes("--json");
  const unknown = args.filter((a) => a !== "--json");
  if (unknown.length) {
    stderr.plain(`codex-bridge doctor: unknown option ${unknown[0]}; usage: codex-bridge doctor [--json]`);
    return 2;
  }
  let report: DoctorReport;
  try {
    const bridge = await assembleBridge(platform, { env: process.env, cwd: process.cwd(), log: () => {}, lockWaitMs: 1000, integrity: "full" });
    try {
      report = await bridge.health();
    } finally {
      await bridge.close();
    }
  } catch (startupError) {
    let err = startupError;
    if (err instanceof StoreLockedError) {
      // A bridge serving on this database holds its lock: report it and check the rest beside it.
      try {
        const beside = await healthBesideRunningBridge(platform, err, process.env, process.cwd());
        if (beside) return printReport(beside, json);
      } catch (besideError) {
        err = besideError;
      }
    }
    const message = describeStartupError(err);
    if (json) process.stdout.write(JSON.stringify({ healthy: false, error: message }, null, 2) + "\n");
    else stderr.plain(`UNHEALTHY: ${message}`);
    return 1;
  }
  return printReport(report, json);
}

function printReport(report: DoctorReport, json: boolean): number {
  if (json) process.stdout.write(JSON.stringify(report, null, 2) + "\n");
  else {
    process.stdout.write(renderHealth(report) + "\n");
    const r = report.running_bridge;
    if (r) process.stdout.write(`running: codex-bridge PID ${r.pid} on ${r.hostname} since ${r.started_at} serves ${r.state}\n`);
    for (const w of report.warnings ?? []) process.stdout.write(`warning: ${w}\n`);
  }
  return report.healthy ? 0 : 1;
}
