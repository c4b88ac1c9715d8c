// The closed domain surface: one method per tool, each a single call the MCP layer makes and renders. It composes
// tasks, views, the runtime and artifact settings; the MCP layer sees nothing behind it.
import type { Platform } from "../../platform/types.ts";
import { BridgeError } from "../bridge-error.ts";
import { resolveProject } from "../config/settings.ts";
import type { RespondInput } from "../policy/decisions.ts";
import { redactText, redactValue } from "../policy/redact.ts";
import type { HealthReport } from "../runtime/health.ts";
import { modelPage, type ModelPage } from "../runtime/model-catalog.ts";
import { listThreads, readThreadTurns } from "../runtime/threads.ts";
import type { TaskRow } from "../store/rows.ts";
import { checkpoint, type CheckpointInput } from "../tasks/checkpoint.ts";
import type { ToolResultInput } from "../tasks/ledger.ts";
import type { StartInput, Supervisor } from "../tasks/supervisor.ts";
import { inspect, type InspectInput, type InspectPage } from "../views/inspect.ts";
import { recentTasks, taskStatus, type TaskStatus } from "../views/task-status.ts";
import { taskResult, type ResultAnswer } from "../views/task-result.ts";
import { waitForTask, type WaitAnswer, type WaitContext, type WaitInput } from "../views/wait.ts";

// The types and limits the MCP layer renders and validates with, so it needs nothing behind the service.
export type { TaskRow } from "../store/rows.ts";
export type { HealthReport } from "../runtime/health.ts";
export { PROMPT_MAX_CHARS } from "../tasks/supervisor.ts";

export interface ArtifactSettings {
  maxArtifactBytes: number;
  inlineArtifactBytes: number;
  sensitivePaths: string[];
}

export interface RuntimeStatus {
  state: string;
  pid: number | null;
  restarts: number;
  uptime_s: number | null;
  active: number;
  pending: number;
  unknown: number;
  last_exit?: unknown;
}

export class BridgeService {
  constructor(
    private readonly sup: Supervisor,
    private readonly platform: Platform,
    private readonly healthReport: () => Promise<HealthReport>,
    readonly artifactSettings: ArtifactSettings,
  ) {}

  health(): Promise<HealthReport> {
    return shownAsync(() => this.healthReport());
  }

  start(input: StartInput): Promise<TaskRow> {
    return shownAsync(() => this.sup.start(input));
  }

  wait(input: WaitInput, ctx: WaitContext): Promise<WaitAnswer> {
    return shownAsync(() => waitForTask(this.sup, input, ctx));
  }

  status(taskId: string): TaskStatus {
    return shown(() => taskStatus(this.sup, taskId));
  }

  recent(): TaskRow[] {
    return shown(() => recentTasks(this.sup));
  }

  send(input: { task_id: string; message: string; model?: string; effort?: string }) {
    return shownAsync(() => this.sup.send(input));
  }

  respond(input: RespondInput) {
    return shownAsync(() => this.sup.respond(input));
  }

  submitToolResult(input: ToolResultInput) {
    return shownAsync(() => this.sup.submitToolResult(input));
  }

  result(taskId: string): Promise<ResultAnswer> {
    return shownAsync(() => taskResult(this.sup, this.platform, taskId));
  }

  inspect(input: InspectInput): InspectPage {
    return shown(() => {
      this.sup.sync(input.task_id);
      this.sup.task(input.task_id);
      return inspect(this.sup.repo, input);
    });
  }

  cancel(input: { task_id: string; reason?: string }) {
    return shownAsync(() => this.sup.cancel(input));
  }

  models(input: { cursor?: string; include_hidden?: boolean }): Promise<ModelPage> {
    return shownAsync(async () => modelPage(await this.sup.runtime.ensure(), input));
  }

  threads(input: { action: "list" | "read"; thread_id?: string; cursor?: string; limit?: number }) {
    return shownAsync(async () => {
      const client = await this.sup.runtime.ensure();
      // A preview is the user's first prompt: redacted whole, before it is cut short.
      if (input.action === "list") return { action: "list" as const, ...(await listThreads(client, input, (id) => this.sup.repo.taskByThread(id)?.id, redactText)) };
      if (!input.thread_id) throw new BridgeError("thread_id is required for action read; codex_threads action=list shows them", "thread_id");
      return { action: "read" as const, ...(await readThreadTurns(client, { thread_id: input.thread_id, cursor: input.cursor })) };
    });
  }

  checkpoint(input: CheckpointInput) {
    return shown(() => {
      this.sup.task(input.task_id);
      return checkpoint(this.sup.repo, input);
    });
  }

  /** Status of the managed app-server; a restart is refused while anything could be lost by it. */
  runtime(action: "status" | "restart"): Promise<RuntimeStatus> {
    return shownAsync(() => this.runtimeNow(action));
  }

  private async runtimeNow(action: "status" | "restart"): Promise<RuntimeStatus> {
    const counts = this.sup.activeCounts();
    const runtime = this.sup.runtime;
    if (action === "restart") {
      if (counts.active || counts.pending || counts.unknown) {
        throw new BridgeError(`restart refused: ${counts.active} active task(s), ${counts.pending} open request(s), ${counts.unknown} UNKNOWN outcome(s); wait, cancel or settle them first`, "action");
      }
      await runtime.restart();
    }
    const info = runtime.info();
    return { state: info.state, pid: info.pid, restarts: info.restarts, uptime_s: info.uptimeMs === null ? null : Math.round(info.uptimeMs / 1000), ...counts, ...(runtime.lastExit ? { last_exit: runtime.lastExit } : {}) };
  }

  /** A project named by id or alias, as the artifact tools need it: its directory and whether hard links are served. */
  project(idOrAlias: string): { cwd: string; allowHardLinks: boolean } {
    const p = resolveProject(this.sup.settings.projects, idOrAlias);
    return { cwd: p.cwd, allowHardLinks: p.allow_hard_links === true };
  }
}

// Everything the service hands out is redacted, whatever its source: stored rows (already redacted on write), live
// app-server data (thread previews, the stderr tail of a dead app-server), and error messages that echo an input.
function shown<T>(fn: () => T): T {
  try {
    return redactValue(fn()) as T;
  } catch (err) {
    throw scrubbed(err);
  }
}

async function shownAsync<T>(fn: () => Promise<T>): Promise<T> {
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
