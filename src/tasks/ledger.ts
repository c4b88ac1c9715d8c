// The interaction ledger: every approval, question, elicitation and relayed tool call Codex asks, bound to its
// original JSON-RPC id, and answered at most once (pending -> uncertain -> submitted -> resolved/stale).
import { createHash } from "node:crypto";
import type { AppServerClient } from "../codex/client.ts";
import type { RpcId } from "../codex/rpc-messages.ts";
import { BridgeError } from "../bridge-error.ts";
import { ANSWERED_BY, checkAnswerer, type Answerer } from "../policy/answerer.ts";
import { decide, type RespondInput } from "../policy/decisions.ts";
import { replyTo } from "../codex/protocol/requests.ts";
import { redactValue } from "../policy/redact.ts";
import type { InteractionKind, InteractionRow, TaskRow } from "../store/rows.ts";
import type { ProfileSpec, ProjectSpec } from "../config/settings.ts";
import { newId, refreshState, type TaskContext } from "./context.ts";

/** `answered_by` of a request another client of a shared app-server answered first. */
export const ANSWERED_ELSEWHERE = "another_client";

export interface ToolResultInput {
  task_id: string;
  request_id: string;
  status: "success" | "error" | "unavailable" | "declined";
  result: unknown;
  sources?: unknown[];
  tool_used?: string;
}

export interface RecordRequest {
  taskId: string;
  kind: InteractionKind;
  method: string;
  rpcId: RpcId;
  connectionId: string;
  threadId: string | null;
  turnId: string | null;
  itemId: string | null;
  params: Record<string, unknown>;
}

export class InteractionLedger {
  constructor(private readonly ctx: TaskContext) {}

  /** Stores a request Codex asked and marks it on the task's event stream. */
  record(r: RecordRequest): void {
    const { repo, events } = this.ctx;
    const id = newId("r_");
    // One commit: what was buffered before the request, then the request and its event (in that order).
    repo.tx(() => {
      events.flushInside(r.taskId);
      repo.insertInteraction({
        id,
        task_id: r.taskId,
        kind: r.kind,
        method: r.method,
        rpc_id: r.rpcId,
        connection_id: r.connectionId,
        thread_id: r.threadId,
        turn_id: r.turnId,
        item_id: r.itemId,
        state: "pending",
        params: redactValue(r.params) as Record<string, unknown>,
      });
      repo.appendEvents(r.taskId, [{ turn_id: r.turnId, kind: "request", item_id: r.itemId, data: { request_id: id, kind: r.kind } }]);
      refreshState(this.ctx, r.taskId);
    });
    events.wake(r.taskId);
    this.ctx.log("info", "request_pending", { task: r.taskId, request: id, kind: r.kind });
  }

  /**
   * Answers an approval, permission request, question or elicitation with its original id, if the profile's
   * `approvals` setting lets `by` answer it; who answered is recorded with the answer.
   */
  async respond(task: TaskRow, input: RespondInput, scope: { project: ProjectSpec; profile: ProfileSpec }, by: Answerer): Promise<{ interaction: InteractionRow; repeated: boolean }> {
    const i = this.interactionFor(task, input.request_id);
    if (i.kind === "tool") throw new BridgeError(`${i.id} is a bridge_web_tool call; answer it with codex_submit_tool_result`, "request_id");
    checkAnswerer(scope.profile.approvals, by, i.id);
    const response = replyTo(i.method, decide(i, input, { projectRoot: scope.project.cwd, profile: scope.profile }));
    return this.deliver(task, i, response, hashOf({ action: input.action, payload: input.payload ?? null }), by);
  }

  async submitToolResult(task: TaskRow, input: ToolResultInput): Promise<{ interaction: InteractionRow; repeated: boolean; bytes: number }> {
    const i = this.interactionFor(task, input.request_id);
    if (i.kind !== "tool") throw new BridgeError(`${i.id} is a ${i.kind} request, not a bridge_web_tool call; answer it with codex_respond`, "request_id");
    const submission = { status: input.status, result: input.result, sources: input.sources ?? [], tool_used: input.tool_used ?? null };
    const bytes = Buffer.byteLength(JSON.stringify(submission), "utf8");
    const limit = this.ctx.settings.relay.max_result_bytes;
    if (bytes > limit) {
      throw new BridgeError(`the submission is ${bytes} bytes; [relay] max_result_bytes is ${limit}. Send a shorter result (summarize, or split the work into several requests); nothing was sent`, "result");
    }
    const text = relayText(submission);
    const response = replyTo(i.method, { kind: "toolResult", text, success: input.status === "success" });
    const out = await this.deliver(task, i, response, hashOf(submission), "supervisor", submission);
    return { ...out, bytes };
  }

  private interactionFor(task: TaskRow, requestId: string): InteractionRow {
    const i = this.ctx.repo.interaction(requestId);
    if (!i || i.task_id !== task.id) {
      const pending = this.ctx.repo.interactions(task.id, ["pending"]).map((p) => p.id);
      throw new BridgeError(`request_id "${requestId}" is not a request of ${task.id}; pending: ${pending.join(", ") || "none"}`, "request_id");
    }
    return i;
  }

