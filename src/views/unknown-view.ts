// How an unresolved UNKNOWN reads in codex_status and codex_wait: what timed out, since when, and what evidence would
// settle it. Kept apart so both views say it the same way, once.
import type { TaskRow } from "../store/rows.ts";
import { resolvesOn } from "../tasks/unknown-evidence.ts";

export interface UnknownView {
  method: string;
  since: string;
  request: number | string | undefined;
  turn_id?: string;
  resolves_on: string[];
  /** Why the last explicit check (codex_status) did not settle it. */
  checked?: string;
}

export function unknownView(t: TaskRow, checked?: string | null): UnknownView | undefined {
  const u = t.unknown;
  if (!u) return undefined;
  return { method: u.method, since: u.at, request: u.rpc_id, ...(u.turn_id ? { turn_id: u.turn_id } : {}), resolves_on: resolvesOn(u), ...(checked ? { checked } : {}) };
}

/** One line for a wait's delta_summary.unresolved. */
export function unknownLine(t: TaskRow): string | undefined {
  const v = unknownView(t);
  if (!v) return undefined;
  return `${v.method} outcome UNKNOWN since ${v.since} (may have been accepted; never resent); settles on: ${v.resolves_on.join("; ")}`;
}

/** A settled UNKNOWN, for a wait's delta_summary.changes. */
export function resolvedLine(d: Record<string, unknown>): string {
  const turn = typeof d.turn_id === "string" ? ` as turn ${d.turn_id}${typeof d.status === "string" ? ` (${d.status})` : ""}` : "";
  return `UNKNOWN ${String(d.method)} settled by ${String(d.by)}: ${String(d.outcome)}${turn}`;
}
