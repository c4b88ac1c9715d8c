import { createHash, randomBytes } from "node:crypto";
import type { AppServerClient } from "../codex/client.ts";
import { ConnectionClosedError, RpcError, UnknownOutcomeError } from "../codex/errors.ts";
import type { RpcId, ServerNotification, ServerRequest } from "../codex/rpc-messages.ts";
import type { Repo } from "../store/repo.ts";
import { BridgeError } from "./errors.ts";
import { explainFailure } from "./failure.ts";
import type { TaskIngest } from "./ingest.ts";
import { checkModelChoice, listAllModels, type LiveModel } from "./models.ts";
import { TaskEvents } from "./task-events.ts";
import { buildResponse, type RespondInput } from "./respond.ts";
import { type InteractionKind, type InteractionRow, SETTLED_STATES, type TaskRow, type TaskState, TERMINAL_STATES } from "./model.ts";
import { redactText, redactValue } from "./redact.ts";
import { RELAY_ARGUMENTS_MAX_CHARS, RELAY_REQUEST_MAX_CHARS, RELAY_TOOL_NAME, RELAY_TOOL_SPEC } from "./relay-tool.ts";
import type { CodexRuntime } from "./runtime.ts";
import { DEFAULT_PROFILE, type ProfileSpec, type ProjectSpec, type SupervisorSettings } from "./settings.ts";

export const PROMPT_MAX_CHARS = 100_000;


const newId = (prefix: string) => `${prefix}${randomBytes(5).toString("hex")}`;

const REQUEST_KINDS: Record<string, InteractionKind> = {
  "item/commandExecution/requestApproval": "command",
  "item/fileChange/requestApproval": "fileChange",
  "item/permissions/requestApproval": "permissions",
  "item/tool/requestUserInput": "userInput",
  "mcpServer/elicitation/request": "elicitation",
  "item/tool/call": "tool",
};


export interface StartInput {
  project_id?: string;
  prompt: string;
  profile?: string;
  model?: string;
  effort?: string;
  thread_id?: string;
}

/**
 * The domain: tasks, turns, events, interactions. It knows nothing of MCP; the MCP layer calls these methods and
 * renders what they return.
 */
export class Supervisor {
  private readonly threadTask = new Map<string, string>();
  private readonly events: TaskEvents;
  readonly startedAt = Date.now();

  constructor(
    readonly repo: Repo,
    readonly runtime: CodexRuntime,
    readonly settings: SupervisorSettings,
    private readonly log: (msg: string) => void = () => {},
  ) {
    this.events = new TaskEvents(repo);
  }

  /** After a bridge restart nothing of the old connection survives: settle what was in flight, keep every record. */
  recoverAfterRestart(): { lost: number; stale: number; uncertain: number } {
    let lost = 0;
    let stale = 0;
    let uncertain = 0;
    this.repo.tx(() => {
      for (const t of this.repo.tasksInStates(["starting", "running", "waiting_for_approval", "waiting_for_tool"])) {
        this.repo.updateTask(t.id, { state: "connection_lost" });
        this.repo.appendEvents(t.id, [{ turn_id: t.turn_id, kind: "connection_lost", data: { detail: "the bridge restarted while the turn was active" } }]);
        lost++;
      }
      for (const i of this.repo.interactionsInStates(["pending"])) {
        this.repo.updateInteraction(i.id, { state: "stale", note: "the bridge restarted before it was answered" });
        stale++;
      }
      for (const i of this.repo.interactionsInStates(["submitted"])) {
        this.repo.updateInteraction(i.id, { state: "uncertain", note: "the bridge restarted before Codex confirmed it" });
        uncertain++;
      }
    });
    for (const t of this.repo.recentTasks(200)) if (t.thread_id) this.threadTask.set(t.thread_id, t.id);
    return { lost, stale, uncertain };
  }

  // ---------------------------------------------------------------- app-server events

