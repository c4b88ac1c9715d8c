// Summaries of repeated measurements (min / median / max, percentiles) and of a bridge figure beside its raw
// counterpart, for the performance benchmark's table and results.json.

export interface Summary {
  n: number;
  min: number;
  median: number;
  max: number;
  p99: number;
  mean: number;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  // Nearest rank: p99 of 50 samples is the largest one, never an interpolation between two of them.
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}

export function summarize(xs: number[]): Summary {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  const median = s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  return {
    n: s.length,
    min: s[0] ?? NaN,
    median,
    max: s[s.length - 1] ?? NaN,
    p99: quantile(s, 0.99),
    mean: s.length ? s.reduce((a, b) => a + b, 0) / s.length : NaN,
  };
}

/** One row of the comparison: the bridge's samples beside the raw app-server's, taken in the same run. */
export interface Paired {
  raw: Summary | null;
  bridge: Summary;
  /** bridge median / raw median. */
  ratio: number | null;
  /** bridge median - raw median. */
  delta: number | null;
}

export function paired(raw: number[] | null, bridge: number[]): Paired {
  const r = raw ? summarize(raw) : null;
  const b = summarize(bridge);
  return { raw: r, bridge: b, ratio: r && r.median > 0 ? b.median / r.median : null, delta: r ? b.median - r.median : null };
}

/** Milliseconds since the epoch with sub-millisecond resolution; comparable across modules of one process. */
export const nowMs = (): number => performance.timeOrigin + performance.now();
