// The closed domain surface: one method per tool, each a single call the MCP layer makes and renders. It composes
// tasks, views, the runtime and artifact settings; the MCP layer sees nothing behind it.
import type { Platform } from "../../platform/types.ts";
import { BridgeError } from "../bridge-error.ts";
import { requireProjectDir } from "../config/settings.ts";
import type { RespondInput } from "../policy/decisions.ts";
import type { HealthReport } from "../runtime/health.ts";
import { modelPage, type ModelPage } from "../runtime/model-catalog.ts";
import { listThreads, readThread, type ThreadListInput } from "../runtime/threads.ts";
import { redactText, redactValue } from "../policy/redact.ts";
import { SETTLED_STATES, type TaskRow } from "../store/rows.ts";
import { CardKeys } from "../tasks/card-keys.ts";
import { silentLog, type EventLog } from "../log.ts";
import type { CheckpointAnswer, CheckpointInput } from "../tasks/checkpoint.ts";
import type { ToolResultInput } from "../tasks/ledger.ts";
import type { SendInput, StartInput, TaskDomain } from "../tasks/domain.ts";
import type { RuntimeStatus } from "../tasks/runtime-control.ts";
import { inspect, type InspectInput, type InspectPage } from "../views/inspect.ts";
import type { ViewReads } from "../views/reads.ts";
import { recentTasks, taskStatus, type TaskStatus } from "../views/task-status.ts";
import { taskResult, type ResultAnswer } from "../views/task-result.ts";
import { taskCard, type CardAnswer } from "../views/task-card.ts";
import { waitForTasks, type WaitAnswer, type WaitContext, type WaitInput } from "../views/wait.ts";
import { WaitGuard } from "../views/wait-guard.ts";
import type { ArtifactInput, ArtifactReads, FilesInput } from "./artifacts.ts";
import type { ListResult } from "../artifacts/list.ts";
import type { ArtifactRead } from "../artifacts/read.ts";

// The types, errors and limits the MCP layer renders and validates with, so it needs nothing behind the service.
export type { TaskRow } from "../store/rows.ts";
export type { HealthReport } from "../runtime/health.ts";
export type { CardAnswer } from "../views/task-card.ts";
export type { TaskStatus } from "../views/task-status.ts";
export type { RuntimeStatus } from "../tasks/runtime-control.ts";
export type { ModelPage } from "../runtime/model-catalog.ts";
export type { CheckpointAnswer } from "../tasks/checkpoint.ts";
export type { FileEntry } from "../artifacts/list.ts";
export type { ArtifactRead } from "../artifacts/read.ts";
export { ArtifactPathError, ArtifactRangeError, ArtifactTooLargeError } from "../artifacts/errors.ts";
export { LIST_MAX_LIMIT } from "../artifacts/limits.ts";
export { PROMPT_MAX_CHARS } from "../tasks/domain.ts";
export { MAX_WAIT_TASKS, type WaitAnswer } from "../views/wait.ts";
export { INSPECT_KINDS } from "../views/inspect.ts";
export type { RequestView } from "../views/request-view.ts";
export type { CommandView, TaskDelta } from "../views/wait-delta.ts";
export type { GitChecks } from "../views/git-checks.ts";
// The sentences the views also put into structured fields, reused by the MCP renderer so each is written once.
export { failureText, HOST_REPORT_NOTE, type TaskResult } from "../views/evidence.ts";
export { activityLine } from "../views/activity.ts";
export { commandLine } from "../views/wait-delta.ts";

/** codex_threads' answer: a page of native threads, or one thread's turns. */
export type ThreadsAnswer =
  | ({ action: "list" } & Awaited<ReturnType<typeof listThreads>>)
  | ({ action: "read" } & Awaited<ReturnType<typeof readThread>>);

export class BridgeService {
  private readonly waitGuard = new WaitGuard();
  private readonly cardKeys = new CardKeys();

  constructor(
    private readonly domain: TaskDomain,
    private readonly reads: ViewReads,
    private readonly artifacts: ArtifactReads,
    private readonly platform: Platform,
    private readonly healthReport: () => Promise<HealthReport>,
    private readonly log: EventLog = silentLog,
    /** Reads the config file again if it changed (projects added or removed apply at once). */
    private readonly refreshConfig: () => void = () => {},
  ) {}

  health(): Promise<HealthReport> {
    return shownAsync(() => this.healthReport());
  }

  /** Starts a task; the connection that started it follows it (a wait without task ids covers it). */
  start(input: StartInput, connectionKey?: string): Promise<TaskRow> {
    return shownAsync(async () => {
      this.refuseWhileHeld("codex_start");
      this.refreshConfig();
      if (input.project_id) requireProjectDir(this.domain.project(input.project_id));
      const t = await this.domain.start(input);
      if (connectionKey !== undefined) this.reads.rows.cursors.follow(connectionKey, t.id);
      return t;
    });
  }

  wait(input: WaitInput, ctx: WaitContext): Promise<WaitAnswer> {
    return shownAsync(() => waitForTasks(this.reads, this.waitGuard, input, ctx));
  }

  status(taskId: string): Promise<TaskStatus> {
    return shownAsync(() => taskStatus(this.reads, taskId));
  }

  recent(): TaskRow[] {
    return shown(() => recentTasks(this.reads));
  }

