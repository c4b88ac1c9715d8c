// The performance table: each figure's raw app-server and bridge samples (min / median / max) side by side, the
// ratio or difference, the target and whether it was met; and the same as JSON for bench/results.json.
import type { ArtifactFigures } from "./artifact.ts";
import type { FakeFigures } from "./fake-figures.ts";
import { paired, summarize, type Paired, type Summary } from "./stats.ts";
import type { StartupFigures } from "./startup.ts";
import type { TurnFigures } from "./turns.ts";

/** Every section in a full run; `--only` runs leave the others out. */
export interface PerfReport {
  startup?: StartupFigures;
  turns?: TurnFigures;
  fake?: FakeFigures;
  artifact?: ArtifactFigures;
}

export interface Row {
  figure: string;
  unit: "ms" | "MiB" | "events/s" | "count";
  raw: Summary | null;
  bridge: Summary;
  /** "0.42x" or "+1.9 ms". */
  compare: string;
  target: string;
  met: boolean | null;
  note?: string;
}

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : "-");
const range = (s: Summary | null, unit: Row["unit"]) => {
  if (!s) return "-";
  if (unit === "events/s") return Math.round(s.median).toLocaleString("en-US");
  if (s.n === 1) return f1(s.median);
  return `${f1(s.min)} / ${f1(s.median)} / ${f1(s.max)}`;
};

function one(x: number | null): Summary {
  return summarize(x === null ? [] : [x]);
}

function timeRow(figure: string, p: Paired, target: string, met: boolean | null, mode: "ratio" | "delta", note?: string): Row {
  const compare = mode === "ratio" ? (p.ratio === null ? "-" : `${p.ratio.toFixed(2)}x`) : p.delta === null ? "-" : `${p.delta >= 0 ? "+" : ""}${p.delta.toFixed(1)} ms`;
  return { figure, unit: "ms", raw: p.raw, bridge: p.bridge, compare, target, met, note };
}

export function perfRows(r: PerfReport): Row[] {
  return [...(r.startup ? startupRows(r.startup) : []), ...(r.turns ? turnRows(r.turns) : []), ...(r.fake ? fakeRows(r.fake) : []), ...(r.artifact ? artifactRows(r.artifact) : [])];
}

function startupRows(s: StartupFigures): Row[] {
  const rows: Row[] = [];
  const start = paired(s.raw.initializeMs, s.bridge.initializeMs);
  rows.push(timeRow("spawn → initialize answered (with a config)", start, "≤ 0.5x raw", start.ratio !== null ? start.ratio <= 0.5 : null, "ratio"));
  const bare = paired(s.raw.initializeMs, s.bridgeNoConfig.initializeMs);
  rows.push(timeRow("spawn → initialize answered (no config)", bare, "≤ 0.5x raw", bare.ratio !== null ? bare.ratio <= 0.5 : null, "ratio"));
  rows.push(timeRow("spawn → tools/list answered (bridge)", paired(null, s.bridge.toolsListMs), "", null, "ratio", "everything loaded"));
  const idle = summarize(s.idleNoConfigRssMiB);
  rows.push({ figure: "RSS idle, no config (2 s after initialize + tools/list)", unit: "MiB", raw: null, bridge: idle, compare: "", target: "≤ 40 MB", met: idle.n ? idle.median <= 40 : null });
  return rows;
}

function turnRows(t: TurnFigures): Row[] {
  const rows: Row[] = [];
  const early = t.raw.slice(0, 19);
  const earlyB = t.bridge.slice(0, 19);
  const p20 = paired(early, earlyB);
  rows.push(timeRow(`trivial turn, turns 2–${Math.min(20, t.turns)}`, p20, "≤ raw + 3 ms", p20.delta !== null ? p20.delta <= 3 : null, "delta"));
  if (t.turns > 20) {
    const all = paired(t.raw, t.bridge);
    rows.push(timeRow(`trivial turn, turns 2–${t.turns}`, all, "≤ raw + 3 ms, flat", all.delta !== null ? all.delta <= 3 : null, "delta"));
    const last = paired(t.raw.slice(-20), t.bridge.slice(-20));
    rows.push(timeRow(`  last 20 turns (${t.turns - 19}–${t.turns})`, last, "flat", Math.abs(last.bridge.median - p20.bridge.median) <= 3, "delta"));
  }
  rows.push({
    figure: "  CPU per turn: the app-server's / the bridge's own",
    unit: "ms",
    raw: one(t.rawCpuPerTurnMs),
    bridge: one(t.bridgeCpuPerTurnMs),
    compare: "",
    target: "",
    met: null,
    note: "all threads, from schedstat; steadier than wall time on a busy machine (the bridge's app-server is not counted)",
  });
  rows.push({ figure: "RSS after the first turn", unit: "MiB", raw: null, bridge: one(t.rssAfterFirstTurnMiB), compare: "", target: "≤ 45 MB", met: t.rssAfterFirstTurnMiB !== null ? t.rssAfterFirstTurnMiB <= 45 : null });
  if (t.turns > 20) {
    const growth = t.rssAfterLastTurnMiB !== null && t.rssAfterFirstTurnMiB !== null ? t.rssAfterLastTurnMiB - t.rssAfterFirstTurnMiB : null;
    rows.push({ figure: `RSS after ${t.turns} turns`, unit: "MiB", raw: null, bridge: one(t.rssAfterLastTurnMiB), compare: growth === null ? "-" : `+${f1(growth)} MiB`, target: "growth ≤ 5 MB", met: growth !== null ? growth <= 5 : null });
  }

  const d = t.deltas;
  const dl = paired(d.raw, d.bridge);
  rows.push(timeRow(`5,000-delta message, turn start → terminal seen`, dl, "≤ raw + 10 ms, 0 lost", dl.delta !== null ? dl.delta <= 10 && d.bridgeLost === 0 : null, "delta", `deltas lost: raw ${d.rawLost}, bridge ${d.bridgeLost}`));
  rows.push(timeRow(`  mock finished → terminal seen`, paired(d.rawAfterMock, d.bridgeAfterMock), "", null, "delta"));
  return rows;
}

