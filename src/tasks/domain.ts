// The task domain's entry point: start, steer, continue and cancel tasks, answer their requests, and recover after
// a restart. It knows nothing of MCP; the intake and the ledger do the event and answer work it delegates.
import type { AppServerClient, LateResponse } from "../codex/client.ts";
import { ConnectionClosedError, RpcError, UnknownOutcomeError } from "../codex/errors.ts";
import { THREAD_SETTINGS_UPDATED, threadResume, threadStart } from "../codex/protocol/thread.ts";
import { textInput, turnStart, turnSteer } from "../codex/protocol/turn.ts";
import type { ServerNotification, ServerRequest } from "../codex/rpc-messages.ts";
import type { Repo } from "../store/repo.ts";
import { BridgeError } from "../bridge-error.ts";
import { checkModelChoice } from "../runtime/model-catalog.ts";
import { TaskEvents } from "./events.ts";
import type { RespondInput } from "../policy/decisions.ts";
import type { Answerer } from "../policy/answerer.ts";
import { type InteractionRow, SETTLED_STATES, type TaskRow, type TaskState, TERMINAL_STATES } from "../store/rows.ts";
import { redactText } from "../policy/redact.ts";
import { RELAY_TOOL_SPEC } from "./relay-tool.ts";
import { runtimeControl, type RuntimeStatus } from "./runtime-control.ts";
import { checkpoint, type CheckpointAnswer, type CheckpointInput } from "./checkpoint.ts";
import type { RuntimePool } from "../runtime/pool.ts";
import { DEFAULT_PROFILE, resolveProject, type ProfileSpec, type ProjectSpec, type TaskSettings } from "../config/settings.ts";
import { newId, type TaskContext } from "./context.ts";
import { EventIntake } from "./intake.ts";
import { HeldWrites, pauseReadingWhileHeld } from "./held-writes.ts";
import { bridgeAlerts, type BridgeAlert } from "./alerts.ts";
import { failure, startFailure } from "./failure.ts";
import { silentLog, type EventLog } from "../log.ts";
import { InteractionLedger, type ToolResultInput } from "./ledger.ts";
import { refuseOverridesWhileSteering, ThreadSettingsLog, turnLayer, withLateReport, type TurnLayer, type TurnOverrides, type TurnSettings } from "./turn-settings.ts";
import { nativeContext, sandboxPolicy } from "./turn-params.ts";
import { UnknownOutcomes } from "./unknown-outcomes.ts";
import { cancelTask, type CancelAnswer } from "./cancel.ts";

export const PROMPT_MAX_CHARS = 100_000;

export interface StartInput {
  project_id?: string;
  prompt: string;
  profile?: string;
  model?: string;
  effort?: string;
  thread_id?: string;
}

export type SendInput = { task_id: string; message: string } & TurnOverrides;

/**
 * The domain: tasks, turns, events, interactions. It knows nothing of MCP; the MCP layer calls these methods and
 * renders what they return.
 */
export class TaskDomain {
  private readonly threadTask = new Map<string, string>();
  private readonly events: TaskEvents;
  private readonly ledger: InteractionLedger;
  private readonly intake: EventIntake;
  private readonly turnSettings = new ThreadSettingsLog();
  private readonly unknowns: UnknownOutcomes;
  private readonly ctx: TaskContext;
  readonly writes: HeldWrites; // the intake's writes, held while the disk refuses them

  constructor(
    private readonly repo: Repo,
    private readonly runtimes: RuntimePool,
    private readonly settings: TaskSettings,
    private readonly log: EventLog = silentLog,
  ) {
    const writes = (this.writes = new HeldWrites(log)).attach(pauseReadingWhileHeld(runtimes, () => this.events.wakeAll()));
    this.events = new TaskEvents(repo, writes);
    const ctx: TaskContext = { repo, runtimes, settings, events: this.events, writes, threadTask: this.threadTask, log };
    this.ctx = ctx;
    this.ledger = new InteractionLedger(ctx);
    this.intake = new EventIntake(ctx, this.ledger);
    this.unknowns = new UnknownOutcomes(ctx, settings.unknownTtlMs);
  }

