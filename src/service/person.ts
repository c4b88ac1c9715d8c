// The surface of the person at the machine, behind the owner-only control endpoint (`codex-bridge tasks`, `watch`,
// `pending`, `approve`, `decline`, `answer`, `cancel`): the same domains as the MCP tools, the same policy and
// interaction ledger for answers (recorded as answered_by "person at the machine"), the same redaction on the way out.
import { BridgeError } from "../bridge-error.ts";
import type { RespondInput } from "../policy/decisions.ts";
import { ANSWERED_BY } from "../policy/answerer.ts";
import { SETTLED_STATES, type InteractionRow } from "../store/rows.ts";
import type { TaskDomain } from "../tasks/domain.ts";
import type { ViewReads } from "../views/reads.ts";
import { pendingRequests, taskLines, type PendingRequest, type TaskLine } from "../views/person.ts";
import { requestView } from "../views/request-view.ts";
import { taskSeqs, watchLines, type WatchLine } from "../views/watch.ts";
import { shown, shownAsync } from "./bridge.ts";

export type { PendingRequest, TaskLine } from "../views/person.ts";
export type { WatchLine } from "../views/watch.ts";

export interface Decision {
  request_id: string;
  verdict: "approve" | "decline";
  for_session?: boolean;
}

export interface AnswerResult {
  request_id: string;
  task_id: string;
  action: string;
  state: string;
  answered_by: string;
  repeated: boolean;
}

export interface Following {
  /** What the watcher sees first: the named task's history so far (nothing when following every task). */
  initial: WatchLine[];
  /** Tasks live when the watch began. */
  live: string[];
  stop(): void;
}

/** What a notification may say of a task now; the notifier keeps only what its settings allow. */
export interface TaskNotice {
  task_id: string;
  project_id: string;
  state: string;
  settled: boolean;
  turn_count: number;
  created_at: string;
  failure_code?: string;
  /** Requests awaiting a person (not the supervisor's web tool, not under approvals = "supervisor"). */
  awaiting: { request_id: string; kind: string; command?: string; cwd?: string; reason?: string }[];
  prompt: string;
  final_message?: string;
  failure?: string;
}

export class PersonService {
  constructor(
    private readonly domain: TaskDomain,
    private readonly reads: ViewReads,
  ) {}

  tasks(all: boolean): TaskLine[] {
    return shown(() => taskLines(this.reads, all));
  }

  pending(): PendingRequest[] {
    return shown(() => pendingRequests(this.reads));
  }

  /** approve / decline, in the words the request's kind needs (--for-session where Codex offers it). */
  decide(d: Decision): Promise<AnswerResult> {
    return shownAsync(async () => {
      const i = this.request(d.request_id);
      return this.answer(i, actionFor(i, d));
    });
  }

  /** Answers a question: one text, or text per question id. */
  answerQuestions(requestId: string, answers: { single?: string; byId?: Record<string, string> }): Promise<AnswerResult> {
    return shownAsync(async () => {
      const i = this.request(requestId);
      if (i.kind !== "userInput") throw new BridgeError(`${i.id} is a ${i.kind} request, not a question; use codex-bridge approve or decline`, "request_id");
      const ids = (Array.isArray(i.params.questions) ? (i.params.questions as Record<string, unknown>[]) : []).map((q) => String(q.id));
      let byId = answers.byId ?? {};
      if (answers.single !== undefined) {
        if (ids.length !== 1) throw new BridgeError(`${i.id} asks ${ids.length} questions (${ids.join(", ")}); give each with --answer ID=TEXT`, "answer");
        byId = { [ids[0]!]: answers.single };
      }
      return this.answer(i, { action: "answer", payload: { answers: byId } });
    });
  }

  cancel(taskId: string) {
    return shownAsync(() => this.domain.cancel({ task_id: taskId, reason: "cancelled by the person at the machine" }));
  }