  onNotification(client: AppServerClient, n: ServerNotification): void {
    const params = (n.params ?? {}) as Record<string, unknown>;
    if (n.method === "serverRequest/resolved") {
      this.resolveInteraction(client.connectionId, params.requestId as RpcId, "resolved");
      return;
    }
    const threadId = typeof params.threadId === "string" ? params.threadId : null;
    if (!threadId) return;
    const taskId = this.threadTask.get(threadId);
    if (!taskId) return;
    const live = this.events.state(taskId);
    const res = live.ingest.handle(n.method, n.params);
    if (res.diff !== undefined) live.diff = res.diff;
    live.buffer.push(...res.events);
    live.items.push(...res.items.map((i) => ({ ...i, task_id: taskId })));
    if (n.method === "item/completed") {
      const item = (params.item ?? {}) as Record<string, unknown>;
      if (item.type === "dynamicToolCall" && typeof item.id === "string") this.resolveToolCall(taskId, item.id);
    }
    if (res.turnStarted) {
      this.events.flush(taskId);
      this.repo.updateTask(taskId, { turn_id: res.turnStarted });
    }
    if (res.turnCompleted) {
      this.completeTurn(taskId, res.turnCompleted);
      return;
    }
    if (res.wake === "supervision" || res.events.some((e) => e.kind === "message")) this.events.flush(taskId);
    else this.events.scheduleFlush(taskId, res.wake === "activity" ? 10 : 50);
  }

  onServerRequest(client: AppServerClient, r: ServerRequest): void {
    const params = (r.params ?? {}) as Record<string, unknown>;
    const threadId = typeof params.threadId === "string" ? params.threadId : null;
    const taskId = threadId ? this.threadTask.get(threadId) : undefined;
    const kind = REQUEST_KINDS[r.method] ?? "unknown";
    if (!taskId) {
      // Not a thread this bridge supervises: refuse rather than leave Codex hanging.
      void client.respondError(r.id, -32603, "codex-bridge has no task for this thread").catch(() => {});
      return;
    }
    if (kind === "tool" && params.tool !== RELAY_TOOL_NAME) {
      void client.respond(r.id, { contentItems: [{ type: "inputText", text: `Tool ${String(params.tool)} is not provided by codex-bridge.` }], success: false }).catch(() => {});
      return;
    }
    if (kind === "tool") {
      const args = JSON.stringify(params.arguments ?? {});
      const request = (params.arguments as Record<string, unknown> | undefined)?.request;
      const problem =
        args.length > RELAY_ARGUMENTS_MAX_CHARS
          ? `arguments are ${args.length} characters; at most ${RELAY_ARGUMENTS_MAX_CHARS} are accepted`
          : typeof request === "string" && request.length > RELAY_REQUEST_MAX_CHARS
            ? `request is ${request.length} characters; at most ${RELAY_REQUEST_MAX_CHARS} are accepted`
            : null;
      if (problem) {
        void client.respond(r.id, { contentItems: [{ type: "inputText", text: `bridge_web_tool refused: ${problem}. Shorten the request.` }], success: false }).catch(() => {});
        this.events.appendNow(taskId, [{ turn_id: (params.turnId as string) ?? null, kind: "warning", data: { message: `bridge_web_tool call refused: ${problem}` } }]);
        return;
      }
    }
    if (r.method === "account/chatgptAuthTokens/refresh" || r.method === "attestation/generate") {
      void client.respondError(r.id, -32601, "not supported by codex-bridge").catch(() => {});
      return;
    }
    const id = newId("r_");
    const itemId = typeof params.itemId === "string" ? params.itemId : typeof params.callId === "string" ? params.callId : null;
    const turnId = typeof params.turnId === "string" ? params.turnId : null;
    this.events.flush(taskId);
    this.repo.tx(() => {
      this.repo.insertInteraction({
        id,
        task_id: taskId,
        kind,
        method: r.method,
        rpc_id: r.id,
        connection_id: client.connectionId,
        thread_id: threadId,
        turn_id: turnId,
        item_id: itemId,
        state: "pending",
        params: redactValue(params) as Record<string, unknown>,
      });
      this.repo.appendEvents(taskId, [{ turn_id: turnId, kind: "request", item_id: itemId, data: { request_id: id, kind } }]);
      this.refreshState(taskId);
    });
    this.events.wake(taskId);
  }

