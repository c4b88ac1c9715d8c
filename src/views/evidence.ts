// What codex_result delivers: Codex's final message plus evidence gathered from what the bridge itself recorded
// and checked. Written for a model reader: every fact once, empty groups left out, bulk behind codex_inspect.
import { isAbsolute, relative, sep } from "node:path";
import type { Repo } from "../store/repo.ts";
import { diffStat } from "./diff-stat.ts";
import { BridgeError } from "../bridge-error.ts";
import type { GitChecks } from "./git-checks.ts";
import { isValidationCommand } from "./validation.ts";
import { SETTLED_STATES, type Failure, type TaskRow, type TaskState, type UnknownOutcome } from "../store/rows.ts";

export const RESULT_LIST_MAX = 50;
/** Up to this many commands are listed; beyond it, failed and test/build commands are listed and the rest counted. */
const COMMANDS_IN_FULL = 10;
const COMMAND_TEXT_MAX = 240;
const ERROR_TEXT_MAX = 200;
export const HOST_REPORT_NOTE = "relayed by the supervisor's host; not independently verified by the bridge";

export interface CommandEvidence {
  command: string;
  exit_code?: number;
  status: string;
}

export interface FileChangeEvidence {
  path: string;
  kind: string;
  status: string;
}

export interface McpCallEvidence {
  server: string;
  tool: string;
  status: string;
  error?: string;
}

export interface HostReport {
  request_id: string;
  capability: string;
  /** The host's own status (success, error, unavailable, declined); absent when nothing was submitted. */
  status?: string;
  /** Ledger state of the call: submitted, resolved, stale, uncertain, pending. */
  state: string;
}

export interface Evidence {
  commands?: CommandEvidence[];
  /** Commands not listed (beyond RESULT_LIST_MAX, or routine ones of a long task); all behind codex_inspect kind=commands. */
  commands_omitted?: number;
  /** Set when a long task's routine commands are only counted: how many of all its commands exited 0. */
  commands_exit_0?: number;
  file_changes?: FileChangeEvidence[];
  file_changes_omitted?: number;
  mcp_calls?: McpCallEvidence[];
  mcp_calls_omitted?: number;
  host_reports?: { note: string; items: HostReport[]; omitted?: number };
  /** Summed over the task's turns; the text is behind codex_inspect kind=diff. */
  diff?: { files: number; insertions: number; deletions: number; chars: number };
  git?: GitChecks;
  /** Warning and error events (routine notices are not counted); read them with codex_inspect kind=warnings. */
  warnings?: number;
}

export interface TaskResult {
  task_id: string;
  state: TaskState;
  /** Only when it says more than `state` (e.g. the previous turn of a task whose connection was lost). */
  turn_status?: string;
  final_message?: string;
  failure?: Failure;
  unknown?: UnknownOutcome;
  evidence?: Evidence;
}

const clip = (s: string, max: number): string => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);
const text = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** The task, when codex_result may be asked for it; otherwise a BridgeError saying what to do instead. */
export function requireSettledTask(repo: Repo, taskId: string): TaskRow {
  const task = repo.task(taskId);
  if (!task) throw new BridgeError(`task_id "${taskId}" is not a known task; list tasks with codex_status`, "task_id");
  if (!SETTLED_STATES.has(task.state)) {
    throw new BridgeError(`task ${taskId} is ${task.state}; the turn has not ended. Call codex_wait until it does, then codex_result`, "task_id");
  }
  return task;
}

function cap<T>(list: T[]): { items: T[]; omitted?: number } {
  return list.length > RESULT_LIST_MAX ? { items: list.slice(0, RESULT_LIST_MAX), omitted: list.length - RESULT_LIST_MAX } : { items: list };
}

