// The long task of issue 15, driven through the MCP surface: what would take Codex 10 minutes while a supervisor polls
// with 25 s waits, scaled down in time with the same ratio of work to wait length. Once alone, and three at once
// through one codex_wait. Shared by the economy benchmark and the "nothing essential lost" test.
import type { Platform } from "../platform/types.ts";
import { startHarness, type Harness } from "../src/selftest/harness.ts";
import { userTexts, type MockResponse, type RecordedRequest } from "../src/selftest/mock-provider/index.ts";
import { recorder, SETTLED, textOfLength, type CallRecord } from "./standard-task.ts";

/** A 10-minute task polled with 25 s waits: the work lasts 24 wait lengths. */
export const WORK_TO_WAIT = 600 / 25;
/** The benchmark's wait length; the task's pace follows from it. */
export const WAIT_SECONDS = 1;
export const LONG_COMMANDS = 30;
const LINES_PER_COMMAND = 5;
/** Progress messages come with these steps' commands. */
const MESSAGE_STEPS = [0, 10, 20];
const MAX_WAITS = 120;

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === "object" ? (v as Obj) : {});

const label = (task: number) => String.fromCharCode(65 + task);

/** Step k of task `task` (0-based): prints five lines that name the task and the step. */
export function longCommand(task: number, step: number): string {
  return `seq -f '${label(task)}${String(step + 1).padStart(2, "0")}.%g' ${LINES_PER_COMMAND}`;
}

export function progressMessage(task: number, step: number): string {
  if (step === 0) return `Task ${label(task)}: I will run ${LONG_COMMANDS} checks one after another and report when each third is done.`;
  return `Task ${label(task)}: ${step} of ${LONG_COMMANDS} checks done, each printed its ${LINES_PER_COMMAND} lines; continuing.`;
}

export function longFinalAnswer(task: number): string {
  return textOfLength(`Task ${label(task)} done: all ${LONG_COMMANDS} checks ran and printed their ${LINES_PER_COMMAND} lines each, nothing failed.`, 600);
}

function taskOf(req: RecordedRequest): number {
  const m = /long task (\d+)/.exec(userTexts(req).join("\n"));
  return m ? Number(m[1]) : 0;
}

/**
 * Paces the mock like a long task: model answer k (a command, with a progress message at some steps) is released at
 * t0 + k × slot on one clock shared by every task, then the final answer; the whole task lasts WORK_TO_WAIT waits.
 */
export function scriptLongTasks(h: Harness, t0: number): void {
  const slotMs = (WORK_TO_WAIT * WAIT_SECONDS * 1000) / LONG_COMMANDS;
  h.provider!.setResponder((req): MockResponse => {
    const task = taskOf(req);
    const step = req.body.input.filter((i) => i.type === "function_call_output").length;
    const delayMs = Math.max(0, t0 + step * slotMs - Date.now());
    if (step >= LONG_COMMANDS) return { kind: "output", delayMs, items: [{ type: "message", text: longFinalAnswer(task), deltas: 20 }] };
    const items: Extract<MockResponse, { kind: "output" }>["items"] = [];
    if (MESSAGE_STEPS.includes(step)) items.push({ type: "message", text: progressMessage(task, step), deltas: 8 });
    items.push({ type: "exec", cmd: longCommand(task, step) });
    return { kind: "output", delayMs, items };
  });
}

export interface LongRun {
  tasks: number;
  taskIds: string[];
  finalStates: string[];
  calls: CallRecord[];
  /** Wall time from the first codex_start to the last task settling, in wait lengths. */
  waitLengths: number;
}

/**
 * Starts `n` long tasks, then follows them with codex_wait (one task_id, or task_ids for several) until all settled,
 * asking codex_result for each as soon as its end is reported.
 */
export async function superviseLongTasks(h: Harness, n: number): Promise<LongRun> {
  const { calls, call } = recorder(h);
  const t0 = Date.now();
  scriptLongTasks(h, t0);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const start = await call("codex_start", { project_id: "demo", prompt: `This is long task ${i}: run the ${LONG_COMMANDS} checks.` });
    ids.push(String(asObj(start.structuredContent).task_id));
  }
  const states = new Map<string, string>();
  const resulted = new Set<string>();
  for (let i = 0; i < MAX_WAITS && resulted.size < n; i++) {
    const w = await call("codex_wait", { ...(n === 1 ? { task_id: ids[0] } : { task_ids: ids }), timeout_seconds: WAIT_SECONDS });
    const s = asObj(w.structuredContent);
    const items = n === 1 ? [{ ...s, task_id: ids[0] }] : (Array.isArray(s.tasks) ? s.tasks : []).map(asObj);
    for (const item of items) states.set(String(item.task_id), String(item.state));
    for (const id of ids) {
      if (!resulted.has(id) && SETTLED.has(states.get(id) ?? "")) {
        resulted.add(id);
        await call("codex_result", { task_id: id });
      }
    }
  }
  if (resulted.size < n) throw new Error(`the long tasks did not all settle within ${MAX_WAITS} waits`);
  const waitLengths = (Date.now() - t0) / (WAIT_SECONDS * 1000);
  return { tasks: n, taskIds: ids, finalStates: ids.map((id) => states.get(id) ?? ""), calls, waitLengths };
}

/** A fresh harness per run, so each reads a clean bridge. */
export async function runLongTasks(platform: Platform, n: number): Promise<LongRun> {
  // Without the sandbox's per-command setup: three tasks at once must keep the scaled pace on a small machine, or the
  // run measures the machine's load instead of the bridge (the achieved pace is reported as waitLengths).
  const h = await startHarness(platform, { mockProvider: true, approvalPolicy: "never", sandboxType: "danger-full-access" });
  try {
    return await superviseLongTasks(h, n);
  } finally {
    await h.close();
  }
}
