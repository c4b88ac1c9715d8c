// Test support for `npm run test:reliability`: the full or quick scale, a seeded random source (the seed is printed, so
// a run can be repeated), the figures each phase records for the summary printed at the end, and the two promises
// every phase checks on a stdio bridge: it answers ping within a second, and exits within a second of stdin EOF.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, inject, onTestFailed } from "vitest";
import type { BridgeSetup } from "./bridge-process.ts";
import type { TunnelEmulator } from "./tunnel-emulator.ts";

declare module "vitest" {
  export interface ProvidedContext {
    reliabilityFiguresDir: string;
  }
}

/** RELIABILITY_QUICK=1: the bounded subset CI runs (the whole suite in about five minutes). */
export const QUICK = process.env.RELIABILITY_QUICK === "1";

export function scale(full: number, quick: number): number {
  return QUICK ? quick : full;
}

/** The run's seed: RELIABILITY_SEED when set (CI sets a fresh one and prints it), else one drawn now. */
function runSeed(): number {
  const given = process.env.RELIABILITY_SEED;
  if (given === undefined || given === "") return Date.now() % 1_000_000_007;
  const n = Number(given);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`RELIABILITY_SEED must be a non-negative integer, got ${JSON.stringify(given)}`);
  return n;
}

/**
 * A small deterministic generator (mulberry32) for one random phase; call it inside the test. When the test fails, the
 * seed, the command that repeats the run and the last input the phase noted (`note`) are printed.
 */
export function seeded(phase: string): Random {
  const base = runSeed();
  const random = seededWith(base, phase);
  onTestFailed(() => {
    console.error(`[${phase}] failed with RELIABILITY_SEED=${base}; repeat it: RELIABILITY_SEED=${base} npm run test:reliability\n[${phase}] last input: ${random.lastInput()}`);
  });
  return random;
}

/** The same generator for a given seed, outside any test's failure report. */
export function seededWith(base: number, phase = ""): Random & { lastInput(): string } {
  let lastInput = "(none noted)";
  let h = base;
  for (const ch of phase) h = Math.imul(h ^ ch.charCodeAt(0), 2654435761) >>> 0;
  let a = h >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    seed: base,
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
    note: (input) => {
      lastInput = input.length > 2_000 ? `${input.slice(0, 2_000)}… (${input.length} characters)` : input;
    },
    lastInput: () => lastInput,
  };
}

export interface Random {
  seed: number;
  next(): number;
  /** An integer from lo to hi, both included. */
  int(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  /** Records the input about to be tried, printed if the test fails. */
  note(input: string): void;
}

/** The figures of one phase; the global teardown prints them all. `hangs` and `leaks` add up across phases. */
export type Figures = Record<string, number | string>;

export function recordFigures(phase: string, figures: Figures): void {
  const dir = inject("reliabilityFiguresDir");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${phase.replace(/[^a-z0-9]+/gi, "-")}.json`), JSON.stringify({ phase, figures, quick: QUICK, binary: process.env.CODEX_BRIDGE_BIN ?? null }));
}

/** What a phase holds: its bridge setup, the emulator in use and other processes it started; released after it. */
export interface PhaseHold {
  setup: BridgeSetup | null;
  tunnel: TunnelEmulator | null;
  pids: number[];
}

/** A hold released (processes killed, files removed) after the phase, however it ended. */
export function holdForPhase(): PhaseHold {
  const held: PhaseHold = { setup: null, tunnel: null, pids: [] };
  afterAll(async () => {
    if (held.tunnel?.exit === null) killQuietly(held.tunnel.pid);
    for (const pid of held.pids) killQuietly(pid);
    await held.setup?.cleanup();
  });
  return held;
}

/** SIGKILL to a process this suite started, if it still exists. */
export function killQuietly(pid: number | undefined): void {
  if (!pid || pid <= 0) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    /* already gone */
  }
}

/** Sends ping and returns how long the answer took; null when none came within `deadlineMs`. */
export async function pingMs(t: TunnelEmulator, deadlineMs = 5_000): Promise<number | null> {
  const started = Date.now();
  try {
    const res = await t.request("ping", undefined, { deadlineMs });
    return "result" in res ? Date.now() - started : null;
  } catch {
    return null;
  }
}

/** Counts what the two promises cost a phase: pings slower than a second, and exits slower than a second after EOF. */
export class Responsiveness {
  pings = 0;
  slowPings = 0;
  maxPingMs = 0;
  exits = 0;
  slowExits = 0;
  maxExitMs = 0;

  async ping(t: TunnelEmulator): Promise<boolean> {
    const ms = await pingMs(t);
    this.pings++;
    if (ms === null || ms > 1000) this.slowPings++;
    this.maxPingMs = Math.max(this.maxPingMs, ms ?? 5_000);
    return ms !== null && ms <= 1000;
  }

  /** Closes stdin the tunnel's way; the bridge must exit by itself within a second (SIGTERM only after 10 s). */
  async stop(t: TunnelEmulator): Promise<boolean> {
    const report = await t.stop();
    this.exits++;
    const ms = report.exitMs ?? Number.POSITIVE_INFINITY;
    const ok = report.exited && !report.sentSigterm && ms <= 1000;
    if (!ok) this.slowExits++;
    this.maxExitMs = Math.max(this.maxExitMs, Number.isFinite(ms) ? ms : 99_999);
    if (!report.exited && t.pid > 0) process.kill(t.pid, "SIGKILL");
    return ok;
  }

  get hangs(): number {
    return this.slowPings + this.slowExits;
  }

  figures(): Figures {
    return { pings: this.pings, "max ping ms": this.maxPingMs, "EOF exits": this.exits, "max exit ms": this.maxExitMs, hangs: this.hangs };
  }
}
