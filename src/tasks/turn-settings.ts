// The accepted turn's layer of context evidence: what a turn/start asked for (model, effort, service tier) and what
// Codex itself reported back. Codex reports settings only in thread/settings/updated, which it sends when a turn/start
// changed them and before acknowledging it; a report seen before our request was written is not evidence for it.
import { THREAD_SETTINGS_UPDATED, ThreadSettingsEnvelope } from "../codex/protocol/thread.ts";
import type { ServerNotification } from "../codex/rpc-messages.ts";
import { BridgeError } from "../bridge-error.ts";

export interface TurnSettings {
  model: string | null;
  effort: string | null;
  service_tier: string | null;
}

export interface TurnLayer {
  turn_id: string;
  /** What the turn/start carried; "(unchanged)" where it carried nothing and the thread keeps its setting. */
  asked: Record<keyof TurnSettings, string>;
  /** What Codex reported for the thread once this turn/start was sent; "unknown" without such a report. */
  reported: Record<keyof TurnSettings, string>;
  reported_by: string;
}

const MAX_THREADS = 256;

/** The latest settings report per thread, numbered so a turn can tell whether it came after its own request. */
export class ThreadSettingsLog {
  private counter = 0;
  private readonly last = new Map<string, { n: number; settings: TurnSettings }>();

  /** Records a settings report; returns it so a turn already acknowledged can still take it. */
  observe(n: ServerNotification): { threadId: string; settings: TurnSettings } | undefined {
    if (n.method !== THREAD_SETTINGS_UPDATED) return undefined;
    const p = ThreadSettingsEnvelope.safeParse(n.params);
    if (!p.success) return undefined;
    const s = p.data.threadSettings;
    const settings = { model: s.model ?? null, effort: s.effort ?? null, service_tier: s.serviceTier ?? null };
    this.last.delete(p.data.threadId);
    this.last.set(p.data.threadId, { n: ++this.counter, settings });
    if (this.last.size > MAX_THREADS) this.last.delete(this.last.keys().next().value!);
    return { threadId: p.data.threadId, settings };
  }

  /** Taken right before a turn/start is written. */
  mark(): number {
    return this.counter;
  }

  reportedSince(threadId: string, mark: number): TurnSettings | undefined {
    const r = this.last.get(threadId);
    return r && r.n > mark ? r.settings : undefined;
  }
}

/**
 * A report that came after the turn/start was acknowledged (Codex usually sends it before; under load not always):
 * taken for the turn still running on that thread, since only a turn/start changes these settings.
 */
export function withLateReport(layer: TurnLayer, settings: TurnSettings): TurnLayer {
  return { ...turnLayer(layer.turn_id, unshown(layer.asked), settings), reported_by: `${THREAD_SETTINGS_UPDATED} (after the acknowledgement, while the turn ran)` };
}

function unshown(asked: TurnLayer["asked"]): TurnSettings {
  const back = (v: string) => (v === "(unchanged)" ? null : v);
  return { model: back(asked.model), effort: back(asked.effort), service_tier: back(asked.service_tier) };
}

export function turnLayer(turnId: string, asked: TurnSettings, reported: TurnSettings | undefined): TurnLayer {
  const show = (v: string | null, none: string) => v ?? none;
  return {
    turn_id: turnId,
    asked: { model: show(asked.model, "(unchanged)"), effort: show(asked.effort, "(unchanged)"), service_tier: show(asked.service_tier, "(unchanged)") },
    reported: reported
      ? { model: show(reported.model, "(default)"), effort: show(reported.effort, "(default)"), service_tier: show(reported.service_tier, "(default)") }
      : { model: "unknown", effort: "unknown", service_tier: "unknown" },
    reported_by: reported ? THREAD_SETTINGS_UPDATED : "nothing: Codex reported no settings for this turn, so what it uses is unknown",
  };
}

export interface TurnOverrides {
  model?: string;
  effort?: string;
  service_tier?: string;
}

/** turn/steer carries no settings: an override on a send that would steer is refused, never silently dropped. */
export function refuseOverridesWhileSteering(o: TurnOverrides, turnId: string): void {
  const given = (["model", "effort", "service_tier"] as const).filter((k) => o[k] !== undefined);
  if (given.length === 0) return;
  throw new BridgeError(
    `${given.join(", ")} cannot change while turn ${turnId} is running: this send would steer it, and a steer takes no model, effort or service tier. Send the message without ${given.length > 1 ? "them" : "it"} to steer, or wait for the turn to end (codex_wait) and send again to start a new turn with the override. Nothing was sent`,
    given[0],
  );
}
