// The correlations of mutating requests whose acknowledgement timed out, kept on their task (so they survive in
// SQLite) and settled only by independent evidence: a late answer with the same id, turn/completed plus idle for
// exactly the correlated thread and turn, a thread/read started after the request, or the app-server's exit.
// Bounded in number and age; an expired one stays UNKNOWN. Nothing here ever sends a mutating request.
import type { AppServerClient, LateResponse } from "../codex/client.ts";
import type { UnknownOutcomeError } from "../codex/errors.ts";
import { THREAD_START, THREAD_STATUS_CHANGED, ThreadStatusEnvelope, threadRead } from "../codex/protocol/thread.ts";
import { TURN_COMPLETED, TURN_START, TurnEnvelope } from "../codex/protocol/turn.ts";
import type { ServerNotification } from "../codex/rpc-messages.ts";
import type { TaskRow, TaskState, UnknownOutcome } from "../store/rows.ts";
import { refreshState, type TaskContext } from "./context.ts";
import { judgeLateAnswer, judgeRead, TERMINAL_TURN, type Verdict } from "./unknown-evidence.ts";
import { applyVerdict } from "./unknown-settle.ts";

export const UNKNOWN_TTL_MS_DEFAULT = 15 * 60_000;
/** Correlations kept open at once; beyond it the oldest expires (and stays UNKNOWN). */
const MAX_OPEN = 32;
const MAX_ORPHANS = 32;

export interface RecordUnknown {
  connectionId: string;
  threadId: string | null;
  turnId?: string | null;
  sentAt: string;
  /** Whether the task itself becomes UNKNOWN (its turn may or may not be running) or keeps its state. */
  taskUnknown: boolean;
}

export class UnknownOutcomes {
  /** Every thread status notification is numbered, so an idle can be told to come after a request. */
  private statusCounter = 0;
  private readonly lastStatus = new Map<string, { n: number; type: string }>();
  private readonly marks = new Map<string, number>();
  /** Per thread, bumped by every piece of evidence, so a read that raced newer evidence is not trusted. */
  private readonly evidence = new Map<string, number>();
  /** Late answers that beat their correlation being written down. */
  private readonly orphans: { connectionId: string; r: LateResponse }[] = [];

  constructor(private readonly ctx: TaskContext, private readonly ttlMs = UNKNOWN_TTL_MS_DEFAULT) {}

  record(taskId: string, err: UnknownOutcomeError, c: RecordUnknown): void {
    const { repo, events } = this.ctx;
    const task = repo.task(taskId)!;
    const u: UnknownOutcome = {
      method: err.method,
      at: new Date().toISOString(),
      detail: err.message,
      rpc_id: err.rpcId,
      connection_id: c.connectionId,
      thread_id: c.threadId,
      turn_id: c.turnId ?? null,
      sent_at: c.sentAt,
      expires_at: new Date(Date.now() + this.ttlMs).toISOString(),
      ...(err.method === TURN_START ? { known_turns: [...new Set([...repo.turnIds(taskId), ...(task.turn_id ? [task.turn_id] : [])])] } : {}),
    };
    this.marks.set(taskId, this.statusCounter);
    events.flush(taskId);
    repo.tx(() => {
      repo.updateTask(taskId, { unknown: u, ...(c.taskUnknown ? { state: "unknown" as TaskState } : {}) });
      repo.appendEvents(taskId, [{ turn_id: u.turn_id ?? task.turn_id, kind: "unknown", data: { method: u.method, request: u.rpc_id, detail: u.detail } }]);
    });
    events.wake(taskId);
    this.expireBeyondLimit();
    const i = this.orphans.findIndex((o) => o.connectionId === c.connectionId && o.r.id === err.rpcId);
    if (i >= 0) this.onLate(c.connectionId, this.orphans.splice(i, 1)[0]!.r);
  }

  private open(): TaskRow[] {
    return this.ctx.repo.tasksWithUnknown();
  }

  private expired(u: UnknownOutcome): boolean {
    return !!u.expires_at && Date.parse(u.expires_at) <= Date.now();
  }

  private expireBeyondLimit(): void {
    const live = this.open().filter((t) => !this.expired(t.unknown!)).sort((a, b) => a.unknown!.at.localeCompare(b.unknown!.at));
    for (const t of live.slice(0, Math.max(0, live.length - MAX_OPEN))) {
      this.ctx.repo.updateTask(t.id, { unknown: { ...t.unknown!, expires_at: new Date().toISOString() } });
    }
  }

  private bump(threadId: string | null | undefined): void {
    if (!threadId) return;
    this.evidence.delete(threadId);
    this.evidence.set(threadId, (this.evidence.get(threadId) ?? 0) + 1);
    if (this.evidence.size > 1024) this.evidence.delete(this.evidence.keys().next().value!);
  }

  onLate(connectionId: string, r: LateResponse): void {
    const task = this.open().find((t) => t.unknown!.connection_id === connectionId && t.unknown!.rpc_id === r.id);
    this.bump(task?.unknown?.thread_id);
    if (!task) {
      this.orphans.push({ connectionId, r });
      if (this.orphans.length > MAX_ORPHANS) this.orphans.shift();
      return;
    }
    const u = task.unknown!;
    if (this.expired(u)) return this.note(task, `a late answer to ${u.method} came after its correlation expired; it stays UNKNOWN`);
    const named = (r.result as { turn?: { id?: unknown } } | undefined)?.turn?.id;
    const owner = typeof named === "string" ? this.ctx.repo.taskByTurn(named) : undefined;
    const v = judgeLateAnswer(u, r, owner && owner.id !== task.id ? owner.id : undefined);
    this.apply(task, v, "Codex's late answer");
  }