function fakeRows(fake: FakeFigures): Row[] {
  const rows: Row[] = [];
  const st = fake.storm;
  const rawRate = st.raw.seen / (st.raw.ms / 1000);
  const rate = st.bridge.stored / (st.bridge.ms / 1000);
  const lost = st.events - st.bridge.stored;
  rows.push({
    figure: `${st.events.toLocaleString("en-US")}-event storm (fake app-server): events/s stored`,
    unit: "events/s",
    raw: one(rawRate),
    bridge: one(rate),
    compare: `${(rate / rawRate).toFixed(2)}x`,
    target: "≥ 50,000/s, none lost",
    met: rate >= 50_000 && lost === 0,
    note: `lost ${lost}; raw read ${st.raw.seen}; ${st.bridge.waits} waits`,
  });
  rows.push(timeRow(`  storm start → terminal seen`, paired([st.raw.ms], [st.bridge.ms]), "", null, "delta"));
  if (st.bridge.cpuMs !== null) {
    const perSecond = st.events / (st.bridge.cpuMs / 1000);
    rows.push({ figure: "  events per CPU second of the bridge (all threads)", unit: "events/s", raw: null, bridge: one(perSecond), compare: "", target: "", met: null, note: "what the storm rate would be with a core to itself" });
  }
  const wake = paired(fake.wake.raw, fake.wake.bridge);
  rows.push(timeRow("codex_wait wake: event sent → answer received, p50", wake, "", null, "delta"));
  rows.push({ figure: "  p99", unit: "ms", raw: one(wake.raw?.p99 ?? null), bridge: one(wake.bridge.p99), compare: "", target: "p99 ≤ 5 ms", met: wake.bridge.p99 <= 5 });
  const appr = paired(fake.approval.raw, fake.approval.bridge);
  rows.push(timeRow("approval: request sent → visible to the supervisor", appr, "≤ 1 ms after the bridge", appr.delta !== null ? appr.delta <= 1 : null, "delta", "delta = the bridge's share"));
  const status = summarize(fake.statusMs);
  rows.push({ figure: "codex_status round trip, p50", unit: "ms", raw: null, bridge: status, compare: "", target: "", met: null });
  rows.push({ figure: "  p99", unit: "ms", raw: null, bridge: one(status.p99), compare: "", target: "", met: null });
  rows.push({ figure: "  MCP ping round trip (the floor), p50", unit: "ms", raw: null, bridge: summarize(fake.pingMs), compare: "", target: "", met: null });
  return rows;
}

function artifactRows(a: ArtifactFigures): Row[] {
  const rows: Row[] = [];
  const am = summarize(a.ms);
  rows.push({ figure: `32 MiB artifact in ${a.chunks} chunks`, unit: "ms", raw: null, bridge: am, compare: "", target: "≤ 500 ms", met: am.median <= 500 && a.sha256Matches, note: a.sha256Matches ? "sha256 matches" : "SHA-256 MISMATCH" });
  if (a.bridgeCpuMs.length) rows.push({ figure: "  of which the bridge's CPU time", unit: "ms", raw: null, bridge: summarize(a.bridgeCpuMs), compare: "", target: "", met: null });
  if (a.bridgeSysMs.length) rows.push({ figure: "    in the kernel (faults, pipe)", unit: "ms", raw: null, bridge: summarize(a.bridgeSysMs), compare: "", target: "", met: null });
  if (a.bridgePageFaults.length) rows.push({ figure: "    bridge page faults", unit: "count", raw: null, bridge: summarize(a.bridgePageFaults), compare: "", target: "", met: null });
  if (a.clientCpuMs.length) rows.push({ figure: "  the MCP SDK client's CPU time", unit: "ms", raw: null, bridge: summarize(a.clientCpuMs), compare: "", target: "", met: null });
  if (a.lineMs.length) rows.push({ figure: "  bare JSON-RPC reader, same transfer", unit: "ms", raw: null, bridge: summarize(a.lineMs), compare: "", target: "", met: null, note: "the bridge and the pipe without the SDK client" });
  if (a.lineBridgeCpuMs.length) rows.push({ figure: "    of which the bridge's CPU time", unit: "ms", raw: null, bridge: summarize(a.lineBridgeCpuMs), compare: "", target: "", met: null });
  rows.push({ figure: "  peak RSS during the transfers", unit: "MiB", raw: null, bridge: one(a.peakRssMiB), compare: a.rssBeforeMiB === null ? "" : `from ${f1(a.rssBeforeMiB)}`, target: "≤ 128 MiB (4x)", met: a.peakRssMiB !== null ? a.peakRssMiB <= 128 : null });
  return rows;
}

export function formatRows(rows: Row[]): string {
  const head = ["figure", "raw app-server (min / median / max)", "bridge (min / median / max)", "compare", "target", "met"];
  const body = rows.map((r) => [r.figure, range(r.raw, r.unit), `${range(r.bridge, r.unit)} ${r.unit}`, r.compare, r.target, r.met === null ? "" : r.met ? "yes" : "NO"]);
  const all = [head, ...body];
  const widths = head.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  const lines = all.map((row) => row.map((c, i) => (i === 1 || i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ").trimEnd());
  const notes = rows.filter((r) => r.note).map((r) => `  ${r.figure.trim()}: ${r.note}`);
  return [...lines, "", "notes:", ...notes].join("\n");
}
