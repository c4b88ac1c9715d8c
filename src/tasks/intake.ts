// Intake of what the app-server sends on its own: notifications become stored events and task states, server
// requests become ledger entries (or are refused at once), and the child's exit settles every task it carried.
import type { AppServerClient } from "../codex/client.ts";
import { ERROR_NOTIFICATION, ErrorEnvelope, ITEM_COMPLETED, SERVER_REQUEST_RESOLVED } from "../codex/protocol/item.ts";
import { turnInterrupt } from "../codex/protocol/turn.ts";
import { REQUEST_KINDS, replyTo, serverRequestParams, UNSUPPORTED_REQUESTS, type DynamicToolCallParams } from "../codex/protocol/requests.ts";
import type { RpcId, ServerNotification, ServerRequest } from "../codex/rpc-messages.ts";
import type { Failure, TaskState } from "../store/rows.ts";
import { classifyTurnError, failure, isUnreachableReport } from "./failure.ts";
import type { TaskIngest } from "./ingest.ts";
import type { InteractionLedger } from "./ledger.ts";
import { RELAY_ARGUMENTS_MAX_CHARS, RELAY_REQUEST_MAX_CHARS, RELAY_TOOL_NAME } from "./relay-tool.ts";
import type { TaskContext } from "./context.ts";

const ACTIVE: TaskState[] = ["starting", "running", "waiting_for_approval", "waiting_for_tool"];
/**
 * Codex retries an unreachable provider without end (5, 10, 20, 40 s… apart). After this many reports in one turn the
 * bridge interrupts it, so the supervisor gets provider_unreachable instead of "still running" forever.
 */
const UNREACHABLE_REPORTS_BEFORE_STOP = 2;

export class EventIntake {
  constructor(private readonly ctx: TaskContext, private readonly ledger: InteractionLedger) {}

  onNotification(client: AppServerClient, n: ServerNotification): void {
    const { events, threadTask, repo, writes } = this.ctx;
    const params = (n.params ?? {}) as Record<string, unknown>;
    if (n.method === SERVER_REQUEST_RESOLVED) {
      writes.run("request resolved", () => this.ledger.resolveByRpc(client, params.requestId as RpcId));
      return;
    }
    const threadId = typeof params.threadId === "string" ? params.threadId : null;
    if (!threadId) return;
    const taskId = threadTask.get(threadId);
    if (!taskId) return;
    const live = events.state(taskId);
    if (n.method === ERROR_NOTIFICATION) this.watchUnreachable(client, taskId, params);
    const res = live.ingest.handle(n.method, n.params);
    if (res.diff !== undefined) live.diff = res.diff;
    live.buffer.push(...res.events);
    live.items.push(...res.items.map((i) => ({ ...i, task_id: taskId })));
    if (n.method === ITEM_COMPLETED) {
      const item = (params.item ?? {}) as Record<string, unknown>;
      if (item.type === "dynamicToolCall" && typeof item.id === "string") {
        const callId = item.id;
        writes.run("tool call resolved", () => this.ledger.resolveToolCall(taskId, callId));
      }
    }
    // A task whose turn/start is UNKNOWN learns its turn only from evidence (unknown-outcomes), not from any turn/started.
    if (res.turnStarted && repo.task(taskId)?.state !== "unknown") {
      const turnId = res.turnStarted;
      writes.run("turn started", () => {
        repo.tx(() => {
          events.flushInside(taskId);
          repo.updateTask(taskId, { turn_id: turnId });
        });
        events.wake(taskId);
      });
    }
    if (res.turnCompleted) {
      const completed = res.turnCompleted;
      writes.run("turn completed", () => this.completeTurn(taskId, completed));
      return;
    }
    if (res.wake === "supervision" || res.events.some((e) => e.kind === "message")) events.flush(taskId);
    else events.scheduleFlush(taskId, res.wake === "activity" ? 10 : 50);
  }