  send(input: SendInput) {
    return shownAsync(() => {
      this.refuseWhileHeld("codex_send");
      this.refreshConfig();
      const t = this.domain.task(input.task_id);
      // A new turn into a directory that is gone is refused like a start; steering a running turn is not.
      if (SETTLED_STATES.has(t.state)) requireProjectDir(this.domain.project(t.project_id));
      return this.domain.send(input);
    });
  }

  /** New work is refused while the app-server's events cannot be stored: it would be neither recorded nor read. */
  private refuseWhileHeld(tool: string): void {
    if (!this.domain.writes.size) return;
    const why = this.domain.alerts()[0];
    throw new BridgeError(`${tool} refused: the state database refuses writes${why ? ` (${why.code}): ${why.message}` : ""}`);
  }

  respond(input: RespondInput) {
    return shownAsync(() => this.domain.respond(input));
  }

  /** The task card's key for one task: only ever handed to a view (never in what a model reads). */
  cardKey(taskId: string): string {
    return this.cardKeys.keyFor(taskId);
  }

  /**
   * The person's answer from the task card. It counts as the person's only with the task's card key (which only the
   * card's view receives) while the task is live; anything else is refused, logged, and nothing is answered. Then the
   * profile's `approvals` setting decides whether the person may answer.
   */
  answerFromCard(input: RespondInput & { card_key?: string }) {
    return shownAsync(async () => {
      const { card_key: key, ...answer } = input;
      const task = this.domain.task(answer.task_id);
      const why = !this.cardKeys.matches(task.id, key) ? (key === undefined ? "no_key" : "wrong_key") : SETTLED_STATES.has(task.state) ? "settled" : null;
      if (why) {
        this.log("warn", "person_answer_refused", { task: task.id, request: answer.request_id, reason: why });
        throw new BridgeError(
          why === "settled"
            ? `${task.id} is ${task.state}: its card key has expired with it. Nothing was answered`
            : `${answer.request_id}: an answer as the person needs the task card's key, which only the card a person sees holds (card_key). Nothing was answered; the person decides on the card`,
          "card_key",
        );
      }
      return this.domain.respond(answer, "person");
    });
  }

  /** The task card's snapshot (app-only: what the person sees, never what the model reads). */
  card(input: { task_id: string; since?: string }): CardAnswer {
    return shown(() => taskCard(this.reads, input.task_id, input.since));
  }

  submitToolResult(input: ToolResultInput) {
    return shownAsync(() => this.domain.submitToolResult(input));
  }

  result(taskId: string): Promise<ResultAnswer> {
    return shownAsync(() => taskResult(this.reads, this.platform, taskId));
  }

  inspect(input: InspectInput): InspectPage {
    return shown(() => {
      this.reads.sync(input.task_id);
      this.reads.task(input.task_id);
      return inspect(this.reads.rows, input);
    });
  }

  cancel(input: { task_id: string; reason?: string }) {
    return shownAsync(() => this.domain.cancel(input));
  }

  models(input: { cursor?: string; include_hidden?: boolean }): Promise<ModelPage> {
    return shownAsync(async () => modelPage(await this.domain.defaultClient(), input));
  }

  /** Native threads; previews and turn errors come from Codex, so they are redacted like everything else returned. */
  threads(input: ThreadListInput & { action: "list" | "read"; thread_id?: string }): Promise<ThreadsAnswer> {
    return shownAsync(async () => {
      const client = await this.domain.defaultClient();
      // A preview is the user's first prompt: redacted whole, before it is cut short.
      if (input.action === "list") return { action: "list" as const, ...(await listThreads(client, input, (id) => this.reads.rows.taskByThread(id)?.id, redactText)) };
      if (!input.thread_id) throw new BridgeError("thread_id is required for action read; codex_threads action=list shows them", "thread_id");
      if (input.search || input.cwd) throw new BridgeError("search and cwd filter action list only; drop them for action read", input.search ? "search" : "cwd");
      return { action: "read" as const, ...(await readThread(client, { thread_id: input.thread_id, cursor: input.cursor, limit: input.limit })) };
    });
  }

  checkpoint(input: CheckpointInput): CheckpointAnswer {
    return shown(() => this.domain.checkpoint(input));
  }

  /** Status of the managed app-server; a restart is refused while anything could be lost by it. */
  runtime(action: "status" | "restart", force = false): Promise<RuntimeStatus> {
    return shownAsync(() => this.domain.manageRuntime(action, force));
  }

  /** One page of a project's files (metadata only). Not redacted: paths are the project's own. */
  files(input: FilesInput): Promise<ListResult> {
    return this.artifacts.files(input);
  }

  /** One project file or range, byte for byte (never redacted); the caller releases it once written out. */
  artifact(input: ArtifactInput): Promise<ArtifactRead> {
    return this.artifacts.artifact(input);
  }
}

// Everything the service hands out is redacted, whatever its source: stored rows (already redacted on write), live
// app-server data (thread previews, the stderr tail of a dead app-server), and error messages that echo an input.
export function shown<T>(fn: () => T): T {
  try {
    return redactValue(fn()) as T;
  } catch (err) {
    throw scrubbed(err);
  }
}

export async function shownAsync<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return redactValue(await fn()) as T;
  } catch (err) {
    throw scrubbed(err);
  }
}

/** The same error (its class still tells the MCP layer how to show it), its message redacted. */
function scrubbed(err: unknown): unknown {
  if (err instanceof Error) err.message = redactText(err.message);
  return err;
}
