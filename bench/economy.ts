// npm run bench:economy [-- --json]: what a careful supervisor reads to follow the issue's standard task, with and
// without approvals, against the targets and the peer's measured figures. A benchmark: it always exits 0 when the
// task ran, and marks rows over target instead of failing.
import { getPlatform } from "../platform/index.ts";
import { economyFigures, runStandardTask, type EconomyFigures, type StandardRun, type Variant } from "./standard-task.ts";

export const TARGETS = {
  no_approvals: { chars: 5_000, calls: 6 },
  approvals: { chars: 7_500, calls: 10 },
  toolsList: 12_000,
} as const;

/** Measured through zoeynine/Local-Codex-Bridge 2.1.2 on the same task (issue 8). */
export const PEER = {
  no_approvals: { chars: 52_221, calls: 26 },
  approvals: { chars: 61_051, calls: 36 },
  toolsList: 12_013,
} as const;

export interface VariantReport extends EconomyFigures {
  variant: Variant;
  finalState: string;
  approvals: number;
  target: { chars: number; calls: number };
  peer: { chars: number; calls: number };
  overTarget: boolean;
}

export interface EconomyReport {
  variants: VariantReport[];
  toolsList: { chars: number; tools: number; target: number; peer: number; overTarget: boolean };
}

function variantReport(run: StandardRun): VariantReport {
  const f = economyFigures(run);
  const target = TARGETS[run.variant];
  return {
    variant: run.variant,
    finalState: run.finalState,
    approvals: run.decisions.length,
    ...f,
    target,
    peer: PEER[run.variant],
    overTarget: f.totalChars > target.chars || f.calls > target.calls || run.finalState !== "completed",
  };
}

export async function measureEconomy(): Promise<EconomyReport> {
  const platform = await getPlatform();
  const runs = [await runStandardTask(platform, "no_approvals"), await runStandardTask(platform, "approvals")];
  const list = JSON.parse(runs[0]!.toolsList) as { tools: unknown[] };
  const chars = runs[0]!.toolsList.length;
  return {
    variants: runs.map(variantReport),
    toolsList: { chars, tools: list.tools.length, target: TARGETS.toolsList, peer: PEER.toolsList, overTarget: chars > TARGETS.toolsList },
  };
}

const n = (x: number) => x.toLocaleString("en-US");
const ratio = (ours: number, peer: number) => (ours === 0 ? "-" : `${(peer / ours).toFixed(1)}x less`);

export function economyRows(r: EconomyReport): string[][] {
  const rows: string[][] = [["measure", "figure", "target", "peer", "vs peer", "note"]];
  for (const v of r.variants) {
    rows.push([
      `${v.variant === "approvals" ? `${v.approvals} approvals` : "no approvals"}: chars (text+structured)`,
      n(v.totalChars),
      `<= ${n(v.target.chars)}`,
      n(v.peer.chars),
      ratio(v.totalChars, v.peer.chars),
      v.totalChars > v.target.chars ? `OVER by ${n(v.totalChars - v.target.chars)}` : "ok",
    ]);
    rows.push([
      "  calls",
      String(v.calls),
      `<= ${v.target.calls}`,
      String(v.peer.calls),
      ratio(v.calls, v.peer.calls),
      v.calls > v.target.calls ? `OVER by ${v.calls - v.target.calls}` : "ok",
    ]);
    rows.push([`  text / structured chars`, `${n(v.textChars)} / ${n(v.structuredChars)}`, "", "", "", ""]);
    rows.push([`  largest single result`, `${n(v.largestResult.chars)} (${v.largestResult.tool})`, "", "", "", ""]);
    if (v.finalState !== "completed") rows.push([`  final state`, v.finalState, "completed", "", "", "NOT COMPLETED"]);
  }
  const t = r.toolsList;
  rows.push([
    `tools/list chars (${t.tools} tools)`,
    n(t.chars),
    `<= ${n(t.target)}`,
    n(t.peer),
    `${(t.chars / t.peer).toFixed(2)}x the size`,
    t.overTarget ? `OVER by ${n(t.chars - t.target)}` : "ok",
  ]);
  return rows;
}

export function formatTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  // First and last columns are words (left-aligned); the ones between are figures (right-aligned).
  const last = widths.length - 1;
  return rows.map((r) => r.map((c, i) => (i === 0 || i === last ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ").trimEnd()).join("\n");
}

export function perToolRows(r: EconomyReport): string[][] {
  const rows: string[][] = [["variant / tool", "calls", "text", "structured"]];
  for (const v of r.variants) {
    for (const [tool, f] of Object.entries(v.perTool)) rows.push([`${v.variant} ${tool}`, String(f.calls), n(f.textChars), n(f.structuredChars)]);
  }
  return rows;
}

// Bun sets import.meta.main for the entry module; run.ts imports this file without running it.
if ((import.meta as { main?: boolean }).main) {
  const json = process.argv.includes("--json");
  const report = await measureEconomy();
  if (json) process.stdout.write(JSON.stringify(report, null, 2) + "\n");
  else {
    process.stdout.write("Supervisor economy: the standard task (issue 8) through the MCP surface, real Codex, mock model\n\n");
    process.stdout.write(formatTable(economyRows(report)) + "\n\n" + formatTable(perToolRows(report)) + "\n");
  }
}