  private watchUnreachable(client: AppServerClient, taskId: string, params: Record<string, unknown>): void {
    const p = ErrorEnvelope.safeParse(params);
    if (!p.success || !p.data.willRetry) return;
    const { message, codexErrorInfo, additionalDetails } = p.data.error;
    if (!isUnreachableReport(codexErrorInfo, message ?? "", additionalDetails)) return;
    const live = this.ctx.events.state(taskId);
    live.unreachableReports++;
    const turnId = typeof params.turnId === "string" ? params.turnId : this.ctx.repo.task(taskId)?.turn_id;
    if (live.unreachableReports !== UNREACHABLE_REPORTS_BEFORE_STOP || live.stopReason || !turnId) return;
    live.stopReason = "provider_unreachable";
    this.ctx.log("warn", "provider_unreachable", { task: taskId, turn: turnId, reports: live.unreachableReports });
    void turnInterrupt(client, { threadId: String(params.threadId), turnId }, { timeoutMs: this.ctx.settings.ackTimeoutMs }).catch((err: unknown) => {
      this.ctx.log("warn", "interrupt_failed", { task: taskId, error: err instanceof Error ? err.constructor.name : "unknown" });
    });
  }

  onServerRequest(client: AppServerClient, r: ServerRequest): void {
    const { where, params, toolCall } = serverRequestParams(r.method, r.params);
    const taskId = where.threadId ? this.ctx.threadTask.get(where.threadId) : undefined;
    const kind = REQUEST_KINDS[r.method];
    if (!taskId) {
      // On a shared server the person's own client answers its threads' requests; a refusal here would win the race.
      if (client.shared) return;
      // Not a thread this bridge supervises: refuse rather than leave Codex hanging.
      void client.respondError(r.id, -32603, "codex-bridge has no task for this thread").catch(() => {});
      return;
    }
    if (toolCall && !this.acceptToolCall(client, r, taskId, toolCall, where.turnId)) return;
    if (UNSUPPORTED_REQUESTS.has(r.method)) {
      void client.respondError(r.id, -32601, "not supported by codex-bridge").catch(() => {});
      return;
    }
    if (!kind) {
      // A request this bridge does not know (another Codex version's, e.g. currentTime/read of 0.147-0.159): held, it
      // would stall the turn on a question no supervisor can answer. Refused at once, and said where a supervisor looks.
      void client.respondError(r.id, -32601, `${r.method} is not supported by codex-bridge`).catch(() => {});
      this.ctx.log("warn", "server_request_refused", { task: taskId, method: r.method });
      const warning = { turn_id: where.turnId, kind: "warning", data: { message: `Codex sent the server request ${r.method}, which codex-bridge does not know; it was answered at once with a JSON-RPC error (method not supported) instead of being held` } };
      this.ctx.writes.run("warning", () => this.ctx.events.appendNow(taskId, [warning]));
      return;
    }
    this.ctx.writes.run("request", () => this.ledger.record({ taskId, kind, method: r.method, rpcId: r.id, connectionId: client.connectionId, ...where, params }));
  }

  /** Only bridge_web_tool is ours, and only within its size limits; anything else is answered at once. */
  private acceptToolCall(client: AppServerClient, r: ServerRequest, taskId: string, call: DynamicToolCallParams, turnId: string | null): boolean {
    const refuse = (text: string) => void client.respond(r.id, replyTo(r.method, { kind: "toolResult", text, success: false })).catch(() => {});
    if (call.tool !== RELAY_TOOL_NAME) {
      refuse(`Tool ${String(call.tool)} is not provided by codex-bridge.`);
      return false;
    }
    const args = JSON.stringify(call.arguments);
    const request = call.arguments.request;
    const problem =
      args.length > RELAY_ARGUMENTS_MAX_CHARS
        ? `arguments are ${args.length} characters; at most ${RELAY_ARGUMENTS_MAX_CHARS} are accepted`
        : typeof request === "string" && request.length > RELAY_REQUEST_MAX_CHARS
          ? `request is ${request.length} characters; at most ${RELAY_REQUEST_MAX_CHARS} are accepted`
          : null;
    if (!problem) return true;
    refuse(`bridge_web_tool refused: ${problem}. Shorten the request.`);
    const warning = { turn_id: turnId, kind: "warning", data: { message: `bridge_web_tool call refused: ${problem}` } };
    this.ctx.writes.run("warning", () => this.ctx.events.appendNow(taskId, [warning]));
    return false;
  }