  /** After a bridge restart nothing of the old connection survives: settle what was in flight, keep every record. */
  recoverAfterRestart(): { lost: number; stale: number; uncertain: number } {
    let lost = 0;
    let stale = 0;
    let uncertain = 0;
    this.repo.tx(() => {
      for (const t of this.repo.tasksInStates(["starting", "running", "waiting_for_approval", "waiting_for_tool"])) {
        this.repo.updateTask(t.id, { state: "connection_lost", failure: failure("bridge_restarted") });
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
    for (const t of this.repo.recentThreads(200)) this.threadTask.set(t.thread_id, t.id);
    // The app-server that held an UNKNOWN request exited with the old bridge: the request can no longer take effect.
    this.unknowns.onExit(null);
    return { lost, stale, uncertain };
  }

  /** The default profile's app-server, started if need be (models, native threads). */
  defaultClient = (): Promise<AppServerClient> => this.runtimes.default.ensure();
  /** Conditions of the whole bridge now (a full disk, a silent app-server), with what to do. */
  alerts = (): BridgeAlert[] => bridgeAlerts({ repo: this.repo, writes: this.writes, runtimes: this.runtimes });
  /** The managed app-servers' status, or a restart; refused while anything could be lost by it, unless forced. */
  manageRuntime = (action: "status" | "restart", force = false): Promise<RuntimeStatus> => runtimeControl(this.repo, this.runtimes, () => this.activeCounts(), action, force);
  /** Reads or updates a supervisory checkpoint. */
  checkpoint = (input: CheckpointInput): CheckpointAnswer => checkpoint(this.repo, input);

  onNotification(client: AppServerClient, n: ServerNotification): void {
    const report = this.turnSettings.observe(n);
    if (report) this.writes.run("turn settings", () => this.lateSettingsReport(report.threadId, report.settings));
    this.intake.onNotification(client, n);
    this.writes.run("unknown evidence", () => this.unknowns.onNotification(n));
  }

  private lateSettingsReport(threadId: string, settings: TurnSettings): void {
    const taskId = this.threadTask.get(threadId);
    const task = taskId ? this.repo.task(taskId) : undefined;
    const ctx = task ? this.repo.context(task.id) : undefined;
    const layer = ctx?.turn as TurnLayer | undefined;
    if (!task || !layer || layer.turn_id !== task.turn_id || SETTLED_STATES.has(task.state) || layer.reported_by === THREAD_SETTINGS_UPDATED) return;
    this.repo.setContext(task.id, { ...ctx, turn: withLateReport(layer, settings) });
  }

  onLateResponse = (client: AppServerClient, r: LateResponse): void => this.writes.run("late answer", () => this.unknowns.onLate(client.connectionId, r));
  onServerRequest = (client: AppServerClient, r: ServerRequest): void => this.intake.onServerRequest(client, r);

  onExit(client: AppServerClient): void {
    this.intake.onExit(client);
    this.ctx.writes.run("exit", () => this.unknowns.onExit(client.connectionId));
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
    const newTask = (relay: boolean, state: TaskState) =>
      this.repo.insertTask({ id: newId("t_"), project_id: project.id, profile_id: profile.id, prompt: redactText(input.prompt), relay, model, effort, state });
    const runtime = this.runtimes.forProfile(profile.id);
    let client: AppServerClient;
    try {
      client = await runtime.ensure();
    } catch (err) {
      // Nothing reached Codex, but the start failed: recorded, so codex_status and codex_health can say why.
      const t = newTask(false, "failed");
      const why = startFailure(err);
      this.repo.updateTask(t.id, { failure: why });
      this.log("error", "start_failed", { task: t.id, code: why.code });
      return this.repo.task(t.id)!;
    }
    await checkModelChoice(client, model, effort, profile.service_tier || null);
    const refused = this.settings.relay.enabled && !input.thread_id ? runtime.relayRefused : null;
    const relay = !input.thread_id && this.settings.relay.enabled && refused === null;
    const task = newTask(relay, "starting");
    if (refused) this.events.appendNow(task.id, [{ turn_id: null, kind: "warning", data: { message: `web-tool relay disabled: ${refused}` } }]);
    this.log("info", "task_started", { task: task.id, project: project.id, profile: profile.id });
    this.repo.updateTask(task.id, { connection_id: client.connectionId });
    try {
      let threadId: string;
      if (input.thread_id) {
        await threadResume(client, { threadId: input.thread_id, excludeTurns: true, cwd: project.cwd }, { timeoutMs: this.settings.ackTimeoutMs }).catch((err: unknown) => {
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
      runtime.loadedThreads.add(threadId);
      this.threadTask.set(threadId, task.id);
      this.repo.updateTask(task.id, { thread_id: threadId });
      this.events.state(task.id);
      await this.startTurn(client, task.id, input.prompt, profile, project, { model, effort, service_tier: null });
    } catch (err) {
      this.failStart(task.id, err, input.thread_id ?? null);
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

  private failStart(taskId: string, err: unknown, threadId: string | null = null): void {
    const t = this.repo.task(taskId)!;
    if (err instanceof UnknownOutcomeError) {
      this.recordUnknown(t, err, true, t.thread_id ?? threadId);
      this.log("warn", "outcome_unknown", { task: taskId, method: err.method });
      return;
    }
    const why = startFailure(err);
    this.log("error", "start_failed", { task: taskId, code: why.code });
    if (err instanceof ConnectionClosedError) {
      this.repo.updateTask(taskId, { state: "connection_lost", failure: why });
      this.events.appendNow(taskId, [{ turn_id: t.turn_id, kind: "connection_lost", data: { detail: err.message } }]);
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    this.repo.updateTask(taskId, { state: "failed", failure: why });
    this.events.appendNow(taskId, [{ turn_id: t.turn_id, kind: "turn_completed", data: { status: "failed", error: redactText(message) } }]);
  }

  private async startTurn(client: AppServerClient, taskId: string, text: string, profile: ProfileSpec, project: ProjectSpec, asked: TurnSettings): Promise<void> {
    const t = this.repo.task(taskId)!;
    const params = {
      threadId: t.thread_id,
      input: textInput(text),
      approvalPolicy: profile.approval_policy,
      sandboxPolicy: sandboxPolicy(profile, project),
      ...(asked.model ? { model: asked.model } : {}),
      ...(asked.effort ? { effort: asked.effort } : {}),
      ...(asked.service_tier ? { serviceTier: asked.service_tier } : {}),
    };
    this.repo.tx(() => {
      this.repo.prepareNewTurn(taskId);
      this.repo.updateTask(taskId, { state: "starting", connection_id: client.connectionId, failure: null, final_message: null, unknown: null });
    });
    const mark = this.turnSettings.mark();
    const res = await turnStart(client, params, { timeoutMs: this.settings.ackTimeoutMs });
    // The turn's settings and its id in one commit, before codex_send answers.
    this.repo.tx(() => {
      this.repo.setContext(taskId, { ...this.repo.context(taskId), turn: turnLayer(res.turn.id, asked, this.turnSettings.reportedSince(t.thread_id!, mark)) });
      const cur = this.repo.task(taskId)!;
      const patch: Parameters<Repo["updateTask"]>[1] = { turn_id: res.turn.id, turn_count: cur.turn_count + 1 };
      if (cur.state === "starting") patch.state = "running";
      this.repo.updateTask(taskId, patch);
    });
    this.events.state(taskId).ingest.setTurn(res.turn.id);
  }

  private recordUnknown(t: TaskRow, err: UnknownOutcomeError, taskUnknown: boolean, threadId = t.thread_id): void {
    const sentAt = new Date(Date.now() - err.timeoutMs).toISOString();
    this.unknowns.record(t.id, err, { connectionId: t.connection_id ?? "", threadId, turnId: taskUnknown ? null : t.turn_id, sentAt, taskUnknown });
  }

  async send(input: SendInput): Promise<{ task: TaskRow; action: "steered" | "new_turn" | "recovery_turn" }> {
    const task = this.task(input.task_id);
    if (!input.message.trim()) throw new BridgeError("message is empty; say what Codex should do", "message");
    if (input.message.length > PROMPT_MAX_CHARS) throw new BridgeError(`message is ${input.message.length} characters; at most ${PROMPT_MAX_CHARS}`, "message");
    if (!task.thread_id) throw new BridgeError("this task never got a Codex thread; start a new task with codex_start", "task_id");
    if (task.unknown || task.state === "unknown") {
      throw new BridgeError(
        `the last ${task.unknown?.method ?? "request"} of this task has an UNKNOWN outcome (it may have been accepted) and is never resent, so nothing was sent. ` +
          `Run codex_status ${task.id}: it reads the thread and settles it when Codex shows the turn ended; then send again. If it cannot be settled, codex_cancel ${task.id} gives it up`,
        "task_id",
      );
    }
    const profile = this.profile(task.profile_id);
    const project = this.project(task.project_id);
    const runtime = this.runtimes.forProfile(profile.id);
    const client = await runtime.ensure();
    const active = !SETTLED_STATES.has(task.state) && task.connection_id === client.connectionId && task.turn_id;
    if (active) refuseOverridesWhileSteering(input, task.turn_id!);
    const model = input.model ?? task.model;
    const effort = input.effort ?? task.effort;
    // Checked against the live catalog exactly as codex_start checks, before anything is sent.
    if (input.model || input.effort || input.service_tier) await checkModelChoice(client, model, effort, input.service_tier ?? null, "service_tier");
    if (active) {
      try {
        await turnSteer(client, { threadId: task.thread_id, expectedTurnId: task.turn_id!, input: textInput(input.message) }, { timeoutMs: this.settings.ackTimeoutMs });
        return { task: this.repo.task(task.id)!, action: "steered" };
      } catch (err) {
        if (err instanceof UnknownOutcomeError) {
          this.recordUnknown(task, err, false);
          throw new BridgeError(`${err.message} It settles when the turn ends; codex_status shows it`);
        }
        if (!(err instanceof RpcError) || !/no active turn/.test(err.message)) throw err;
        // The turn ended between our check and the steer: fall through to a new turn.
      }
    }
    const recovering = task.state === "connection_lost";
    if (!runtime.loadedThreads.has(task.thread_id)) {
      const connectionId = client.connectionId;
      await threadResume(client, { threadId: task.thread_id, excludeTurns: true }, { timeoutMs: this.settings.ackTimeoutMs }).catch((err: unknown) => {
        if (!(err instanceof UnknownOutcomeError)) throw err;
        this.recordUnknown({ ...task, connection_id: connectionId }, err, false);
        throw new BridgeError(`${err.message} codex_status ${task.id} checks whether the thread was resumed`);
      });
      runtime.loadedThreads.add(task.thread_id);
    }
    this.threadTask.set(task.thread_id, task.id);
    this.events.forget(task.id);
    this.events.state(task.id);
    try {
      await this.startTurn(client, task.id, input.message, profile, project, { model, effort, service_tier: input.service_tier ?? null });
      // Codex keeps an override for later turns too; so does the task, so a later turn does not undo it.
      if (input.model || input.effort) this.repo.updateTask(task.id, { model, effort });
    } catch (err) {
      this.failStart(task.id, err);
    }
    return { task: this.repo.task(task.id)!, action: recovering ? "recovery_turn" : "new_turn" };
  }

  cancel(input: { task_id: string; reason?: string }, waitMs = 10_000): Promise<CancelAnswer> {
    return cancelTask(this.ctx, this.unknowns, this.task(input.task_id), input.reason, waitMs);
  }

  /** The explicit check of an UNKNOWN (codex_status): reads the thread; null when settled or nothing is open. */
  checkUnknown(taskId: string): Promise<string | null> {
    const task = this.repo.task(taskId);
    return this.unknowns.check(taskId, task ? this.runtimes.forProfile(task.profile_id).current : null);
  }

  // ---------------------------------------------------------------- interactions

  /** Answers an approval, permission request, question or elicitation with its original id, as `by`. */
  async respond(input: RespondInput, by: Answerer = "supervisor"): Promise<{ interaction: InteractionRow; repeated: boolean }> {
    const task = this.task(input.task_id);
    return this.ledger.respond(task, input, { project: this.project(task.project_id), profile: this.profile(task.profile_id) }, by);
  }

  async submitToolResult(input: ToolResultInput): Promise<{ interaction: InteractionRow; repeated: boolean; bytes: number }> {
    return this.ledger.submitToolResult(this.task(input.task_id), input);
  }

  /** Before the store closes: everything received so far is stored, and no flush is left to fire on a closed store. */
  close(): void {
    this.events.flushAll();
  }

  /** Makes sure everything received so far is in SQLite (used before reads). */
  sync(taskId: string): void {
    this.events.flush(taskId);
  }

  addWaiter(taskId: string, fn: () => void): () => void {
    return this.events.addWaiter(taskId, fn);
  }

  /** fn(taskId) after anything of any task was stored; followers must not block (they run on the intake path). */
  followAll(fn: (taskId: string) => void): () => void {
    return this.events.addAnyWaiter(fn);
  }

  activeCounts(): { active: number; pending: number; unknown: number } {
    const active = this.repo.tasksInStates(["starting", "running", "waiting_for_approval", "waiting_for_tool"]).length;
    const pending = this.repo.interactionsInStates(["pending", "uncertain"]).length;
    const unknown = this.repo.tasksWithUnknown().length;
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

