import type { Platform } from "../../platform/types.ts";
import { renderHealth } from "../mcp/admin-tools.ts";
import { assembleBridge, describeStartupError } from "../app/assemble.ts";

export async function runDoctor(platform: Platform, args: string[]): Promise<number> {
  const json = args.includes("--json");
  const unknown = args.filter((a) => a !== "--json");
  if (unknown.length) {
    process.stderr.write(`codex-bridge doctor: unknown option ${unknown[0]}; usage: codex-bridge doctor [--json]\n`);
    return 2;
  }
  let report;
  try {
    const bridge = await assembleBridge(platform, { env: process.env, cwd: process.cwd(), log: () => {}, lockWaitMs: 1000 });
    try {
      report = await bridge.health();
    } finally {
      await bridge.close();
    }
  } catch (err) {
    const message = describeStartupError(err);
    if (json) process.stdout.write(JSON.stringify({ healthy: false, error: message }, null, 2) + "\n");
    else process.stderr.write(`UNHEALTHY: ${message}\n`);
    return 1;
  }
  if (json) process.stdout.write(JSON.stringify(report, null, 2) + "\n");
  else {
    process.stdout.write(renderHealth(report) + "\n");
    for (const w of report.warnings ?? []) process.stdout.write(`warning: ${w}\n`);
  }
  return report.healthy ? 0 : 1;
}
