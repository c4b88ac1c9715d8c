// What a task is doing now, in one short line: how long its turn has run and the command running (or "thinking").
// Idle wait answers and the progress notifications of a wait say nothing more than this.
import type { Repo } from "../store/repo.ts";
import { SETTLED_STATES, type TaskRow } from "../store/rows.ts";

// A running command is named, not quoted in full: its whole text arrives with its exit code when it finishes.
const COMMAND_CHARS = 16;

export interface Activity {
  /** Seconds since the current turn started (or the task, before its first turn). */
  ran_s: number;
  /** The command running now, shortened; absent while Codex is thinking. */
  command?: string;
}

export function activity(repo: Repo, t: TaskRow): Activity {
  const started = repo.db
    .prepare(`SELECT at FROM events WHERE task_id = ? AND kind = 'turn_started' ORDER BY seq DESC LIMIT 1`)
    .get(t.id);
  const since = Date.parse(started ? String(started.at) : t.created_at);
  const a: Activity = { ran_s: Math.max(0, Math.round((Date.now() - since) / 1000)) };
  if (SETTLED_STATES.has(t.state)) return a;
  // Several commands can run at once (Codex runs tool calls in parallel): the newest one is named.
  const running = repo.db
    .prepare(`SELECT data FROM items WHERE task_id = ? AND type = 'commandExecution' AND status = 'inProgress' ORDER BY rowid DESC LIMIT 1`)
    .get(t.id);
  if (running) {
    let command = "";
    try {
      command = String((JSON.parse(String(running.data)) as { command?: unknown }).command ?? "");
    } catch {
      /* an unreadable row names no command */
    }
    if (command) a.command = command.length <= COMMAND_CHARS ? command : `${command.slice(0, COMMAND_CHARS - 1)}…`;
  }
  return a;
}

/** "45s", "4m10s", "1h05m". */
export function duration(s: number): string {
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** The one-line "what it is doing now": `running 4m10s: $ npm test`, `running 35s, thinking`. */
export function activityLine(state: string, a: Activity): string {
  const doing = state === "waiting_for_approval" ? ", waiting for an answer" : state === "waiting_for_tool" ? ", waiting for a tool result" : a.command ? `: $ ${a.command}` : SETTLED_STATES.has(state as TaskRow["state"]) ? "" : ", thinking";
  return `${state} ${duration(a.ran_s)}${doing}`;
}
