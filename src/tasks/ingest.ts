// Turns one task's app-server notifications into stored events and item snapshots: deltas coalesced, output
// bounded, reasoning never kept, everything redacted.
import {
  AGENT_MESSAGE_DELTA,
  COMMAND_OUTPUT_DELTA,
  ERROR_NOTIFICATION,
  ErrorEnvelope,
  ITEM_COMPLETED,
  ITEM_STARTED,
  parseDeltaEnvelope,
  parseItemEnvelope,
  PHASE_COMMENTARY,
  PHASE_FINAL_ANSWER,
  WARNING_NOTIFICATION,
  WarningEnvelope,
} from "../codex/protocol/item.ts";
import { DiffEnvelope, PlanEnvelope, TURN_COMPLETED, TURN_DIFF_UPDATED, TURN_PLAN_UPDATED, TURN_STARTED, TurnEnvelope } from "../codex/protocol/turn.ts";
import type { NewEvent } from "../store/repo.ts";
import type { ItemRow } from "../store/rows.ts";
import { boundText, HeadTailBuffer } from "./bounded-output.ts";
import { redactText, redactValue } from "../policy/redact.ts";

// Stored command output per item: enough for evidence, bounded so a chatty build cannot fill the database.
export const STORED_OUTPUT_CHARS = 32_000;
const RAW_DELTA_CHARS = 4_000;
/** How long a streamed private key block may grow while it waits for its END line before it is stored anyway. */
const HELD_KEY_CHARS = 256 * 1024;

export interface IngestResult {
  events: NewEvent[];
  items: Omit<ItemRow, "updated_at" | "task_id">[];
  turnStarted?: string;
  turnCompleted?: { turnId: string; status: string; error: { message: string; codexErrorInfo: unknown; details: string | null } | null; finalText: string | null };
  /** Something a waiter should wake for, beyond raw activity. */
  wake: "none" | "activity" | "supervision";
  diff?: string;
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/**
 * How much of streamed text can be stored (and so redacted) now: everything at the end of a stream, else whole lines
 * only; a line grown past RAW_DELTA_CHARS is cut after its last blank (a secret holds none), or whole.
 */
function storableChars(text: string, final: boolean): number {
  if (final) return text.length;
  let n = text.lastIndexOf("\n") + 1;
  if (n === 0 && text.length >= RAW_DELTA_CHARS) {
    const blank = Math.max(text.lastIndexOf(" "), text.lastIndexOf("\t")) + 1;
    n = blank > 0 ? blank : text.length;
  }
  // A private key is recognised by its BEGIN and END lines: an open block waits for its END (within reason).
  const begin = text.lastIndexOf("-----BEGIN ", n);
  if (begin >= 0 && text.length < HELD_KEY_CHARS && /^-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY/.test(text.slice(begin, begin + 60)) && !text.includes("-----END ", begin)) {
    n = Math.min(n, begin);
  }
  return n;
}

/**
 * Turns app-server notifications for one task into stored events and item snapshots. Message deltas are coalesced
 * in memory, command output is bounded, reasoning text never leaves this function, and everything kept is redacted.
 */
export class TaskIngest {
  private readonly messageText = new Map<string, string>();
  private readonly pendingDelta = new Map<string, string>();
  private readonly output = new Map<string, HeadTailBuffer>();
  /** A completed agent message is only known not to be the final answer once something else follows it. */
  private heldMessage: NewEvent | null = null;
  /** The held message carries Codex's final_answer phase. */
  private heldIsFinal = false;

  constructor(private turnId: string | null) {}

  setTurn(turnId: string): void {
    this.turnId = turnId;
  }

  hasPendingDeltas(): boolean {
    for (const text of this.pendingDelta.values()) if (storableChars(text, false) > 0) return true;
    return false;
  }

