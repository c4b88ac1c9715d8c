// npm run bench:economy [-- --json]: what a careful supervisor reads to follow the issue's standard task, with and
// without approvals, and a long task (issue 15) alone and three at once, against the targets and the peer's
// measured figures. A benchmark: it always exits 0 when the tasks ran, and marks rows over target instead of failing.
import { getPlatform } from "../platform/index.ts";
import { runLongTasks, WAIT_SECONDS, WORK_TO_WAIT, type LongRun } from "./long-task.ts";
import { economyFigures, runStandardTask, type CallRecord, type EconomyFigures, type StandardRun, type Variant } from "./standard-task.ts";

export const TARGETS = {
  no_approvals: { chars: 5_000, calls: 6 },
  approvals: { chars: 7_500, calls: 10 },
  toolsList: 12_000,
  long: { chars: 9_000, calls: 32 },
  /** Three long tasks through one codex_wait, relative to one long task. */
  parallel: { chars: 2.2, calls: 1.3 },
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

export interface LongReport extends EconomyFigures {
  tasks: number;
  finalStates: string[];
  /** How long the work lasted, in wait lengths (a 10-minute task polled every 25 s: 24). */
  waitLengths: number;
  /** The waits that brought no news, and what they cost: the polling itself. */
  idle: { waits: number; chars: number };
}

/** A wait answer without news: one task's state line, or several tasks' states counted. */
function isIdle(c: CallRecord): boolean {
  const s = (c.structuredContent ?? {}) as Record<string, unknown>;
  return Object.keys(s).every((k) => ["state", "ran_s", "command"].includes(k)) || Object.values(s).every((v) => typeof v === "number");
}

export interface EconomyReport {
  variants: VariantReport[];
  toolsList: { chars: number; tools: number; target: number; peer: number; overTarget: boolean };
  long: LongReport;
  parallel: LongReport;
}

function longReport(run: LongRun): LongReport {
  const idle = run.calls.filter((c) => c.tool === "codex_wait" && isIdle(c));
  const chars = idle.reduce((sum, c) => sum + c.text.length + c.structured.length, 0);
  return { tasks: run.tasks, finalStates: run.finalStates, waitLengths: run.waitLengths, idle: { waits: idle.length, chars }, ...economyFigures(run) };
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
    long: longReport(await runLongTasks(platform, 1)),
    parallel: longReport(await runLongTasks(platform, 3)),
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
  rows.push(...longRows(r));
  return rows;
}

const over = (figure: number, target: number, fmt: (x: number) => string = (x) => n(Math.ceil(x))) => (figure > target ? `OVER by ${fmt(figure - target)}` : "ok");

function longRows(r: EconomyReport): string[][] {
  const { long, parallel } = r;
  const pace = (x: LongReport) => `work lasted ${x.waitLengths.toFixed(1)} waits of ${WAIT_SECONDS} s (target pace ${WORK_TO_WAIT})`;
  const charsCap = TARGETS.parallel.chars * long.totalChars;
  const callsCap = TARGETS.parallel.calls * long.calls;
  const rows: string[][] = [
    [`long task (10 min, 25 s waits, scaled): chars`, n(long.totalChars), `<= ${n(TARGETS.long.chars)}`, "", "", over(long.totalChars, TARGETS.long.chars)],
    ["  calls", String(long.calls), `<= ${TARGETS.long.calls}`, "", "", over(long.calls, TARGETS.long.calls)],
    ["  text / structured chars", `${n(long.textChars)} / ${n(long.structuredChars)}`, "", "", "", pace(long)],
    ["  waits without news: count / chars", `${long.idle.waits} / ${n(long.idle.chars)}`, "", "", "", `${long.idle.waits ? Math.round(long.idle.chars / long.idle.waits) : 0} chars each`],
    [`three long tasks, one codex_wait: chars`, n(parallel.totalChars), `<= ${n(Math.floor(charsCap))}`, "", `${(parallel.totalChars / long.totalChars).toFixed(2)}x one`, over(parallel.totalChars, charsCap)],
    ["  calls", String(parallel.calls), `<= ${Math.floor(callsCap)}`, "", `${(parallel.calls / long.calls).toFixed(2)}x one`, over(parallel.calls, callsCap, (x) => x.toFixed(1))],
    ["  text / structured chars", `${n(parallel.textChars)} / ${n(parallel.structuredChars)}`, "", "", "", pace(parallel)],
    ["  waits without news: count / chars", `${parallel.idle.waits} / ${n(parallel.idle.chars)}`, "", "", `${(parallel.idle.chars / Math.max(1, long.idle.chars)).toFixed(2)}x one`, "the polling, shared by the three"],
  ];
  for (const x of [long, parallel]) {
    const notDone = x.finalStates.filter((st) => st !== "completed");
    if (notDone.length) rows.push([`  final states (${x.tasks} task(s))`, x.finalStates.join(", "), "completed", "", "", "NOT COMPLETED"]);
  }
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
  for (const [name, x] of [["long", r.long], ["parallel", r.parallel]] as const) {
    for (const [tool, f] of Object.entries(x.perTool)) rows.push([`${name} ${tool}`, String(f.calls), n(f.textChars), n(f.structuredChars)]);
  }
  return rows;
}

// Bun sets import.meta.main for the entry module; run.ts imports this file without running it.
if ((import.meta as { main?: boolean }).main) {
  const json = process.argv.includes("--json");
  const report = await measureEconomy();
  if (json) process.stdout.write(JSON.stringify(report, null, 2) + "\n");
  else {
    process.stdout.write("Supervisor economy: the standard task (issue 8) and the long task (issue 15) through the MCP surface, real Codex, mock model\n\n");
    process.stdout.write(formatTable(economyRows(report)) + "\n\n" + formatTable(perToolRows(report)) + "\n");
  }
}