  onExit(client: AppServerClient): void {
    const affected = new Set<string>();
    for (const t of this.repo.tasksInStates(["starting", "running", "waiting_for_approval", "waiting_for_tool"])) {
      if (t.connection_id === client.connectionId) affected.add(t.id);
    }
    const exit = client.exit;
    const detail = exit ? (exit.signal ? `the Codex app-server was killed (${exit.signal})` : `the Codex app-server exited with code ${exit.code}`) : "the Codex app-server exited";
    for (const taskId of affected) this.events.flush(taskId);
    this.repo.tx(() => {
      for (const i of this.repo.interactionsByConnection(client.connectionId, ["pending"])) {
        this.repo.updateInteraction(i.id, { state: "stale", note: "the app-server connection was lost" });
      }
      for (const i of this.repo.interactionsByConnection(client.connectionId, ["submitted"])) {
        // Written, but Codex never confirmed it: whether it acted on the answer is unknown, exactly as after a bridge restart.
        this.repo.updateInteraction(i.id, { state: "uncertain", note: "the app-server exited before confirming the answer" });
      }
      for (const taskId of affected) {
        const t = this.repo.task(taskId)!;
        this.repo.updateTask(taskId, { state: "connection_lost" });
        this.repo.appendEvents(taskId, [{ turn_id: t.turn_id, kind: "connection_lost", data: { detail } }]);
      }
    });
    for (const taskId of affected) {
      this.events.forget(taskId);
      this.events.wake(taskId);
    }
  }

  // ---------------------------------------------------------------- tools

  project(id: string | undefined): ProjectSpec {
    const ids = Object.keys(this.settings.projects);
    if (!id) throw new BridgeError(`project_id is required; configured projects: ${ids.join(", ") || "none (add [projects.<id>] to the config)"}`, "project_id");
    const p = this.settings.projects[id] ?? Object.values(this.settings.projects).find((x) => x.aliases?.includes(id));
    if (!p) throw new BridgeError(`project_id "${id}" is not configured; use one of: ${ids.join(", ") || "none (add [projects.<id>] to the config)"}`, "project_id");
    return p;
  }

  profile(id: string | undefined): ProfileSpec {
    const pid = id ?? "default";
    const p = this.settings.profiles[pid] ?? (pid === "default" ? DEFAULT_PROFILE : undefined);
    if (!p) throw new BridgeError(`profile "${pid}" is not configured; use one of: ${Object.keys(this.settings.profiles).join(", ") || "default"}`, "profile");
    return p;
  }

  task(taskId: string): TaskRow {
    const t = this.repo.task(taskId);
    if (!t) throw new BridgeError(`task_id "${taskId}" is unknown; codex_status without task_id lists recent tasks`, "task_id");
    return t;
  }

