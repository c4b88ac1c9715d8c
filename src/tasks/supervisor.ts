// The task domain's entry point: start, steer, continue and cancel tasks, answer their requests, and recover after
// a restart. It knows nothing of MCP; the intake and the ledger do the event and answer work it delegates.
import type { AppServerClient } from "../codex/client.ts";
import { ConnectionClosedError, RpcError, UnknownOutcomeError } from "../codex/errors.ts";
import { backgroundTerminalsList, backgroundTerminalTerminate, threadResume, threadStart, type ThreadStartResult } from "../codex/protocol/thread.ts";
import { TURN_INTERRUPT, TURN_STEER, textInput, turnInterrupt, turnStart, turnSteer } from "../codex/protocol/turn.ts";
import type { ServerNotification, ServerRequest } from "../codex/rpc-messages.ts";
import type { Repo } from "../store/repo.ts";
import { BridgeError } from "../bridge-error.ts";
import { checkModelChoice } from "../runtime/model-catalog.ts";
import { TaskEvents } from "./task-events.ts";
import type { RespondInput } from "../policy/decisions.ts";
import { type InteractionRow, SETTLED_STATES, type TaskRow, type TaskState, TERMINAL_STATES } from "../store/rows.ts";
import { redactText } from "../policy/redact.ts";
import { RELAY_TOOL_SPEC } from "./relay-tool.ts";
import type { CodexRuntime } from "../runtime/app-server.ts";
import { DEFAULT_PROFILE, resolveProject, type ProfileSpec, type ProjectSpec, type SupervisorSettings } from "../config/settings.ts";
import { newId, type TaskContext } from "./context.ts";
import { EventIntake } from "./intake.ts";
import { InteractionLedger, type ToolResultInput } from "./ledger.ts";

export const PROMPT_MAX_CHARS = 100_000;

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
  private readonly ledger: InteractionLedger;
  private readonly intake: EventIntake;
  readonly startedAt = Date.now();

  constructor(
    readonly repo: Repo,
    readonly runtime: CodexRuntime,
    readonly settings: SupervisorSettings,
    private readonly log: (msg: string) => void = () => {},
  ) {
    this.events = new TaskEvents(repo);
    const ctx: TaskContext = { repo, runtime, settings, events: this.events, threadTask: this.threadTask, log };
    this.ledger = new InteractionLedger(ctx);
    this.intake = new EventIntake(ctx, this.ledger);
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

  onNotification(client: AppServerClient, n: ServerNotification): void {
    this.intake.onNotification(client, n);
  }

  onServerRequest(client: AppServerClient, r: ServerRequest): void {
    this.intake.onServerRequest(client, r);
  }

  onExit(client: AppServerClient): void {
    this.intake.onExit(client);
  }

  // ---------------------------------------------------------------- tools

  project(id: string | undefined): ProjectSpec {
    return resolveProject(this.settings.projects, id);
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
        await threadResume(client, { threadId: input.thread_id, excludeTurns: true, cwd: project.cwd }).catch((err: unknown) => {
          throw err instanceof RpcError ? new ResumeRefused(input.thread_id!, err) : err;
        });
        threadId = input.thread_id;
      } else {
        const res = await threadStart(client, {
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
      // Codex refused the thread itself: nothing runs, so the answer is an error (the attempt stays on record).
      if (err instanceof ResumeRefused) {
        throw new BridgeError(`thread_id: Codex could not resume thread "${err.threadId}": ${err.message}. Nothing runs; the attempt is recorded as failed task ${task.id}. codex_threads action=list shows the threads you can adopt`, "thread_id");
      }
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
    const params = {
      threadId: t.thread_id,
      input: textInput(text),
      approvalPolicy: profile.approval_policy,
      sandboxPolicy: sandboxPolicy(profile, project),
      ...(model ? { model } : {}),
      ...(effort ? { effort } : {}),
    };
    this.repo.updateTask(taskId, { state: "starting", connection_id: client.connectionId, error: null, final_message: null, unknown: null });
    const res = await turnStart(client, params, { timeoutMs: this.settings.ackTimeoutMs });
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
        await turnSteer(client, { threadId: task.thread_id, expectedTurnId: task.turn_id!, input: textInput(input.message) }, { timeoutMs: this.settings.ackTimeoutMs });
        return { task: this.repo.task(task.id)!, action: "steered" };
      } catch (err) {
        if (err instanceof UnknownOutcomeError) {
          this.events.appendNow(task.id, [{ turn_id: task.turn_id, kind: "unknown", data: { method: TURN_STEER, detail: err.message } }]);
          throw new BridgeError(err.message);
        }
        if (!(err instanceof RpcError) || !/no active turn/.test(err.message)) throw err;
        // The turn ended between our check and the steer: fall through to a new turn.
      }
    }
    const recovering = task.state === "connection_lost";
    if (!this.runtime.loadedThreads.has(task.thread_id)) {
      await threadResume(client, { threadId: task.thread_id, excludeTurns: true }, { timeoutMs: this.settings.ackTimeoutMs }).catch((err: unknown) => {
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
    const interrupt = () => turnInterrupt(client, { threadId: task.thread_id!, turnId: task.turn_id! }, { timeoutMs: this.settings.ackTimeoutMs });
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
        this.events.appendNow(task.id, [{ turn_id: task.turn_id, kind: "unknown", data: { method: TURN_INTERRUPT, detail: err.message } }]);
        return { task: this.repo.task(task.id)!, terminated: 0, note: err.message };
      }
      throw err;
    }
    const settled = await done;
    // The interrupt leaves running commands alive as background terminals: stop them too.
    let terminated = 0;
    try {
      const list = await backgroundTerminalsList(client, { threadId: task.thread_id }, { timeoutMs: 5000 });
      for (const term of list.data ?? []) {
        if (!term.processId) continue;
        const r = await backgroundTerminalTerminate(client, { threadId: task.thread_id, processId: term.processId }, { timeoutMs: 5000 });
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
    return this.ledger.respond(task, input, { project: this.project(task.project_id), profile: this.profile(task.profile_id) });
  }

  async submitToolResult(input: ToolResultInput): Promise<{ interaction: InteractionRow; repeated: boolean; bytes: number }> {
    return this.ledger.submitToolResult(this.task(input.task_id), input);
  }

  /** Makes sure everything received so far is in SQLite (used before reads). */
  sync(taskId: string): void {
    this.events.flush(taskId);
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

/** thread/resume answered with an error when a task adopts a thread: Codex does not have (or cannot load) it. */
class ResumeRefused extends Error {
  constructor(readonly threadId: string, cause: RpcError) {
    super(cause.message);
  }
}

/** What Codex itself reports it will use, as opposed to what the bridge asked for; unknown stays unknown. */
function nativeContext(res: ThreadStartResult): Record<string, unknown> {
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
