// What counts as evidence for a mutating request whose acknowledgement timed out (it is never retried; only Codex's own
// evidence settles it): a late answer with the same JSON-RPC id naming a well-formed turn, or a thread/read started
// after the request showing the thread idle with exactly one matching terminal turn. Pure judgement; the caller
// applies it. Anything weaker leaves the outcome UNKNOWN, and nothing here ever leads to resending.
import { THREAD_RESUME, THREAD_START } from "../codex/protocol/thread.ts";
import { TURN_INTERRUPT, TURN_START, TURN_STEER } from "../codex/protocol/turn.ts";
import type { UnknownOutcome } from "../store/rows.ts";

/** Codex's thread and turn ids are UUIDs; anything else is not a well-formed id. */
export const WELL_FORMED_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const TERMINAL_TURN = new Set(["completed", "failed", "interrupted"]);
const TURN_STATUSES = new Set([...TERMINAL_TURN, "inProgress"]);
const MAX_READ_TURNS = 1000;

export type Verdict =
  /** The request was applied; for turn/start, as this turn (in this status). */
  | { kind: "accepted"; turnId?: string; status?: string; threadId?: string }
  /** Codex answered with an error: the request was not applied. */
  | { kind: "refused"; message: string }
  /** Not proof of the outcome, but it names the turn the request became. */
  | { kind: "bind"; turnId: string; why: string }
  /** Proves nothing: the outcome stays UNKNOWN. */
  | { kind: "none"; why: string };

const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
const wellFormed = (v: unknown): v is string => typeof v === "string" && WELL_FORMED_ID.test(v);

/** A late answer carrying the request's own id. */
export function judgeLateAnswer(u: UnknownOutcome, answer: { result?: unknown; error?: { message: string } }, turnOwner?: string): Verdict {
  if (answer.error) return { kind: "refused", message: answer.error.message };
  const r = obj(answer.result);
  if (!r) return { kind: "none", why: "the late answer is not an object" };
  switch (u.method) {
    case TURN_START: {
      const turn = obj(r.turn);
      if (!turn || !wellFormed(turn.id)) return { kind: "none", why: "the late answer names no well-formed turn" };
      if (u.turn_id && turn.id !== u.turn_id) return { kind: "none", why: `the late answer names turn ${turn.id}, not ${u.turn_id}` };
      if (turnOwner) return { kind: "none", why: `the late answer names turn ${turn.id}, which belongs to ${turnOwner}` };
      if (typeof turn.status !== "string" || !TURN_STATUSES.has(turn.status)) return { kind: "bind", turnId: turn.id, why: `turn ${turn.id} has no supported status` };
      return { kind: "accepted", turnId: turn.id, status: turn.status };
    }
    case TURN_STEER:
      return r.turnId === u.turn_id ? { kind: "accepted", turnId: u.turn_id ?? undefined } : { kind: "none", why: "the late answer names another turn" };
    case TURN_INTERRUPT:
      return { kind: "accepted", turnId: u.turn_id ?? undefined };
    case THREAD_START: {
      const thread = obj(r.thread);
      return thread && wellFormed(thread.id) ? { kind: "accepted", threadId: thread.id } : { kind: "none", why: "the late answer names no well-formed thread" };
    }
    case THREAD_RESUME: {
      const thread = obj(r.thread);
      return thread && thread.id === u.thread_id ? { kind: "accepted", threadId: u.thread_id ?? undefined } : { kind: "none", why: "the late answer names another thread" };
    }
    default:
      return { kind: "none", why: `${u.method} has no late-answer rule` };
  }
}

/** A thread/read (with turns) that started after the request was written. */
export function judgeRead(u: UnknownOutcome, result: unknown): Verdict {
  const thread = obj(obj(result)?.thread);
  if (!thread || thread.id !== u.thread_id) return { kind: "none", why: "the read names another thread" };
  const status = obj(thread.status)?.type;
  if (u.method === THREAD_RESUME) {
    return status === "idle" || status === "active" ? { kind: "accepted", threadId: u.thread_id ?? undefined } : { kind: "none", why: `the thread is ${String(status)}, not loaded` };
  }
  const turns = Array.isArray(thread.turns) ? thread.turns.map(obj) : null;
  if (!turns || turns.length > MAX_READ_TURNS || turns.some((t) => !t || !wellFormed(t.id))) return { kind: "none", why: "the read's turn list is missing or malformed" };
  const ids = turns.map((t) => t!.id as string);
  if (new Set(ids).size !== ids.length) return { kind: "none", why: "the read lists a turn twice" };
  let candidates: Record<string, unknown>[];
  if (u.turn_id) candidates = turns.filter((t) => t!.id === u.turn_id) as Record<string, unknown>[];
  else if (u.method === TURN_START) candidates = turns.filter((t) => !(u.known_turns ?? []).includes(t!.id as string)) as Record<string, unknown>[];
  else return { kind: "none", why: "no turn is known for this request" };
  if (candidates.length === 0) return { kind: "none", why: u.turn_id ? `the thread shows no turn ${u.turn_id}` : "the thread shows no new turn (yet)" };
  if (candidates.length > 1) return { kind: "none", why: `the thread shows ${candidates.length} new turns; which one is this request's cannot be told` };
  const turn = candidates[0]!;
  const id = turn.id as string;
  if (status !== "idle") return u.turn_id ? { kind: "none", why: `the thread is ${String(status)}` } : { kind: "bind", turnId: id, why: `the thread is ${String(status)} with turn ${id}` };
  if (typeof turn.status !== "string" || !TERMINAL_TURN.has(turn.status)) return { kind: "bind", turnId: id, why: `turn ${id} has not ended` };
  return { kind: "accepted", turnId: id, status: turn.status };
}

/** What would settle it, in the supervisor's words. */
export function resolvesOn(u: UnknownOutcome): string[] {
  if (u.expires_at && Date.parse(u.expires_at) <= Date.now()) {
    return ["nothing any more: its correlation expired; codex_cancel gives it up explicitly (nothing is resent)"];
  }
  const out = [`Codex's late answer to request ${String(u.rpc_id)}`];
  if (u.turn_id) out.push(`turn/completed plus idle for turn ${u.turn_id}`);
  if (u.thread_id && u.method !== THREAD_START) out.push("codex_status, which reads the thread (thread/read) and settles it if the turn is seen ended");
  out.push("the app-server's exit");
  return out;
}