  async start(input: StartInput): Promise<TaskRow> {
    const profile = this.profile(input.profile);
    if (input.prompt.length > PROMPT_MAX_CHARS) throw new BridgeError(`prompt is ${input.prompt.length} characters; at most ${PROMPT_MAX_CHARS}`, "prompt");
    if (!input.prompt.trim()) throw new BridgeError("prompt is empty; say what Codex should do", "prompt");
    const model = input.model ?? (profile.model || null);
    const effort = input.effort ?? (profile.effort || null);
    let project: ProjectSpec;
    if (input.thread_id) {
      project = input.project_id ? this.project(input.project_id) : this.firstProject();
    } else {
      project = this.project(input.project_id);
    }
    const client = await this.runtime.ensure();
    await checkModelChoice(client, model, effort, profile.service_tier || null);
    const relay = !input.thread_id && this.settings.relay.enabled;
    const task = this.repo.insertTask({
      id: newId("t_"),
      project_id: project.id,
      profile_id: profile.id,
      prompt: redactText(input.prompt),
      relay,
      model,
      effort,
      state: "starting",
    });
    this.repo.updateTask(task.id, { connection_id: client.connectionId });
    try {
      let threadId: string;
      if (input.thread_id) {
        await client.request("thread/resume", { threadId: input.thread_id, excludeTurns: true, cwd: project.cwd });
        threadId = input.thread_id;
      } else {
        const res = await client.request<Record<string, unknown> & { thread: { id: string } }>("thread/start", {
          cwd: project.cwd,
          approvalPolicy: profile.approval_policy,
          sandbox: profile.sandbox_type,
          ...(model ? { model } : {}),
          ...(profile.service_tier ? { serviceTier: profile.service_tier } : {}),
          ...(relay ? { dynamicTools: [RELAY_TOOL_SPEC] } : {}),
        });
        threadId = res.thread.id;
        this.repo.setContext(task.id, {
          requested: { cwd: project.cwd, model: model ?? "(default)", effort: effort ?? "(default)", approval_policy: profile.approval_policy, sandbox: profile.sandbox_type, network_access: profile.network_access },
          native: nativeContext(res),
        });
      }
      this.runtime.loadedThreads.add(threadId);
      this.threadTask.set(threadId, task.id);
      this.repo.updateTask(task.id, { thread_id: threadId });
      this.events.state(task.id);
      await this.startTurn(client, task.id, input.prompt, profile, project, model, effort);
    } catch (err) {
      this.failStart(task.id, err);
    }
    return this.repo.task(task.id)!;
  }

  private firstProject(): ProjectSpec {
    const first = Object.values(this.settings.projects)[0];
    if (!first) throw new BridgeError("project_id is required and no project is configured (add [projects.<id>] to the config)", "project_id");
    return first;
  }