  /**
   * Deltas waiting to be stored, as one coalesced raw event per item. Unless `final`, a line still being streamed
   * stays pending: redacted alone, each half of a secret it holds would match no rule.
   */
  drainDeltas(final: boolean): NewEvent[] {
    const out: NewEvent[] = [];
    for (const [itemId, text] of this.pendingDelta) {
      const n = storableChars(text, final);
      if (n === 0) continue;
      out.push({ turn_id: this.turnId, kind: "message_delta", item_id: itemId, data: { text: redactText(text.slice(0, n)) } });
      if (n === text.length) this.pendingDelta.delete(itemId);
      else this.pendingDelta.set(itemId, text.slice(n));
    }
    return out;
  }

  private releaseHeld(into: NewEvent[]): boolean {
    if (!this.heldMessage) return false;
    into.push(this.heldMessage);
    this.heldMessage = null;
    this.heldIsFinal = false;
    return true;
  }

  handle(method: string, params: unknown): IngestResult {
    const res: IngestResult = { events: [], items: [], wake: "none" };
    switch (method) {
      case TURN_STARTED: {
        const p = TurnEnvelope.safeParse(params);
        if (p.success) {
          this.turnId = p.data.turn.id;
          res.turnStarted = p.data.turn.id;
          res.events.push({ turn_id: this.turnId, kind: "turn_started", data: {} });
        }
        return res;
      }
      case TURN_COMPLETED: {
        const p = TurnEnvelope.safeParse(params);
        if (!p.success) return res;
        const t = p.data.turn;
        res.events.push(...this.drainDeltas(true));
        // The held message (if any) is the final answer, delivered by codex_result, not by a wait. A turn that did
        // not complete has no answer unless Codex marked one final: its last message was only on the way there.
        const completed = (t.status ?? "completed") === "completed";
        let final = this.heldMessage;
        if (final && !completed && !this.heldIsFinal) {
          res.events.push(final);
          final = null;
        }
        this.heldMessage = null;
        this.heldIsFinal = false;
        let finalText = final ? str(final.data.text) : null;
        if (!finalText && completed && t.items) {
          const msgs = t.items.filter((i) => i.type === "agentMessage" && i.phase !== PHASE_COMMENTARY);
          const last = msgs[msgs.length - 1];
          if (last && typeof last.text === "string") finalText = redactText(last.text);
        }
        // The answer's text is stored once, in the task's final_message (moved into this item when a new turn starts).
        if (final) res.items.push({ item_id: String(final.item_id), turn_id: t.id, type: "agentMessage", status: "completed", data: { final: true } });
        const error = t.error
          ? { message: redactText(t.error.message ?? "turn failed"), codexErrorInfo: redactValue(t.error.codexErrorInfo ?? null), details: t.error.additionalDetails ?? null }
          : null;
        res.turnCompleted = { turnId: t.id, status: t.status ?? "completed", error, finalText };
        res.events.push({
          turn_id: t.id,
          kind: "turn_completed",
          data: { status: t.status ?? "completed", ...(error ? { error: error.message, info: error.codexErrorInfo } : {}), has_final: finalText !== null },
        });
        res.wake = "supervision";
        return res;
      }
      case AGENT_MESSAGE_DELTA: {
        const p = parseDeltaEnvelope(params);
        if (!p.success) return res;
        this.messageText.set(p.data.itemId, (this.messageText.get(p.data.itemId) ?? "") + p.data.delta);
        const pend = (this.pendingDelta.get(p.data.itemId) ?? "") + p.data.delta;
        // Coalesced into chunks: one stored event per flush or per RAW_DELTA_CHARS, never one per delta, nothing dropped.
        this.pendingDelta.set(p.data.itemId, pend);
        const n = pend.length >= RAW_DELTA_CHARS ? storableChars(pend, false) : 0;
        if (n > 0) {
          res.events.push({ turn_id: this.turnId, kind: "message_delta", item_id: p.data.itemId, data: { text: redactText(pend.slice(0, n)) } });
          if (n === pend.length) this.pendingDelta.delete(p.data.itemId);
          else this.pendingDelta.set(p.data.itemId, pend.slice(n));
        }
        res.wake = "activity";
        return res;
      }
      case COMMAND_OUTPUT_DELTA: {
        const p = parseDeltaEnvelope(params);
        if (!p.success) return res;
        let buf = this.output.get(p.data.itemId);
        if (!buf) this.output.set(p.data.itemId, (buf = new HeadTailBuffer(STORED_OUTPUT_CHARS / 2, STORED_OUTPUT_CHARS / 2)));
        buf.push(p.data.delta);
        return res;
      }
      case ITEM_STARTED:
      case ITEM_COMPLETED: {
        const p = parseItemEnvelope(params);
        if (!p.success) return res;
        this.handleItem(method === ITEM_STARTED, p.data.item, p.data.turnId ?? this.turnId, res);
        return res;
      }
      case TURN_PLAN_UPDATED: {
        const p = PlanEnvelope.safeParse(params);
        if (!p.success) return res;
        if (this.releaseHeld(res.events)) res.wake = "supervision";
        res.events.push({
          turn_id: p.data.turnId ?? this.turnId,
          kind: "plan",
          data: { explanation: p.data.explanation ? redactText(p.data.explanation) : null, steps: p.data.plan.map((s) => ({ step: redactText(s.step), status: s.status })) },
        });
        res.wake = "supervision";
        return res;
      }
      case TURN_DIFF_UPDATED: {
        const p = DiffEnvelope.safeParse(params);
        if (p.success) res.diff = redactText(p.data.diff);
        return res;
      }
      case ERROR_NOTIFICATION: {
        const p = ErrorEnvelope.safeParse(params);
        if (!p.success) return res;
        res.events.push({
          turn_id: this.turnId,
          kind: "error",
          data: { message: redactText(p.data.error.message ?? "error"), will_retry: p.data.willRetry ?? false, info: redactValue(p.data.error.codexErrorInfo ?? null) },
        });
        // A final error is followed at once by turn/completed (failed): stored within milliseconds rather than at once,
        // so one wait reports both, with the failure, instead of one wait for the error and another for the end.
        res.wake = "activity";
        return res;
      }
      case WARNING_NOTIFICATION: {
        const p = WarningEnvelope.safeParse(params);
        if (!p.success) return res;
        // Codex repeats the fallback-metadata warning on every turn; it is noise to a supervisor.
        const noisy = /^Model metadata for .* not found/.test(p.data.message);
        res.events.push({ turn_id: this.turnId, kind: noisy ? "notice" : "warning", data: { message: redactText(p.data.message) } });
        return res;
      }
      default:
        return res;
    }
  }