  onExit(client: AppServerClient): void {
    this.ctx.writes.run("connection lost", () => this.settleExit(client));
  }

  private settleExit(client: AppServerClient): void {
    const { repo, events } = this.ctx;
    const affected = new Set<string>();
    for (const t of repo.tasksInStates(ACTIVE)) {
      if (t.connection_id === client.connectionId) affected.add(t.id);
    }
    const exit = client.exit;
    const how = client.shared
      ? "(the shared one) closed the connection"
      : exit ? (exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`) : "exited";
    const detail = client.killedBecause ? `the bridge killed the Codex app-server: ${client.killedBecause}` : `the Codex app-server ${how}`;
    // The bridge closing its own child (shutdown) is not a crash: the task waits for the next bridge.
    const lost = client.closeRequested
      ? failure("bridge_restarted")
      : failure("app_server_crashed", `${client.killedBecause ? `The bridge killed the Codex app-server: ${client.killedBecause}` : `The Codex app-server ${how} during the turn`}; codex_send starts a recovery turn on the same thread.`);
    for (const taskId of affected) events.flush(taskId, true);
    repo.tx(() => {
      for (const i of repo.interactionsByConnection(client.connectionId, ["pending"])) {
        repo.updateInteraction(i.id, { state: "stale", note: "the app-server connection was lost" });
      }
      for (const i of repo.interactionsByConnection(client.connectionId, ["submitted"])) {
        // Written, but Codex never confirmed it: whether it acted on the answer is unknown, exactly as after a bridge restart.
        repo.updateInteraction(i.id, { state: "uncertain", note: "the app-server exited before confirming the answer" });
      }
      for (const taskId of affected) {
        const t = repo.task(taskId)!;
        repo.updateTask(taskId, { state: "connection_lost", failure: lost });
        repo.appendEvents(taskId, [{ turn_id: t.turn_id, kind: "connection_lost", data: { detail } }]);
      }
    });
    for (const taskId of affected) {
      this.ctx.log("error", "turn_lost", { task: taskId, code: lost.code, exit: exit?.code ?? "none", signal: exit?.signal ?? "none" });
      events.forget(taskId);
      events.wake(taskId);
    }
  }

  private completeTurn(taskId: string, c: NonNullable<ReturnType<TaskIngest["handle"]>["turnCompleted"]>): void {
    const { repo, events } = this.ctx;
    const live = events.state(taskId);
    const ended: TaskState = c.status === "completed" ? "completed" : c.status === "interrupted" ? "interrupted" : "failed";
    // While a turn/start is UNKNOWN the task stays so: only evidence for exactly its turn settles it (unknown-outcomes).
    const status: TaskState = repo.task(taskId)?.state === "unknown" ? "unknown" : ended;
    const why = turnFailure(ended, c.error, live.stopReason);
    repo.tx(() => {
      events.flushInside(taskId);
      repo.updateTask(taskId, { state: status, final_message: c.finalText, failure: why });
      if (live.diff !== null) repo.upsertItem({ task_id: taskId, item_id: `diff:${c.turnId}`, turn_id: c.turnId, type: "turnDiff", status: "final", data: { diff: live.diff } });
      for (const i of repo.interactions(taskId, ["pending"])) {
        repo.updateInteraction(i.id, { state: "stale", note: `the turn ended (${c.status}) before it was answered` });
      }
    });
    events.wake(taskId);
    if (why) this.ctx.log(ended === "failed" ? "error" : "warn", `turn_${ended}`, { task: taskId, turn: c.turnId, code: why.code });
    else this.ctx.log("info", "turn_completed", { task: taskId, turn: c.turnId });
  }
}

/** A completed turn has no failure; an interrupted one says who stopped it; a failed one is classified. */
function turnFailure(status: TaskState, error: { message: string; codexErrorInfo: unknown; details: string | null } | null, stopReason: Failure["code"] | null): Failure | null {
  if (status === "completed") return null;
  if (status === "interrupted") {
    if (stopReason) return failure(stopReason);
    return failure("unknown", "The turn was interrupted outside the bridge (another Codex client, or Codex itself); codex_send continues the thread.");
  }
  return error ? classifyTurnError(error.message, error.codexErrorInfo, error.details) : failure("unknown");
}
