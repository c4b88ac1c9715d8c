// npm run bench [-- --json]: the figures that matter for this product in one table. Supervisor economy (issue 8),
// event ingestion through the real app-server, codex_wait wake latency, cold start. A report, not a test: nothing
// here asserts; over-target rows are marked.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { getPlatform } from "../platform/index.ts";
import type { Platform } from "../platform/types.ts";
import { startHarness, type Harness } from "../src/selftest/harness.ts";
import { economyRows, formatTable, measureEconomy, type EconomyReport } from "./economy.ts";

const SETTLED = new Set(["completed", "failed", "interrupted", "connection_lost", "unknown"]);
const INGEST_DELTAS = 5_000;
const WAKE_SAMPLES = 9;
const COLD_RUNS = 5;

type Obj = Record<string, unknown>;
const sc = (r: { structuredContent?: unknown }) => (r.structuredContent ?? {}) as Obj;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function startTask(h: Harness, prompt: string): Promise<string> {
  const r = await h.call("codex_start", { project_id: "demo", prompt });
  if (r.isError) throw new Error(`codex_start failed: ${JSON.stringify(r.content)}`);
  return String(sc(r).task_id);
}

export interface IngestFigures {
  deltas: number;
  textChars: number;
  /** From codex_start returning to the codex_wait that reports the turn completed. */
  ms: number;
  deltasPerSecond: number;
  eventsStored: number;
  eventsPerDelta: number;
  waits: number;
}

/** One long streamed message through the real app-server and the bridge's ingestion. */
export async function measureIngest(platform: Platform): Promise<IngestFigures> {
  const h = await startHarness(platform, { mockProvider: true, approvalPolicy: "never" });
  try {
    const text = "word ".repeat(INGEST_DELTAS).trimEnd() + ".";
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text, deltas: INGEST_DELTAS }] });
    const taskId = await startTask(h, "stream a long answer");
    const t0 = performance.now();
    let waits = 0;
    let turnDone = false;
    while (!turnDone && waits < 100) {
      const w = sc(await h.call("codex_wait", { task_id: taskId }));
      waits++;
      turnDone = w.turn !== undefined || SETTLED.has(String(w.state));
    }
    const ms = performance.now() - t0;
    const eventsStored = h.bridge.sup.repo.events(taskId, 0, 1_000_000).length;
    return {
      deltas: INGEST_DELTAS,
      textChars: text.length,
      ms,
      deltasPerSecond: (INGEST_DELTAS / ms) * 1000,
      eventsStored,
      eventsPerDelta: eventsStored / INGEST_DELTAS,
      waits,
    };
  } finally {
    await h.close();
  }
}

export interface WakeFigures {
  samples: number[];
  medianMs: number;
  maxMs: number;
  /** The same path split where the bridge stores the message and wakes its waiters: Codex's share, then the bridge's. */
  emitToStoredMedianMs: number;
  storedToReturnMedianMs: number;
}

/**
 * Time from the mock model emitting a message to the blocked codex_wait returning it. Each sample is one model
 * response: a short message, then a `sleep` so the supervisor's next wait is already blocked when the next one comes.
 */
export async function measureWake(platform: Platform): Promise<WakeFigures> {
  const h = await startHarness(platform, { mockProvider: true, approvalPolicy: "never" });
  try {
    const emittedAt: number[] = [];
    h.provider!.setResponder((_req, index) => {
      if (index >= WAKE_SAMPLES) return { kind: "output", items: [{ type: "message", text: "done" }] };
      emittedAt[index] = performance.timeOrigin + performance.now();
      return { kind: "output", items: [{ type: "message", text: `tick-${index}` }, { type: "exec", cmd: "sleep 0.4" }] };
    });
    const taskId = await startTask(h, "tick");
    // The supervisor wakes its waiters right after storing new events; note when each tick became readable.
    const storedAt: number[] = [];
    let seenSeq = 0;
    const repo = h.bridge.sup.repo;
    const off = h.bridge.sup.addWaiter(taskId, () => {
      const now = performance.timeOrigin + performance.now();
      for (const e of repo.events(taskId, seenSeq, 1000)) {
        seenSeq = e.seq;
        const k = e.kind === "message" ? /^tick-(\d+)$/.exec(String(e.data.text)) : null;
        if (k && storedAt[Number(k[1])] === undefined) storedAt[Number(k[1])] = now;
      }
    });
    const samples: number[] = [];
    const codexShare: number[] = [];
    const bridgeShare: number[] = [];
    for (let i = 0; i < 4 * WAKE_SAMPLES && samples.length < WAKE_SAMPLES; i++) {
      const w = sc(await h.call("codex_wait", { task_id: taskId }));
      const returnedAt = performance.timeOrigin + performance.now();
      for (const m of Array.isArray(w.messages) ? w.messages : []) {
        const k = /^tick-(\d+)$/.exec(String(m));
        const emitted = k ? emittedAt[Number(k[1])] : undefined;
        if (emitted === undefined) continue;
        samples.push(returnedAt - emitted);
        const stored = storedAt[Number(k![1])];
        if (stored !== undefined) {
          codexShare.push(stored - emitted);
          bridgeShare.push(returnedAt - stored);
        }
      }
      if (SETTLED.has(String(w.state))) break;
    }
    off();
    const med = (xs: number[]) => (xs.length ? median(xs) : NaN);
    return {
      samples,
      medianMs: med(samples),
      maxMs: samples.length ? Math.max(...samples) : NaN,
      emitToStoredMedianMs: med(codexShare),
      storedToReturnMedianMs: med(bridgeShare),
    };
  } finally {
    await h.close();
  }
}

