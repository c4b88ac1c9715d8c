// Reliability: fuzzed tool calls generated from the live tools/list schemas, and malformed JSON-RPC lines, through
// the tunnel emulator into the real bridge process. Every input gets an answer (an error for every invalid one), the
// bridge never crashes nor writes a stray stdout byte, answers ping within a second after every single line, and
// exits within a second of stdin EOF.
import { describe, expect, it } from "vitest";
import { callTool, prepareBridge } from "../support/bridge-process.ts";
import { fuzzCall, malformedLine, type FuzzContext, type Tool } from "../support/fuzz-inputs.ts";
import { holdForPhase, recordFigures, Responsiveness, scale, seeded } from "../support/reliability.ts";
import type { JsonRpcResponse } from "../support/tunnel-emulator.ts";

const held = holdForPhase();

const CALLS = scale(10_000, 1_500);
const LINES = scale(1_000, 250);
const OVER_LIMIT_LINES = scale(3, 1);
/** Valid calls that cost real work are kept rare: each starts a turn or restarts the app-server. */
const COSTLY: Record<string, number> = { codex_start: scale(40, 8), codex_send: scale(20, 4), codex_runtime: scale(6, 2), codex_cancel: scale(20, 4) };

const isErrorAnswer = (res: JsonRpcResponse) => "error" in res || (res.result as { isError?: boolean } | undefined)?.isError === true;

