// bun bench/economy-transcript.ts OUT.json: every tool call of the standard task (both variants) with ids, times and
// temp paths and commit hashes normalized, so two builds can be compared byte for byte (how a refactor proves it changed no output).
import { writeFileSync } from "node:fs";
import { getPlatform } from "../platform/index.ts";
import { runStandardTask } from "./standard-task.ts";
const out = process.argv[2]!;
const p = await getPlatform();
const norm = (s: string) => s.replace(/\bt_[0-9a-f]{10}\b/g, "t_X").replace(/\br_[0-9a-f]{10}\b/g, "r_X").replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "UUID").replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "TS").replace(/\/tmp\/[^"\s]*/g, "TMP").replace(/\b\d+(\.\d+)?\s?(ms|s)\b/g, "N$2").replace(/\b[0-9a-f]{40}\b/g, "SHA").replace(/\bHEAD [0-9a-f]{12}\b/g, "HEAD SHA");
const res: Record<string, unknown> = {};
for (const v of ["no_approvals", "approvals"] as const) {
  const r = await runStandardTask(p, v);
  res[v] = { calls: r.calls.map((c) => ({ tool: c.tool, args: norm(JSON.stringify(c.args)), text: norm(c.text), structured: norm(c.structured) })), toolsList: r.toolsList };
}
writeFileSync(out, JSON.stringify(res, null, 1));