export interface ColdStart {
  what: string;
  medianMs: number;
  runs: number;
  output: string;
}

async function coldStart(platform: Platform, what: string, command: string, args: string[]): Promise<ColdStart> {
  const times: number[] = [];
  let output = "";
  for (let i = 0; i < COLD_RUNS; i++) {
    const t0 = performance.now();
    const child = platform.spawn(command, args, { cwd: process.cwd(), env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/" } });
    let out = "";
    child.onStdout((c) => (out += c));
    child.endStdin();
    const exit = await child.exited;
    times.push(performance.now() - t0);
    // The version line without the build fingerprint, which is long and says nothing about speed.
    output = exit.code === 0 ? out.trim().replace(/ fingerprint=\S+/, "") : `exit ${exit.code ?? exit.signal}`;
  }
  return { what, medianMs: median(times), runs: COLD_RUNS, output };
}

export async function measureColdStarts(platform: Platform): Promise<ColdStart[]> {
  const bun = join(process.cwd(), "node_modules", ".bin", "bun");
  const out = [await coldStart(platform, "bun src/cli/main.ts --version", bun, ["src/cli/main.ts", "--version"])];
  const binary = join(process.cwd(), "dist-binaries", "codex-bridge-linux-x64");
  if (existsSync(binary)) out.push(await coldStart(platform, "dist-binaries/codex-bridge-linux-x64 --version", binary, ["--version"]));
  return out;
}

export interface BenchReport {
  economy: EconomyReport;
  ingest: IngestFigures;
  wake: WakeFigures;
  coldStarts: ColdStart[];
}

const ms = (x: number) => `${Math.round(x).toLocaleString("en-US")} ms`;

export function benchRows(r: BenchReport): string[][] {
  const rows = economyRows(r.economy);
  const i = r.ingest;
  rows.push(
    [`ingest: ${i.deltas.toLocaleString("en-US")}-delta message, turn start to wait`, ms(i.ms), "", "", "", `${Math.round(i.deltasPerSecond).toLocaleString("en-US")} deltas/s`],
    [`  events stored per delta`, i.eventsPerDelta.toFixed(3), "", "", "", `${i.eventsStored} events, ${i.waits} wait(s)`],
    [`codex_wait wake latency (mock emits -> wait returns), median of ${r.wake.samples.length}`, ms(r.wake.medianMs), "", "", "", `max ${ms(r.wake.maxMs)}`],
    [`  of which Codex to stored / stored to wait return`, `${ms(r.wake.emitToStoredMedianMs)} / ${ms(r.wake.storedToReturnMedianMs)}`, "", "", "", ""],
  );
  for (const c of r.coldStarts) rows.push([`cold start: ${c.what}`, ms(c.medianMs), "", "", "", `median of ${c.runs}; ${c.output}`]);
  return rows;
}

if ((import.meta as { main?: boolean }).main) {
  const platform = await getPlatform();
  const report: BenchReport = {
    economy: await measureEconomy(),
    ingest: await measureIngest(platform),
    wake: await measureWake(platform),
    coldStarts: await measureColdStarts(platform),
  };
  if (process.argv.includes("--json")) process.stdout.write(JSON.stringify(report, null, 2) + "\n");
  else process.stdout.write(`codex-bridge benchmarks (${platform.name}, real Codex, loopback mock model)\n\n${formatTable(benchRows(report))}\n`);
}