  private failStart(taskId: string, err: unknown): void {
    const t = this.repo.task(taskId)!;
    if (err instanceof UnknownOutcomeError) {
      this.repo.updateTask(taskId, { state: "unknown", unknown: { method: err.method, at: new Date().toISOString(), detail: err.message } });
      this.events.appendNow(taskId, [{ turn_id: t.turn_id, kind: "unknown", data: { method: err.method, detail: err.message } }]);
      return;
    }
    if (err instanceof ConnectionClosedError) {
      this.repo.updateTask(taskId, { state: "connection_lost" });
      this.events.appendNow(taskId, [{ turn_id: t.turn_id, kind: "connection_lost", data: { detail: err.message } }]);
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    this.repo.updateTask(taskId, { state: "failed", error: { message: redactText(message), codexErrorInfo: null, explanation: "Codex refused to start the turn; read the message and fix the input or configuration." } });
    this.events.appendNow(taskId, [{ turn_id: t.turn_id, kind: "turn_completed", data: { status: "failed", error: redactText(message) } }]);
  }

  private async startTurn(client: AppServerClient, taskId: string, text: string, profile: ProfileSpec, project: ProjectSpec, model: string | null, effort: string | null): Promise<void> {
    const t = this.repo.task(taskId)!;
    const params: Record<string, unknown> = {
      threadId: t.thread_id,
      input: [{ type: "text", text, text_elements: [] }],
      approvalPolicy: profile.approval_policy,
      sandboxPolicy: sandboxPolicy(profile, project),
      ...(model ? { model } : {}),
      ...(effort ? { effort } : {}),
    };
    this.repo.updateTask(taskId, { state: "starting", connection_id: client.connectionId, error: null, final_message: null, unknown: null });
    const res = await client.request<{ turn: { id: string } }>("turn/start", params, { timeoutMs: this.settings.ackTimeoutMs });
    const cur = this.repo.task(taskId)!;
    const patch: Parameters<Repo["updateTask"]>[1] = { turn_id: res.turn.id, turn_count: cur.turn_count + 1 };
    if (cur.state === "starting") patch.state = "running";
    this.repo.updateTask(taskId, patch);
    this.events.state(taskId).ingest.setTurn(res.turn.id);
  }

  async send(input: { task_id: string; message: string; model?: string; effort?: string }): Promise<{ task: TaskRow; action: "steered" | "new_turn" | "recovery_turn" }> {
    const task = this.task(input.task_id);
    if (!input.message.trim()) throw new BridgeError("message is empty; say what Codex should do", "message");
    if (input.message.length > PROMPT_MAX_CHARS) throw new BridgeError(`message is ${input.message.length} characters; at most ${PROMPT_MAX_CHARS}`, "message");
    if (!task.thread_id) throw new BridgeError("this task never got a Codex thread; start a new task with codex_start", "task_id");
    if (task.state === "unknown") {
      throw new BridgeError(`the last ${task.unknown?.method ?? "request"} of this task has an UNKNOWN outcome (it may have been accepted); check codex_status and codex_threads before sending more`, "task_id");
    }
    const profile = this.profile(task.profile_id);
    const project = this.project(task.project_id);
    const client = await this.runtime.ensure();
    const active = !SETTLED_STATES.has(task.state) && task.connection_id === client.connectionId && task.turn_id;
    if (active) {
      try {
        await client.request("turn/steer", { threadId: task.thread_id, expectedTurnId: task.turn_id, input: [{ type: "text", text: input.message, text_elements: [] }] }, { timeoutMs: this.settings.ackTimeoutMs });
        return { task: this.repo.task(task.id)!, action: "steered" };
      } catch (err) {
        if (err instanceof UnknownOutcomeError) {
          this.events.appendNow(task.id, [{ turn_id: task.turn_id, kind: "unknown", data: { method: "turn/steer", detail: err.message } }]);
          throw new BridgeError(err.message);
        }
        if (!(err instanceof RpcError) || !/no active turn/.test(err.message)) throw err;
        // The turn ended between our check and the steer: fall through to a new turn.
      }
    }
    const recovering = task.state === "connection_lost";
    if (!this.runtime.loadedThreads.has(task.thread_id)) {
      await client.request("thread/resume", { threadId: task.thread_id, excludeTurns: true }, { timeoutMs: this.settings.ackTimeoutMs }).catch((err: unknown) => {
        if (err instanceof UnknownOutcomeError) throw new BridgeError(`thread/resume outcome UNKNOWN; not retried. ${err.message}`);
        throw err;
      });
      this.runtime.loadedThreads.add(task.thread_id);
    }
    this.threadTask.set(task.thread_id, task.id);
    this.events.forget(task.id);
    this.events.state(task.id);
    try {
      await this.startTurn(client, task.id, input.message, profile, project, input.model ?? task.model, input.effort ?? task.effort);
    } catch (err) {
      this.failStart(task.id, err);
    }
    return { task: this.repo.task(task.id)!, action: recovering ? "recovery_turn" : "new_turn" };
  }

  async cancel(input: { task_id: string; reason?: string }, waitMs = 10_000): Promise<{ task: TaskRow; terminated: number; note: string }> {
    const task = this.task(input.task_id);
    if (SETTLED_STATES.has(task.state)) return { task, terminated: 0, note: `already ${task.state}; nothing to cancel` };
    const client = this.runtime.current;
    if (!client || task.connection_id !== client.connectionId || !task.thread_id || !task.turn_id) {
      return { task, terminated: 0, note: "the turn is not on the live connection; nothing was sent" };
    }
    if (input.reason) this.events.appendNow(task.id, [{ turn_id: task.turn_id, kind: "cancel_requested", data: { reason: redactText(input.reason) } }]);
    const done = this.events.waitForSettled(task.id, waitMs);
    const interrupt = () => client.request("turn/interrupt", { threadId: task.thread_id, turnId: task.turn_id }, { timeoutMs: this.settings.ackTimeoutMs });
    try {
      try {
        await interrupt();
      } catch (err) {
        // Right after turn/start Codex may not count the turn as active yet; a refused request was not applied, so one retry is safe.
        if (!(err instanceof RpcError) || !/no active turn/.test(err.message)) throw err;
        await new Promise((r) => setTimeout(r, 300));
        if (SETTLED_STATES.has(this.repo.task(task.id)!.state)) return { task: this.repo.task(task.id)!, terminated: 0, note: "the turn had already ended" };
        await interrupt();
      }
    } catch (err) {
      if (err instanceof UnknownOutcomeError) {
        this.events.appendNow(task.id, [{ turn_id: task.turn_id, kind: "unknown", data: { method: "turn/interrupt", detail: err.message } }]);
        return { task: this.repo.task(task.id)!, terminated: 0, note: err.message };
      }
      throw err;
    }
    const settled = await done;
    // The interrupt leaves running commands alive as background terminals: stop them too.
    let terminated = 0;
    try {
      const list = await client.request<{ data?: { processId?: string }[] }>("thread/backgroundTerminals/list", { threadId: task.thread_id }, { timeoutMs: 5000 });
      for (const term of list.data ?? []) {
        if (!term.processId) continue;
        const r = await client.request<{ terminated?: boolean }>("thread/backgroundTerminals/terminate", { threadId: task.thread_id, processId: term.processId }, { timeoutMs: 5000 });
        if (r.terminated) terminated++;
      }
    } catch (err) {
      this.log(`background terminal cleanup failed: ${String(err)}`);
    }
    const after = this.repo.task(task.id)!;
    return { task: after, terminated, note: settled ? `turn ${after.state}` : "interrupt sent; turn/completed not seen yet, keep calling codex_wait" };
  }

  // ---------------------------------------------------------------- interactions

  /** Answers an approval, permission request, question or elicitation with its original id. */
  async respond(input: RespondInput): Promise<{ interaction: InteractionRow; repeated: boolean }> {
    const task = this.task(input.task_id);
    const i = this.interactionFor(task, input.request_id);
    if (i.kind === "tool") throw new BridgeError(`${i.id} is a bridge_web_tool call; answer it with codex_submit_tool_result`, "request_id");
    const built = buildResponse(i, input, { projectRoot: this.project(task.project_id).cwd, profile: this.profile(task.profile_id) });
    return this.deliver(task, i, built.response, hashOf({ action: input.action, payload: input.payload ?? null }));
  }

  async submitToolResult(input: {
    task_id: string;
    request_id: string;
    status: "success" | "error" | "unavailable" | "declined";
    result: unknown;
    sources?: unknown[];
    tool_used?: string;
  }): Promise<{ interaction: InteractionRow; repeated: boolean; bytes: number }> {
    const task = this.task(input.task_id);
    const i = this.interactionFor(task, input.request_id);
    if (i.kind !== "tool") throw new BridgeError(`${i.id} is a ${i.kind} request, not a bridge_web_tool call; answer it with codex_respond`, "request_id");
    const submission = { status: input.status, result: input.result, sources: input.sources ?? [], tool_used: input.tool_used ?? null };
    const bytes = Buffer.byteLength(JSON.stringify(submission), "utf8");
    const limit = this.settings.relay.max_result_bytes;
    if (bytes > limit) {
      throw new BridgeError(`the submission is ${bytes} bytes; [relay] max_result_bytes is ${limit}. Send a shorter result (summarize, or split the work into several requests); nothing was sent`, "result");
    }
    const text = relayText(submission);
    const response = { contentItems: [{ type: "inputText", text }], success: input.status === "success" };
    const out = await this.deliver(task, i, response, hashOf(submission), submission);
    return { ...out, bytes };
  }

  private interactionFor(task: TaskRow, requestId: string): InteractionRow {
    const i = this.repo.interaction(requestId);
    if (!i || i.task_id !== task.id) {
      const pending = this.repo.interactions(task.id, ["pending"]).map((p) => p.id);
      throw new BridgeError(`request_id "${requestId}" is not a request of ${task.id}; pending: ${pending.join(", ") || "none"}`, "request_id");
    }
    return i;
  }

  private async deliver(task: TaskRow, i: InteractionRow, response: unknown, hash: string, stored?: unknown): Promise<{ interaction: InteractionRow; repeated: boolean }> {
    if (i.state !== "pending") {
      if (i.response_hash === hash) return { interaction: i, repeated: true };
      const why = i.state === "stale" ? `it is stale (${i.note ?? "no longer pending"})` : `it was already answered (state ${i.state})`;
      throw new BridgeError(`request ${i.id} cannot be answered: ${why}. A different answer is refused; nothing was sent`, "request_id");
    }
    const client = this.runtime.current;
    if (!client || client.connectionId !== i.connection_id) {
      this.repo.updateInteraction(i.id, { state: "stale", note: "the app-server connection that asked it is gone" });
      throw new BridgeError(`request ${i.id} is stale: the app-server connection that asked it is gone. Nothing was sent`, "request_id");
    }
    // Recorded as uncertain before the write: a crash mid-send must never lead to a second send.
    this.repo.updateInteraction(i.id, { state: "uncertain", response: stored ?? response, response_hash: hash, note: "sending" });
    try {
      await client.respond(i.rpc_id, response);
    } catch (err) {
      this.repo.updateInteraction(i.id, { note: `send interrupted: ${String(err)}` });
      throw new BridgeError(`the answer to ${i.id} may or may not have reached Codex (${String(err)}); it is recorded as uncertain and will not be resent`);
    }
    this.repo.tx(() => {
      const cur = this.repo.interaction(i.id)!;
      // The resolution event can beat us here; never downgrade it.
      if (cur.state === "uncertain") this.repo.updateInteraction(i.id, { state: "submitted", note: "written to the app-server" });
      this.refreshState(task.id);
    });
    this.events.wake(task.id);
    return { interaction: this.repo.interaction(i.id)!, repeated: false };
  }

  private resolveInteraction(connectionId: string, rpcId: RpcId, state: "resolved" | "stale"): void {
    const candidates = this.repo.interactionsByConnection(connectionId, ["pending", "submitted", "uncertain"]);
    const i = candidates.find((c) => c.rpc_id === rpcId);
    if (!i) return;
    // Codex closing a request nobody answered (interrupt, its own reviewer) is not a resolution of ours.
    this.settleInteraction(i, i.state === "pending" ? "stale" : state);
  }

  private resolveToolCall(taskId: string, callId: string): void {
    const i = this.repo.interactions(taskId, ["pending", "submitted", "uncertain"]).find((x) => x.kind === "tool" && x.item_id === callId);
    if (i) this.settleInteraction(i, i.state === "pending" ? "stale" : "resolved");
  }

  private settleInteraction(i: InteractionRow, state: "resolved" | "stale"): void {
    this.events.flush(i.task_id);
    this.repo.tx(() => {
      this.repo.updateInteraction(i.id, { state, note: state === "resolved" ? "confirmed by Codex" : "Codex closed it without an answer" });
      this.repo.appendEvents(i.task_id, [{ turn_id: i.turn_id, kind: "request_closed", item_id: i.item_id, data: { request_id: i.id, state } }]);
      this.refreshState(i.task_id);
    });
    this.events.wake(i.task_id);
  }

  /** Derives running / waiting_for_* from the open interactions. */
  private refreshState(taskId: string): void {
    const t = this.repo.task(taskId);
    if (!t || SETTLED_STATES.has(t.state) || t.state === "starting") return;
    const open = this.repo.interactions(taskId, ["pending"]);
    const next: TaskState = open.some((i) => i.kind === "tool") ? "waiting_for_tool" : open.length > 0 ? "waiting_for_approval" : "running";
    if (next !== t.state) this.repo.updateTask(taskId, { state: next });
  }

  private completeTurn(taskId: string, c: NonNullable<ReturnType<TaskIngest["handle"]>["turnCompleted"]>): void {
    const live = this.events.state(taskId);
    const status: TaskState = c.status === "completed" ? "completed" : c.status === "interrupted" ? "interrupted" : "failed";
    this.repo.tx(() => {
      this.events.flushInside(taskId);
      const error = c.error ? { message: c.error.message, codexErrorInfo: c.error.codexErrorInfo, explanation: explainFailure(c.error.message, c.error.codexErrorInfo) } : null;
      this.repo.updateTask(taskId, { state: status, final_message: c.finalText, error });
      if (live.diff !== null) this.repo.upsertItem({ task_id: taskId, item_id: `diff:${c.turnId}`, turn_id: c.turnId, type: "turnDiff", status: "final", data: { diff: live.diff } });
      for (const i of this.repo.interactions(taskId, ["pending"])) {
        this.repo.updateInteraction(i.id, { state: "stale", note: `the turn ended (${c.status}) before it was answered` });
      }
    });
    this.events.wake(taskId);
  }

  /** Makes sure everything received so far is in SQLite (used before reads). */
  sync(taskId: string): void {
    this.events.flush(taskId);
  }

  async listAllModels(client?: AppServerClient): Promise<LiveModel[]> {
    return listAllModels(client ?? (await this.runtime.ensure()));
  }

  addWaiter(taskId: string, fn: () => void): () => void {
    return this.events.addWaiter(taskId, fn);
  }

  activeCounts(): { active: number; pending: number; unknown: number } {
    const active = this.repo.tasksInStates(["starting", "running", "waiting_for_approval", "waiting_for_tool"]).length;
    const pending = this.repo.interactionsInStates(["pending", "uncertain"]).length;
    const unknown = this.repo.tasksInStates(["unknown"]).length;
    return { active, pending, unknown };
  }

  isTerminal(state: TaskState): boolean {
    return TERMINAL_STATES.has(state);
  }
}

/** What Codex itself reports it will use, as opposed to what the bridge asked for; unknown stays unknown. */
function nativeContext(res: Record<string, unknown>): Record<string, unknown> {
  const sandbox = (res.sandbox ?? null) as Record<string, unknown> | null;
  return {
    cwd: typeof res.cwd === "string" ? res.cwd : "unverified",
    model: typeof res.model === "string" ? res.model : "unverified",
    effort: typeof res.reasoningEffort === "string" ? res.reasoningEffort : "(default)",
    approval_policy: typeof res.approvalPolicy === "string" ? res.approvalPolicy : res.approvalPolicy ? JSON.stringify(res.approvalPolicy) : "unverified",
    sandbox: sandbox && typeof sandbox.type === "string" ? sandbox.type : "unverified",
    network_access: sandbox && typeof sandbox.networkAccess === "boolean" ? sandbox.networkAccess : "unverified",
  };
}

function sandboxPolicy(profile: ProfileSpec, project: ProjectSpec): Record<string, unknown> {
  switch (profile.sandbox_type) {
    case "read-only":
      return { type: "readOnly", networkAccess: profile.network_access };
    case "danger-full-access":
      return { type: "dangerFullAccess" };
    default:
      return { type: "workspaceWrite", writableRoots: [project.cwd], networkAccess: profile.network_access, excludeTmpdirEnvVar: false, excludeSlashTmp: false };
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