  private handleItem(started: boolean, item: Record<string, unknown> & { type: string; id: string }, turnId: string | null, res: IngestResult): void {
    const id = item.id;
    const type = item.type;
    if (started && type !== "agentMessage" && type !== "reasoning" && type !== "userMessage") {
      if (this.releaseHeld(res.events)) res.wake = "supervision";
    }
    switch (type) {
      case "reasoning":
        return; // reasoning text is never stored or returned
      case "userMessage": {
        if (!started) return;
        const content = Array.isArray(item.content) ? item.content : [];
        const text = content
          .map((c) => (c && typeof c === "object" && typeof (c as Record<string, unknown>).text === "string" ? String((c as Record<string, unknown>).text) : ""))
          .join("\n");
        res.events.push({ turn_id: turnId, kind: "user_message", item_id: id, data: { text: redactText(text) } });
        return;
      }
      case "agentMessage": {
        if (started) {
          if (this.releaseHeld(res.events)) res.wake = "supervision";
          return;
        }
        const text = redactText(str(item.text) ?? this.messageText.get(id) ?? "");
        this.messageText.delete(id);
        const rest = this.pendingDelta.get(id);
        if (rest) res.events.push({ turn_id: turnId, kind: "message_delta", item_id: id, data: { text: redactText(rest) } });
        this.pendingDelta.delete(id);
        const phase = str(item.phase);
        res.items.push({ item_id: id, turn_id: turnId, type: "agentMessage", status: "completed", data: { text, phase } });
        const ev: NewEvent = { turn_id: turnId, kind: "message", item_id: id, data: { text } };
        // Commentary is never the answer: shown at once. Anything else may be, until something follows it.
        if (phase === PHASE_COMMENTARY) {
          this.releaseHeld(res.events);
          res.events.push(ev);
          res.wake = "supervision";
        } else {
          if (this.releaseHeld(res.events)) res.wake = "supervision";
          this.heldMessage = ev;
          this.heldIsFinal = phase === PHASE_FINAL_ANSWER;
        }
        return;
      }
      case "commandExecution": {
        const command = commandText(item);
        if (started) {
          res.items.push({ item_id: id, turn_id: turnId, type, status: "inProgress", data: { command, cwd: str(item.cwd) } });
          res.events.push({ turn_id: turnId, kind: "command_started", item_id: id, data: { command } });
          res.wake = "activity";
          return;
        }
        const streamed = this.output.get(id);
        this.output.delete(id);
        const full = str(item.aggregatedOutput) ?? (streamed ? streamed.toString() : "");
        const bounded = boundText(redactText(full), STORED_OUTPUT_CHARS);
        const exitCode = typeof item.exitCode === "number" ? item.exitCode : null;
        const status = str(item.status) ?? "completed";
        const data = { command, cwd: str(item.cwd), status, exit_code: exitCode, duration_ms: item.durationMs ?? null, output: bounded.text, output_chars: full.length };
        res.items.push({ item_id: id, turn_id: turnId, type, status, data });
        res.events.push({ turn_id: turnId, kind: "command", item_id: id, data: { command, status, exit_code: exitCode } });
        res.wake = status === "completed" && exitCode === 0 ? "activity" : "activity";
        return;
      }
      case "fileChange": {
        const changes = Array.isArray(item.changes) ? item.changes : [];
        const list = changes.map((c) => {
          const o = (c ?? {}) as Record<string, unknown>;
          const kind = o.kind && typeof o.kind === "object" ? str((o.kind as Record<string, unknown>).type) : str(o.kind);
          return { path: str(o.path) ?? "?", kind: kind ?? "update", diff: redactText(str(o.diff) ?? "") };
        });
        const status = str(item.status) ?? (started ? "inProgress" : "completed");
        res.items.push({ item_id: id, turn_id: turnId, type, status, data: { changes: list } });
        if (!started) {
          res.events.push({ turn_id: turnId, kind: "file_change", item_id: id, data: { status, changes: list.map((c) => ({ path: c.path, kind: c.kind })) } });
          res.wake = "activity";
        }
        return;
      }
      case "mcpToolCall": {
        const status = str(item.status) ?? (started ? "inProgress" : "completed");
        const data = { server: str(item.server), tool: str(item.tool), status, error: redactValue(item.error ?? null), arguments: redactValue(item.arguments ?? null) };
        res.items.push({ item_id: id, turn_id: turnId, type, status, data });
        if (!started) res.events.push({ turn_id: turnId, kind: "mcp_call", item_id: id, data: { server: data.server, tool: data.tool, status } });
        return;
      }
      case "dynamicToolCall": {
        const status = str(item.status) ?? (started ? "inProgress" : "completed");
        const data = { tool: str(item.tool), status, success: item.success ?? null, arguments: redactValue(item.arguments ?? null) };
        res.items.push({ item_id: id, turn_id: turnId, type, status, data });
        if (!started) res.events.push({ turn_id: turnId, kind: "tool_call", item_id: id, data: { tool: data.tool, status } });
        return;
      }
      default:
        if (!started) res.events.push({ turn_id: turnId, kind: "item", item_id: id, data: { type, status: str(item.status) } });
        return;
    }
  }
}

/** The command as the model wrote it, not Codex's `/bin/bash -lc '…'` wrapper. */
export function commandText(item: Record<string, unknown>): string {
  const actions = Array.isArray(item.commandActions) ? item.commandActions : [];
  const raw = actions
    .map((a) => (a && typeof a === "object" ? str((a as Record<string, unknown>).command) : null))
    .filter((c): c is string => !!c);
  if (raw.length === 1) return redactText(raw[0]!);
  const full = str(item.command) ?? "";
  const m = /^\/bin\/(?:ba|z)?sh -l?c '([\s\S]*)'$/.exec(full);
  return redactText(m ? m[1]!.replace(/'\\''/g, "'") : full);
}