  private async deliver(task: TaskRow, i: InteractionRow, response: unknown, hash: string, by: Answerer, stored?: unknown): Promise<{ interaction: InteractionRow; repeated: boolean }> {
    const { repo, runtimes, events } = this.ctx;
    if (i.state !== "pending") {
      if (i.response_hash === hash) return { interaction: i, repeated: true };
      const why =
        i.state === "stale"
          ? `it is stale (${i.note ?? "no longer pending"})`
          : i.answered_by === ANSWERED_ELSEWHERE
            ? "it is already settled: it was answered in another Codex client on the shared app-server"
            : `it was already answered (state ${i.state})`;
      throw new BridgeError(`request ${i.id} cannot be answered: ${why}. A different answer is refused; nothing was sent`, "request_id");
    }
    const client = runtimes.clientFor(i.connection_id);
    if (!client) {
      repo.updateInteraction(i.id, { state: "stale", note: "the app-server connection that asked it is gone" });
      this.ctx.log("warn", i.kind === "tool" ? "relay_stale" : "request_stale", { task: task.id, request: i.id });
      throw new BridgeError(`request ${i.id} is stale: the app-server connection that asked it is gone. Nothing was sent`, "request_id");
    }
    // Recorded as uncertain before the write: a crash mid-send must never lead to a second send.
    repo.updateInteraction(i.id, { state: "uncertain", response: stored ?? response, response_hash: hash, answered_by: ANSWERED_BY[by], note: "sending" });
    try {
      await client.respond(i.rpc_id, response);
    } catch (err) {
      repo.updateInteraction(i.id, { note: `send interrupted: ${String(err)}` });
      this.ctx.log("error", "answer_uncertain", { task: task.id, request: i.id });
      throw new BridgeError(`the answer to ${i.id} may or may not have reached Codex (${String(err)}); it is recorded as uncertain and will not be resent`);
    }
    repo.tx(() => {
      const cur = repo.interaction(i.id)!;
      // The resolution event can beat us here; never downgrade it.
      if (cur.state === "uncertain") repo.updateInteraction(i.id, { state: "submitted", note: "written to the app-server" });
      refreshState(this.ctx, task.id);
    });
    this.ctx.log("info", "request_answered", { task: task.id, request: i.id, kind: i.kind });
    events.wake(task.id);
    return { interaction: repo.interaction(i.id)!, repeated: false };
  }

  /** Codex's own serverRequest/resolved for one of our requests. */
  resolveByRpc(client: AppServerClient, rpcId: RpcId): void {
    const candidates = this.ctx.repo.interactionsByConnection(client.connectionId, ["pending", "submitted", "uncertain"]);
    const i = candidates.find((c) => c.rpc_id === rpcId);
    if (!i) return;
    // On a shared server, a request still pending while its turn goes on was answered by another client (the first
    // answer wins; an interrupt ends the turn first, and the turn's end has already made it stale).
    if (client.shared && i.state === "pending") return this.settleElsewhere(i);
    // Codex closing a request nobody answered (interrupt, its own reviewer) is not a resolution of ours.
    this.settle(i, i.state === "pending" ? "stale" : "resolved");
  }

  /** Answered in another Codex client on the shared server: recorded as answered there, never answered again. */
  private settleElsewhere(i: InteractionRow): void {
    const { repo, events } = this.ctx;
    repo.tx(() => {
      events.flushInside(i.task_id);
      repo.updateInteraction(i.id, { state: "resolved", answered_by: ANSWERED_ELSEWHERE, note: "answered in another Codex client on the shared app-server" });
      repo.appendEvents(i.task_id, [{ turn_id: i.turn_id, kind: "request_closed", item_id: i.item_id, data: { request_id: i.id, state: "resolved", answered_by: ANSWERED_ELSEWHERE } }]);
      refreshState(this.ctx, i.task_id);
    });
    events.wake(i.task_id);
    this.ctx.log("info", "request_answered_elsewhere", { task: i.task_id, request: i.id, kind: i.kind });
  }

  /** The relayed tool call's item completed: its answer was taken. */
  resolveToolCall(taskId: string, callId: string): void {
    // Even on a shared server a tool call reaches only the thread's starter (docs/SHARED-APP-SERVER-FACTS.md §4), so
    // one still pending when its item completes was closed by Codex (an interrupt), never answered elsewhere.
    const i = this.ctx.repo.interactions(taskId, ["pending", "submitted", "uncertain"]).find((x) => x.kind === "tool" && x.item_id === callId);
    if (i) this.settle(i, i.state === "pending" ? "stale" : "resolved");
  }

  private settle(i: InteractionRow, state: "resolved" | "stale"): void {
    const { repo, events } = this.ctx;
    repo.tx(() => {
      events.flushInside(i.task_id);
      repo.updateInteraction(i.id, { state, note: state === "resolved" ? "confirmed by Codex" : "Codex closed it without an answer" });
      repo.appendEvents(i.task_id, [{ turn_id: i.turn_id, kind: "request_closed", item_id: i.item_id, data: { request_id: i.id, state } }]);
      refreshState(this.ctx, i.task_id);
    });
    events.wake(i.task_id);
    if (state === "stale") this.ctx.log("warn", i.kind === "tool" ? "relay_stale" : "request_stale", { task: i.task_id, request: i.id });
  }
}

export function hashOf(v: unknown): string {
  return createHash("sha256").update(JSON.stringify(v)).digest("hex");
}

/** What Codex reads back from a relayed tool: the host's own words, labelled for what they are. */
export function relayText(s: { status: string; result: unknown; sources: unknown[]; tool_used: string | null }): string {
  const body = typeof s.result === "string" ? s.result : JSON.stringify(s.result, null, 1);
  const lines: string[] = [];
  if (s.status !== "success") lines.push(`[host tool ${s.status}]`);
  lines.push(body);
  if (s.sources.length > 0) {
    lines.push("Sources:");
    for (const src of s.sources) lines.push(`- ${typeof src === "string" ? src : JSON.stringify(src)}`);
  }
  if (s.tool_used) lines.push(`(via host tool ${s.tool_used}; a host report, not independently verified)`);
  return lines.join("\n");
}