  /** Status and terminal notifications for a correlated thread; called after the intake stored them. */
  onNotification(n: ServerNotification): void {
    if (n.method === THREAD_STATUS_CHANGED) {
      const p = ThreadStatusEnvelope.safeParse(n.params);
      if (!p.success) return;
      this.lastStatus.delete(p.data.threadId);
      this.lastStatus.set(p.data.threadId, { n: ++this.statusCounter, type: p.data.status.type });
      if (this.lastStatus.size > 1024) this.lastStatus.delete(this.lastStatus.keys().next().value!);
      this.evaluate(p.data.threadId);
      return;
    }
    if (n.method !== TURN_COMPLETED) return;
    const threadId = (n.params as { threadId?: unknown } | null)?.threadId;
    const p = TurnEnvelope.safeParse(n.params);
    if (typeof threadId !== "string" || !p.success) return;
    for (const t of this.open()) {
      const u = t.unknown!;
      if (u.thread_id !== threadId || !u.turn_id || u.turn_id !== p.data.turn.id || this.expired(u)) continue;
      this.ctx.repo.updateTask(t.id, { unknown: { ...u, terminal: { turn_id: u.turn_id, status: p.data.turn.status ?? "completed" } } });
    }
    this.evaluate(threadId);
  }

  private evaluate(threadId: string): void {
    this.bump(threadId);
    const status = this.lastStatus.get(threadId);
    for (const t of this.open()) {
      const u = t.unknown!;
      if (u.thread_id !== threadId || this.expired(u) || !u.turn_id || u.terminal?.turn_id !== u.turn_id) continue;
      if (!TERMINAL_TURN.has(u.terminal.status)) continue;
      // The idle must be the thread's latest status and come after the request; an earlier idle proves nothing.
      if (!status || status.type !== "idle" || status.n <= (this.marks.get(t.id) ?? Number.POSITIVE_INFINITY)) continue;
      this.apply(t, { kind: "accepted", turnId: u.turn_id, status: u.terminal.status }, "turn/completed plus idle");
    }
  }

  /** The explicit check codex_status runs: one thread/read started now, trusted only if nothing newer raced it. */
  async check(taskId: string, client: AppServerClient | null): Promise<string | null> {
    const task = this.ctx.repo.task(taskId);
    const u = task?.unknown;
    if (!task || !u) return null;
    if (this.expired(u)) return "its correlation expired, so no evidence can settle it any more";
    if (!u.thread_id || u.method === THREAD_START) return "no thread is known for it, so only Codex's late answer can settle it";
    if (!client) return "the app-server is not running, so the thread cannot be read now";
    const before = this.evidence.get(u.thread_id) ?? 0;
    let result: unknown;
    try {
      result = await threadRead(client, { threadId: u.thread_id, includeTurns: true }, { timeoutMs: 10_000 });
    } catch (err) {
      return `the thread could not be read (${err instanceof Error ? err.message : String(err)})`;
    }
    const now = this.ctx.repo.task(taskId);
    if (!now?.unknown || now.unknown.rpc_id !== u.rpc_id || now.unknown.at !== u.at) return null;
    if ((this.evidence.get(u.thread_id) ?? 0) !== before) return "newer evidence arrived while the thread was read; check again";
    const v = judgeRead(now.unknown, result);
    this.apply(now, v, "thread/read");
    return v.kind === "accepted" || v.kind === "refused" ? null : v.why;
  }

  /** The supervisor gives an unresolvable one up (codex_cancel): recorded as such, nothing resent. */
  abandon(taskId: string): boolean {
    const task = this.ctx.repo.task(taskId);
    if (!task?.unknown) return false;
    applyVerdict(this.ctx, task, { kind: "none", why: "abandoned" }, "the supervisor (codex_cancel)", "abandoned");
    return true;
  }

  /** The connection that carried the request is gone: it can no longer take effect, whatever it did before. */
  onExit(connectionId: string | null): void {
    for (const t of this.open()) {
      if (connectionId !== null && t.unknown!.connection_id !== connectionId) continue;
      applyVerdict(this.ctx, t, { kind: "none", why: "exit" }, "the app-server connection closing", "connection_closed");
    }
  }

  private note(task: TaskRow, message: string): void {
    this.ctx.events.appendNow(task.id, [{ turn_id: task.turn_id, kind: "notice", data: { message } }]);
  }

  private apply(task: TaskRow, v: Verdict, by: string): void {
    const u = task.unknown!;
    if (v.kind === "none") return this.note(task, `${by} did not settle ${u.method}: ${v.why}`);
    if (v.kind === "bind") {
      if (u.turn_id !== v.turnId) this.ctx.repo.updateTask(task.id, { unknown: { ...u, turn_id: v.turnId } });
      return this.note(task, `${by} ties ${u.method} to turn ${v.turnId} but does not settle it: ${v.why}`);
    }
    applyVerdict(this.ctx, task, v, by, v.kind);
    refreshState(this.ctx, task.id);
  }
}