describe("reliability: fuzzed input", () => {
  it(`${CALLS} tool calls from the live schemas and ${LINES} malformed JSON-RPC lines: all answered, no crash, no hang, no stray byte`, async () => {
    const r = seeded("fuzz");
    const setup = (held.setup = await prepareBridge({ approvalPolicy: "never" }));
    setup.provider.setResponder(() => ({ kind: "output", items: [{ type: "message", text: "fuzzed ok" }] }));
    const t = await setup.spawn({ deadlineMs: 30_000, stopGraceMs: 10_000 });
    held.tunnel = t;
    const live = new Responsiveness();
    await t.initialize();
    const list = await t.request("tools/list", {});
    if (!("result" in list)) throw new Error(JSON.stringify(list));
    const tools = (list.result as { tools: Tool[] }).tools;

    // A few real tasks and threads, so that valid calls reach real rows too.
    const ctx: FuzzContext = { taskIds: [], threadIds: [] };
    for (let i = 0; i < 3; i++) {
      const start = await callTool(t, "codex_start", { project_id: "demo", prompt: `seed task ${i}` });
      ctx.taskIds.push(start.structured.task_id as string);
    }
    for (const id of ctx.taskIds) {
      for (let i = 0; i < 10; i++) if (["completed", "failed"].includes((await callTool(t, "codex_wait", { task_id: id, timeout_seconds: 10 })).structured.state)) break;
      const thread = (await callTool(t, "codex_status", { task_id: id })).structured.thread_id;
      if (typeof thread === "string") ctx.threadIds.push(thread);
    }

    const spent: Record<string, number> = {};
    const allowValid = (tool: string) => (COSTLY[tool] === undefined ? true : (spent[tool] ?? 0) < COSTLY[tool]!);
    const stats = { calls: 0, invalid: 0, valid: 0, huge: 0, errorsForInvalid: 0, invalidAccepted: [] as string[], unanswered: 0, mutations: new Set<string>() };
    for (let n = 0; n < CALLS && !t.fatal; n++) {
      const call = fuzzCall(tools, r, ctx, allowValid);
      r.note(`call ${n}: ${call.tool} (${call.mutation}) ${JSON.stringify(call.args)}`);
      if (!call.invalid) spent[call.tool] = (spent[call.tool] ?? 0) + 1;
      stats.calls++;
      stats.mutations.add(call.mutation.replace(/ \(.*\)$/, ""));
      if (call.huge) stats.huge++;
      call.invalid ? stats.invalid++ : stats.valid++;
      let res: JsonRpcResponse | null = null;
      try {
        res = await t.request("tools/call", { name: call.tool, arguments: call.args }, { deadlineMs: 30_000 });
      } catch {
        stats.unanswered++;
      }
      if (res && call.invalid) {
        if (isErrorAnswer(res)) stats.errorsForInvalid++;
        else if (stats.invalidAccepted.length < 10) stats.invalidAccepted.push(`${call.tool} ${call.mutation}: ${JSON.stringify(call.args).slice(0, 200)}`);
      }
      await live.ping(t);
    }

    const lines = { sent: 0, owedId: 0, answeredId: 0, wrongAnswer: [] as string[], owedNull: 0, answeredNull: 0, owedNone: 0, answeredNone: 0, kinds: new Set<string>() };
    for (let n = 0; n < LINES + OVER_LIMIT_LINES && !t.fatal; n++) {
      const raw = malformedLine(r, n, n >= LINES);
      r.note(`line ${n} (${raw.kind}): ${typeof raw.line === "string" ? raw.line : `bytes ${Buffer.from(raw.line).toString("hex")}`}`);
      lines.sent++;
      lines.kinds.add(raw.kind);
      const nullsBefore = t.unexpectedResponses.length;
      if (raw.owed.answer === "id") {
        lines.owedId++;
        try {
          const res = await t.writeRaw(raw.line, { id: raw.owed.id, deadlineMs: 30_000 });
          if (res) {
            lines.answeredId++;
            if (isErrorAnswer(res) !== raw.owed.error && lines.wrongAnswer.length < 10) lines.wrongAnswer.push(`${raw.kind}: ${JSON.stringify(res).slice(0, 200)}`);
          }
        } catch {
          /* counted as unanswered below */
        }
      } else {
        await t.writeRaw(raw.line);
      }
      await live.ping(t);
      const nulls = t.unexpectedResponses.length - nullsBefore;
      if (raw.owed.answer === "null") {
        lines.owedNull++;
        if (nulls >= 1 && t.unexpectedResponses.slice(nullsBefore).every((x) => x.id === null && "error" in x)) lines.answeredNull++;
        else if (lines.wrongAnswer.length < 10) lines.wrongAnswer.push(`${raw.kind}: ${nulls} id-null answers`);
      } else if (raw.owed.answer === "none") {
        lines.owedNone++;
        if (nulls > 0) lines.answeredNone++;
      }
    }

    const alive = t.exit === null && t.fatal === null;
    const stray = t.fatal?.reason.match(/non-JSON|not a JSON-RPC|request/) ? 1 : 0;
    await live.stop(t);
    const unansweredInvalid = stats.invalid - stats.errorsForInvalid + (lines.owedId - lines.answeredId) + (lines.owedNull - lines.answeredNull);
    recordFigures("fuzzed input", {
      "tool calls": stats.calls,
      "invalid calls": stats.invalid,
      "valid calls": stats.valid,
      "1-5 MiB calls": stats.huge,
      mutations: stats.mutations.size,
      "raw lines": lines.sent,
      "line shapes": lines.kinds.size,
      "invalid inputs not answered with an error": unansweredInvalid,
      "answers to notifications": lines.answeredNone,
      crashes: alive ? 0 : 1,
      "stray stdout lines": stray,
      "unanswered calls": stats.unanswered,
      ...live.figures(),
      hangs: live.hangs + stats.unanswered,
    });
    console.info(`[fuzz] seed ${r.seed}; invalid accepted: ${JSON.stringify(stats.invalidAccepted)}; wrong line answers: ${JSON.stringify(lines.wrongAnswer)}`);
    expect(t.fatal?.reason ?? "child exited", t.fatal?.line?.slice(0, 300)).toMatch(/child exited|child closed stdout/);
    expect(alive).toBe(true);
    const repeat = `RELIABILITY_SEED=${r.seed} repeats this run`;
    expect(stats.invalidAccepted, repeat).toEqual([]);
    expect(lines.wrongAnswer, repeat).toEqual([]);
    expect(lines.answeredNone).toBe(0);
    expect(stats.unanswered).toBe(0);
    expect(live.hangs).toBe(0);
  });
});
