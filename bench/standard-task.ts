// The standard task, driven through the MCP surface the way a careful supervisor would, recording every
// result the supervisor read. Shared by the economy benchmark and the "nothing essential lost" test.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Platform } from "../platform/types.ts";
import { resultText, startHarness, type Harness } from "../src/selftest/harness.ts";

export type Variant = "no_approvals" | "approvals";

export const STANDARD_COMMANDS = ["for i in $(seq 1 20); do echo line-$i; done", "ls -la", "echo hello > result.txt"] as const;

/** Readable text of exactly `length` characters (a sentence, then numbered filler clauses). */
export function textOfLength(opening: string, length: number): string {
  let s = opening;
  for (let i = 1; s.length < length; i++) s += ` Note ${i}: the work stays inside the project directory.`;
  // Cut at a word boundary and pad with dots, so the text ends cleanly at exactly `length` characters.
  const cut = s.slice(0, length);
  const head = cut.slice(0, cut.lastIndexOf(" ")).replace(/[.:,]+$/, "");
  return head.padEnd(length, ".");
}

export const PREAMBLE = textOfLength(
  "Plan: I will print twenty numbered lines to check the shell, list the project directory, and write hello into result.txt.",
  400,
);
export const FINAL_ANSWER = textOfLength(
  "Done. The loop printed line-1 to line-20, the listing shows README.md and the Git directory, and result.txt now holds hello.",
  600,
);
export const PREAMBLE_DELTAS = 40;
export const FINAL_DELTAS = 60;

export interface CallRecord {
  tool: string;
  args: Record<string, unknown>;
  isError: boolean;
  text: string;
  /** JSON.stringify(structuredContent), or "" when there is none. */
  structured: string;
  structuredContent: unknown;
}

export interface Decision {
  request_id: string;
  action: string;
}

export interface StandardRun {
  variant: Variant;
  taskId: string;
  finalState: string;
  calls: CallRecord[];
  decisions: Decision[];
  /** JSON.stringify of the tools/list result as the model sees it (app-only tools left out, as MCP Apps hosts do). */
  toolsList: string;
}

/**
 * tools/list as a host shows it to the model: MCP Apps hosts keep tools whose `_meta.ui.visibility` leaves out
 * "model" for the views alone (ext-apps' isToolVisibilityAppOnly); hosts without MCP Apps list them but the bridge's
 * app-only tools say in one line that only the card uses them.
 */
export function modelVisibleTools<T extends { tools: { _meta?: Record<string, unknown> }[] }>(list: T): T {
  const visible = (t: { _meta?: Record<string, unknown> }) => {
    const v = (t._meta?.ui as { visibility?: unknown } | undefined)?.visibility;
    return !Array.isArray(v) || v.includes("model");
  };
  return { ...list, tools: list.tools.filter(visible) };
}

export const SETTLED = new Set(["completed", "failed", "interrupted", "connection_lost", "unknown"]);
const MAX_WAITS = 40;

function record(tool: string, args: Record<string, unknown>, r: CallToolResult): CallRecord {
  return {
    tool,
    args,
    isError: r.isError === true,
    text: resultText(r),
    structured: r.structuredContent === undefined ? "" : JSON.stringify(r.structuredContent),
    structuredContent: r.structuredContent,
  };
}

type Obj = Record<string, unknown>;

/** Calls tools the way a supervisor does, keeping every result it read; a tool error stops the run. */
export function recorder(h: Pick<Harness, "call">): { calls: CallRecord[]; call: (tool: string, args: Obj) => Promise<CallRecord> } {
  const calls: CallRecord[] = [];
  const call = async (tool: string, args: Obj): Promise<CallRecord> => {
    const rec = record(tool, args, await h.call(tool, args));
    calls.push(rec);
    if (rec.isError) throw new Error(`${tool} failed: ${rec.text}`);
    return rec;
  };
  return { calls, call };
}
const asObj = (v: unknown): Obj => (v && typeof v === "object" ? (v as Obj) : {});