/** A path inside the project relative to it (with forward slashes); anything else as given. */
export function projectPath(path: string, root: string | undefined): string {
  if (!root || !isAbsolute(path)) return path;
  const rel = relative(root, path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel.split(sep).join("/") : path;
}

function lastTurnStatus(repo: Repo, task: TaskRow): string | null {
  if (!task.turn_id) return null;
  const r = repo.db
    .prepare(`SELECT data FROM events WHERE task_id = ? AND kind = 'turn_completed' AND turn_id = ? ORDER BY seq DESC LIMIT 1`)
    .get(task.id, task.turn_id);
  if (!r) return null;
  try {
    return text((JSON.parse(String(r.data)) as Record<string, unknown>).status);
  } catch {
    return null;
  }
}

function countWarnings(repo: Repo, taskId: string): number {
  const r = repo.db
    .prepare(`SELECT COUNT(*) AS n FROM events WHERE task_id = ? AND kind IN ('warning', 'error', 'connection_lost', 'unknown')`)
    .get(taskId);
  return Number(r?.n ?? 0);
}

function collectEvidence(repo: Repo, taskId: string, git: GitChecks | null, root: string | undefined): Evidence {
  const ev: Evidence = {};

  const commands: CommandEvidence[] = repo.items(taskId, "commandExecution").map((i) => {
    const command = clip(text(i.data.command) ?? "", COMMAND_TEXT_MAX);
    const status = text(i.data.status) ?? i.status ?? "unknown";
    return typeof i.data.exit_code === "number" ? { command, exit_code: i.data.exit_code, status } : { command, status };
  });
  if (commands.length) {
    // The waits already reported every command once; a long task's result names only what a reviewer checks.
    const long = commands.length > COMMANDS_IN_FULL;
    const listed = long ? commands.filter((c) => c.exit_code !== 0 || c.status !== "completed" || isValidationCommand(c.command)) : commands;
    const c = cap(listed);
    if (c.items.length) ev.commands = c.items;
    if (commands.length > c.items.length) ev.commands_omitted = commands.length - c.items.length;
    if (long) ev.commands_exit_0 = commands.filter((x) => x.exit_code === 0).length;
  }

  const changes: FileChangeEvidence[] = [];
  for (const i of repo.items(taskId, "fileChange")) {
    const list = Array.isArray(i.data.changes) ? i.data.changes : [];
    for (const raw of list) {
      const o = (raw ?? {}) as Record<string, unknown>;
      changes.push({ path: projectPath(text(o.path) ?? "?", root), kind: text(o.kind) ?? "update", status: i.status ?? "unknown" });
    }
  }
  if (changes.length) {
    const c = cap(changes);
    ev.file_changes = c.items;
    if (c.omitted) ev.file_changes_omitted = c.omitted;
  }

  const mcp: McpCallEvidence[] = repo.items(taskId, "mcpToolCall").map((i) => {
    const call: McpCallEvidence = { server: text(i.data.server) ?? "?", tool: text(i.data.tool) ?? "?", status: i.status ?? text(i.data.status) ?? "unknown" };
    const err = i.data.error;
    if (err !== null && err !== undefined) {
      const msg = typeof err === "string" ? err : text((err as Record<string, unknown>).message) ?? JSON.stringify(err);
      call.error = clip(msg, ERROR_TEXT_MAX);
    }
    return call;
  });
  if (mcp.length) {
    const c = cap(mcp);
    ev.mcp_calls = c.items;
    if (c.omitted) ev.mcp_calls_omitted = c.omitted;
  }

  const reports: HostReport[] = repo
    .interactions(taskId)
    .filter((i) => i.kind === "tool")
    .map((i) => {
      const args = (i.params.arguments ?? {}) as Record<string, unknown>;
      const submission = (i.response ?? null) as Record<string, unknown> | null;
      const status = submission ? text(submission.status) : null;
      return { request_id: i.id, capability: text(args.capability) ?? "?", ...(status ? { status } : {}), state: i.state };
    });
  if (reports.length) {
    const c = cap(reports);
    ev.host_reports = { note: HOST_REPORT_NOTE, items: c.items, ...(c.omitted ? { omitted: c.omitted } : {}) };
  }

  const diffs = repo.items(taskId, "turnDiff").map((i) => text(i.data.diff) ?? "").filter((d) => d.length > 0);
  if (diffs.length) {
    const files = new Set<string>();
    let insertions = 0;
    let deletions = 0;
    let chars = 0;
    for (const d of diffs) {
      const s = diffStat(d);
      s.files.forEach((f) => files.add(f));
      insertions += s.insertions;
      deletions += s.deletions;
      chars += d.length;
    }
    ev.diff = { files: files.size, insertions, deletions, chars };
  }

  if (git) ev.git = git;
  const warnings = countWarnings(repo, taskId);
  if (warnings) ev.warnings = warnings;
  return ev;
}

/**
 * The authoritative result of a settled task. `git` is what runGitChecks found in the project (null when it was
 * not run); `projectRoot` lets file paths be shown relative to the project.
 */
export function buildResult(repo: Repo, taskId: string, git: GitChecks | null, opts: { projectRoot?: string } = {}): TaskResult {
  const task = requireSettledTask(repo, taskId);
  const result: TaskResult = { task_id: task.id, state: task.state };
  const turnStatus = lastTurnStatus(repo, task);
  if (turnStatus && turnStatus !== task.state) result.turn_status = turnStatus;
  if (task.final_message) result.final_message = task.final_message;
  if (task.failure) result.failure = task.failure;
  if (task.unknown) result.unknown = task.unknown;
  const evidence = collectEvidence(repo, taskId, git, opts.projectRoot);
  if (Object.keys(evidence).length) result.evidence = evidence;
  return result;
}

/** The failure as one line of text: the code a script matches, whether a retry can help, the sentence. */
export function failureText(f: Failure): string {
  return `failure ${f.code} (${f.retryable ? "retryable" : "not retryable"}): ${f.sentence}`;
}
