// Nothing essential is lost in what a careful supervisor reads while following the standard and long tasks of the
// economy benchmark (real Codex, loopback mock model), alone and three at once, and nothing finished is repeated
// across waits. Content only: sizes and times are the benchmark's business.
import { beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { FINAL_ANSWER, PREAMBLE, STANDARD_COMMANDS, runStandardTask, type CallRecord, type StandardRun } from "../../bench/standard-task.ts";
import { LONG_COMMANDS, longCommand, longFinalAnswer, progressMessage, runLongTasks, type LongRun } from "../../bench/long-task.ts";

type Obj = Record<string, unknown>;

/** Every object nested anywhere in a value (the value itself included). */
function objectsIn(v: unknown, out: Obj[] = []): Obj[] {
  if (Array.isArray(v)) for (const x of v) objectsIn(x, out);
  else if (v && typeof v === "object") {
    out.push(v as Obj);
    for (const x of Object.values(v)) objectsIn(x, out);
  }
  return out;
}

const read = (c: CallRecord) => `${c.text}\n${c.structured}`;
const waits = (run: { calls: CallRecord[] }) => run.calls.filter((c) => c.tool === "codex_wait");
const finishedCommand = (c: CallRecord, cmd: string) => objectsIn(c.structuredContent).find((o) => o.command === cmd && typeof o.exit_code === "number");
/** A wait reports a finished command as `command → exit code`, in its text (after `$ `) and its structured content. */
const waitReports = (c: CallRecord, cmd: string, exit = 0) => c.text.includes(`$ ${cmd} → ${exit}`) && c.structured.includes(JSON.stringify(`${cmd} → ${exit}`));
const requestIn = (c: CallRecord, id: string) => objectsIn(c.structuredContent).find((o) => o.request_id === id && Array.isArray(o.decisions));

function checkCommonEssentials(run: StandardRun): void {
  expect(run.finalState).toBe("completed");
  const all = run.calls.map(read).join("\n");
  expect(all).toContain(PREAMBLE);
  expect(all).toContain(FINAL_ANSWER);
  for (const cmd of STANDARD_COMMANDS) {
    expect(all, `command ${cmd} is shown`).toContain(cmd);
    const finished = run.calls.map((c) => finishedCommand(c, cmd)).filter((o) => o !== undefined);
    expect(finished.length, `${cmd} has a recorded exit code`).toBeGreaterThan(0);
    for (const f of finished) expect(f.exit_code, cmd).toBe(0);
  }

  // Each finished message and command is reported by exactly one wait.
  const w = waits(run);
  expect(w.filter((c) => read(c).includes(PREAMBLE))).toHaveLength(1);
  for (const cmd of STANDARD_COMMANDS) {
    expect(w.filter((c) => waitReports(c, cmd)), `${cmd} finished once across waits`).toHaveLength(1);
  }
  // The final answer is delivered by codex_result, not by any wait.
  for (const c of w) expect(read(c)).not.toContain(FINAL_ANSWER);
  const result = run.calls.at(-1)!;
  expect(result.tool).toBe("codex_result");
  expect(read(result)).toContain(FINAL_ANSWER);
}

describe("the standard task, as a careful supervisor reads it", () => {
  let plain: StandardRun;
  let approvals: StandardRun;
  beforeAll(async () => {
    const platform = await getPlatform();
    plain = await runStandardTask(platform, "no_approvals");
    approvals = await runStandardTask(platform, "approvals");
  }, 180_000);

  it("without approvals: the preamble, every command with its exit code and the final answer, each finished fact in one wait", () => {
    checkCommonEssentials(plain);
    expect(plain.decisions).toEqual([]);
    expect(plain.calls.some((c) => c.tool === "codex_respond")).toBe(false);
  });

  it("with three approvals: also each request once (its command, the decisions offered) and the decision taken", () => {
    checkCommonEssentials(approvals);
    expect(approvals.decisions).toHaveLength(3);
    const w = waits(approvals);
    const requestedCommands: string[] = [];
    for (const d of approvals.decisions) {
      const carrying = w.filter((c) => requestIn(c, d.request_id) !== undefined);
      expect(carrying, `${d.request_id} shown in exactly one wait`).toHaveLength(1);
      const req = requestIn(carrying[0]!, d.request_id)!;
      expect(req.decisions).toContain("accept");
      expect(req.decisions).toContain("decline");
      expect(read(carrying[0]!)).toContain(d.request_id);
      requestedCommands.push(String(req.command));

      const answer = approvals.calls.find((c) => c.tool === "codex_respond" && c.args.request_id === d.request_id)!;
      expect(answer.isError).toBe(false);
      expect(read(answer)).toContain(d.request_id);
      expect(read(answer)).toContain(d.action);
    }
    expect(requestedCommands).toEqual([...STANDARD_COMMANDS]);
  });
});

/** Every command with its exit code, every progress message and each final answer: each read exactly once. */
function checkLongEssentials(run: LongRun): void {
  expect(run.finalStates).toEqual(run.taskIds.map(() => "completed"));
  const w = waits(run);
  for (let task = 0; task < run.tasks; task++) {
    for (let step = 0; step < LONG_COMMANDS; step++) {
      const cmd = longCommand(task, step);
      expect(w.filter((c) => c.text.includes(cmd)), `${cmd} in one wait`).toHaveLength(1);
      expect(w.filter((c) => waitReports(c, cmd)), `${cmd} with its exit code, in that wait's text and structured content`).toHaveLength(1);
    }
    for (const step of [0, 10, 20]) {
      const message = progressMessage(task, step);
      expect(w.filter((c) => read(c).includes(message)), `progress message ${task}/${step} in one wait`).toHaveLength(1);
    }
    const final = longFinalAnswer(task);
    for (const c of w) expect(read(c)).not.toContain(final);
    const results = run.calls.filter((c) => c.tool === "codex_result" && c.args.task_id === run.taskIds[task]);
    expect(results).toHaveLength(1);
    expect(results[0]!.text).toContain(final);
    expect(JSON.stringify(results[0]!.structuredContent)).toContain(JSON.stringify(final));
  }
}

describe("the long task, as a careful supervisor reads it", () => {
  let long: LongRun;
  let parallel: LongRun;
  beforeAll(async () => {
    const platform = await getPlatform();
    long = await runLongTasks(platform, 1);
    parallel = await runLongTasks(platform, 3);
  }, 240_000);

  it("alone: every command with its exit code, every progress message and the final answer, each once", () => {
    checkLongEssentials(long);
  });

  it("three at once through one codex_wait: the same for each task, every part labelled with its task", () => {
    checkLongEssentials(parallel);
    for (const c of waits(parallel)) {
      expect(c.args.task_ids).toEqual(parallel.taskIds);
      const s = c.structuredContent as Obj;
      // Either news, each part naming its task, or one line of which tasks are still running.
      if (Array.isArray(s.tasks)) for (const t of s.tasks as Obj[]) expect(parallel.taskIds).toContain(t.task_id);
      else expect(Object.values(s).every((v) => typeof v === "number")).toBe(true);
    }
  });
});