/** Scripts the mock: preamble + first command, one response per further command, then the final answer. */
export function scriptStandardTask(h: StandardTaskHost): void {
  const [first, ...rest] = STANDARD_COMMANDS;
  h.provider!.enqueue(
    { kind: "output", items: [{ type: "message", text: PREAMBLE, deltas: PREAMBLE_DELTAS }, { type: "exec", cmd: first }] },
    ...rest.map((cmd) => ({ kind: "output" as const, items: [{ type: "exec" as const, cmd }] })),
    { kind: "output", items: [{ type: "message", text: FINAL_ANSWER, deltas: FINAL_DELTAS }] },
  );
}

/** What driving the standard task needs of a bridge: its MCP client, a tool call, and the mock model to script. */
export type StandardTaskHost = Pick<Harness, "call" | "client" | "provider">;

export interface StandardTaskOptions {
  prompt?: string;
  /** Scripts the mock model (default: scriptStandardTask). */
  script?: (h: StandardTaskHost) => void;
}

/** codex_start, codex_wait (defaults) until settled answering every new request with accept, then codex_result. */
export async function superviseStandardTask(h: StandardTaskHost, variant: Variant, opts: StandardTaskOptions = {}): Promise<StandardRun> {
  const { calls, call } = recorder(h);
  const decisions: Decision[] = [];
  const toolsList = JSON.stringify(modelVisibleTools(await h.client.listTools()));

  (opts.script ?? scriptStandardTask)(h);
  const start = await call("codex_start", { project_id: "demo", prompt: opts.prompt ?? "Run the standard task: print lines, list the directory, write result.txt." });
  const taskId = String(asObj(start.structuredContent).task_id);
  const answered = new Set<string>();
  let state = "";
  for (let i = 0; i < MAX_WAITS && !SETTLED.has(state); i++) {
    const w = await call("codex_wait", { task_id: taskId });
    const s = asObj(w.structuredContent);
    state = String(s.state);
    for (const req of Array.isArray(s.requests) ? s.requests : []) {
      const id = String(asObj(req).request_id);
      if (answered.has(id)) continue;
      answered.add(id);
      await call("codex_respond", { task_id: taskId, request_id: id, action: "accept" });
      decisions.push({ request_id: id, action: "accept" });
    }
  }
  if (!SETTLED.has(state)) throw new Error(`task ${taskId} did not settle within ${MAX_WAITS} waits (state ${state})`);
  await call("codex_result", { task_id: taskId });
  return { variant, taskId, finalState: state, calls, decisions, toolsList };
}

/** A fresh harness per variant, so each run reads a clean bridge. */
export async function runStandardTask(platform: Platform, variant: Variant): Promise<StandardRun> {
  const h = await startHarness(platform, { mockProvider: true, approvalPolicy: variant === "approvals" ? "untrusted" : "never" });
  try {
    return await superviseStandardTask(h, variant);
  } finally {
    await h.close();
  }
}

export interface EconomyFigures {
  calls: number;
  textChars: number;
  structuredChars: number;
  totalChars: number;
  largestResult: { chars: number; tool: string };
  perTool: Record<string, { calls: number; textChars: number; structuredChars: number }>;
}

export function economyFigures(run: { calls: CallRecord[] }): EconomyFigures {
  const perTool: EconomyFigures["perTool"] = {};
  let textChars = 0;
  let structuredChars = 0;
  let largestResult = { chars: 0, tool: "" };
  for (const c of run.calls) {
    textChars += c.text.length;
    structuredChars += c.structured.length;
    const size = c.text.length + c.structured.length;
    if (size > largestResult.chars) largestResult = { chars: size, tool: c.tool };
    const t = (perTool[c.tool] ??= { calls: 0, textChars: 0, structuredChars: 0 });
    t.calls++;
    t.textChars += c.text.length;
    t.structuredChars += c.structured.length;
  }
  return { calls: run.calls.length, textChars, structuredChars, totalChars: textChars + structuredChars, largestResult, perTool };
}