  /**
   * Follows one task (its history first) or every task (from now on), calling onLines with each batch of new lines.
   * Reads happen after the intake's write, off its path.
   */
  follow(taskId: string | undefined, onLines: (lines: WatchLine[]) => void): Following {
    let cursors = new Map<string, number>();
    let initial: WatchLine[] = [];
    if (taskId !== undefined) {
      this.domain.sync(taskId);
      this.domain.task(taskId);
      const first = watchLines(this.reads, taskId, 0);
      initial = shown(() => first.lines);
      cursors.set(taskId, first.last);
    } else {
      cursors = taskSeqs(this.reads);
    }
    const live = this.reads.rows.tasksInStates(["starting", "running", "waiting_for_approval", "waiting_for_tool"]).map((t) => t.id);
    const due = new Set<string>();
    let scheduled = false;
    let stopped = false;
    const flush = () => {
      scheduled = false;
      if (stopped) return;
      const out: WatchLine[] = [];
      try {
        for (const id of due) {
          const r = watchLines(this.reads, id, cursors.get(id) ?? 0);
          cursors.set(id, r.last);
          out.push(...r.lines);
        }
      } catch {
        // The state closed under a stopping bridge: the watcher is told goodbye by the endpoint, not by a crash.
        return;
      } finally {
        due.clear();
      }
      if (out.length) onLines(shown(() => out));
    };
    const off = this.domain.followAll((id) => {
      if (taskId !== undefined && id !== taskId) return;
      due.add(id);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
    return {
      initial,
      live: taskId !== undefined ? live.filter((id) => id === taskId) : live,
      stop: () => {
        stopped = true;
        off();
      },
    };
  }

  /** fn(taskId) after anything of a task was stored (the notifier's trigger); it must not block. */
  onChange(fn: (taskId: string) => void): () => void {
    return this.domain.followAll(fn);
  }

  notice(taskId: string): TaskNotice | undefined {
    return shown(() => {
      const t = this.reads.rows.task(taskId);
      if (!t) return undefined;
      let approvals = "supervisor";
      try {
        approvals = this.domain.profile(t.profile_id).approvals;
      } catch {
        // a profile removed from the config: nobody but the supervisor is known to decide
      }
      const awaiting = approvals === "supervisor" ? [] : this.reads.rows.interactions(t.id, ["pending"]).filter((i) => i.kind !== "tool").map((i) => {
        const v = requestView(i);
        return { request_id: i.id, kind: i.kind, ...(v.command ? { command: v.command } : {}), ...(v.cwd ? { cwd: v.cwd } : {}), ...(v.reason ? { reason: v.reason } : {}) };
      });
      return {
        task_id: t.id,
        project_id: t.project_id,
        state: t.state,
        settled: SETTLED_STATES.has(t.state),
        turn_count: t.turn_count,
        created_at: t.created_at,
        ...(t.failure ? { failure_code: t.failure.code, failure: t.failure.sentence } : {}),
        awaiting,
        prompt: t.prompt,
        ...(t.final_message ? { final_message: t.final_message } : {}),
      };
    });
  }

  /** Tasks still running and requests still open: what a stopping bridge leaves behind. */
  liveWork(): { tasks: string[]; pending: number } {
    const tasks = this.reads.rows.tasksInStates(["starting", "running", "waiting_for_approval", "waiting_for_tool"]).map((t) => t.id);
    return { tasks, pending: this.reads.rows.interactionsInStates(["pending"]).length };
  }

  private request(requestId: string): InteractionRow {
    const i = this.reads.rows.interaction(requestId);
    if (!i) {
      const open = this.reads.rows.interactionsInStates(["pending"]).map((p) => p.id);
      throw new BridgeError(`request "${requestId}" is unknown; pending: ${open.join(", ") || "none"} (codex-bridge pending shows them)`, "request_id");
    }
    if (i.kind === "tool") throw new BridgeError(`${i.id} is a bridge_web_tool call: the supervisor answers it with codex_submit_tool_result`, "request_id");
    return i;
  }

  private async answer(i: InteractionRow, how: Omit<RespondInput, "task_id" | "request_id">): Promise<AnswerResult> {
    const r = await this.domain.respond({ task_id: i.task_id, request_id: i.id, ...how }, "person_at_machine");
    return { request_id: i.id, task_id: i.task_id, action: how.action, state: r.interaction.state, answered_by: r.interaction.answered_by ?? ANSWERED_BY.person_at_machine, repeated: r.repeated };
  }
}

function actionFor(i: InteractionRow, d: Decision): Omit<RespondInput, "task_id" | "request_id"> {
  if (d.verdict === "decline") return { action: "decline" };
  switch (i.kind) {
    case "command":
    case "fileChange":
      return { action: d.for_session ? "acceptForSession" : "accept" };
    case "permissions":
      return { action: "accept", payload: { scope: d.for_session ? "session" : "turn" } };
    case "elicitation":
      if (d.for_session) throw new BridgeError("--for-session does not apply to an MCP elicitation", "for_session");
      return { action: "accept", payload: { content: {} } };
    case "userInput":
      throw new BridgeError(`${i.id} is a question: answer it with codex-bridge answer ${i.id} TEXT (or decline it)`, "request_id");
    default:
      throw new BridgeError(`${i.id} is a request kind the bridge does not know (${i.method}); it can only be declined`, "request_id");
  }
}
