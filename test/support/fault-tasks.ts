// Test support for the fault phases of the reliability suite: tasks of every shape a kill can land in (a long stream,
// a command, an approval, a relayed tool call, a turn that hangs, a message then a command), scripted on the mock
// model by the "kind:" word of the prompt, and the supervisor's side of them: answering what they ask.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getPlatform } from "../../platform/index.ts";
import { userTexts, type MockResponse, type RecordedRequest } from "../../src/selftest/mock-provider/index.ts";
import type { ToolAnswer } from "./bridge-process.ts";
import type { Random } from "./reliability.ts";

export const TASK_KINDS = ["stream", "command", "approval", "relay", "hang", "multi"] as const;
export type TaskKind = (typeof TASK_KINDS)[number];

export const LIVE_STATES = new Set(["starting", "running", "waiting_for_approval", "waiting_for_tool"]);
export const SETTLED_STATES = new Set(["completed", "failed", "interrupted", "connection_lost", "unknown"]);

export const promptFor = (kind: TaskKind, n: number) => `kind:${kind} task ${n}: do the ${kind} thing`;

/** The mock model's script: the first request of a turn by its kind, a short final answer after any tool output. */
export function faultResponder(req: RecordedRequest): MockResponse {
  const last = req.body.input.at(-1);
  if (last && (last.type === "function_call_output" || last.type === "custom_tool_call_output")) return { kind: "output", items: [{ type: "message", text: "done after the tool" }] };
  const prompt = userTexts(req).reverse().find((t) => t.includes("kind:")) ?? "";
  const kind = (/kind:(\w+)/.exec(prompt)?.[1] ?? "stream") as TaskKind;
  switch (kind) {
    case "command":
      return { kind: "output", items: [{ type: "exec", cmd: "sleep 0.4; echo command-done", yieldTimeMs: 250 }] };
    case "approval":
      return { kind: "output", items: [{ type: "exec", cmd: "touch approved-marker", sandboxPermissions: "require_escalated", justification: "needs a write outside the sandbox" }] };
    case "relay":
      return { kind: "output", items: [{ type: "tool", name: "bridge_web_tool", arguments: { capability: "web_search", request: "look it up", operation: "read" } }] };
    case "hang":
      return { kind: "hang", partialText: "thinking\n" };
    case "multi":
      return { kind: "output", items: [{ type: "message", text: "first a note", deltas: 5 }, { type: "exec", cmd: "echo multi" }] };
    default:
      return { kind: "output", items: [{ type: "message", text: `${"streamed words ".repeat(150)}\nthe end`, deltas: 120 }] };
  }
}

export type Call = (name: string, args: Record<string, unknown>) => Promise<ToolAnswer>;

/** What the supervisor was told succeeded: it must all be there after any crash. */
export interface Acknowledged {
  tasks: Set<string>;
  /** task id -> the last checkpoint goal the bridge confirmed saving */
  checkpoints: Map<string, string>;
  /** request id -> the answer the bridge confirmed recording */
  answers: Map<string, { task: string; tool: "codex_respond" | "codex_submit_tool_result"; args: Record<string, unknown> }>;
}

export const newAcknowledged = (): Acknowledged => ({ tasks: new Set(), checkpoints: new Map(), answers: new Map() });

/** Answers the requests a wait showed, at random: accept or decline approvals, submit or refuse tool calls. */
export async function answerRequests(call: Call, taskId: string, wait: Record<string, any>, r: Random, ack: Acknowledged): Promise<void> {
  for (const q of wait.requests ?? []) {
    const args = { task_id: taskId, request_id: q.request_id, action: r.pick(["accept", "decline"]) };
    const a = await call("codex_respond", args);
    if (!a.isError) ack.answers.set(q.request_id, { task: taskId, tool: "codex_respond", args });
  }
  for (const q of wait.tool_requests ?? []) {
    const args = { task_id: taskId, request_id: q.request_id, status: r.pick(["success", "unavailable"]), result: `result ${r.int(1, 1e6)}` };
    const a = await call("codex_submit_tool_result", args);
    if (!a.isError) ack.answers.set(q.request_id, { task: taskId, tool: "codex_submit_tool_result", args });
  }
}

/** PRAGMA integrity_check of the database as a crash left it (a copy with its WAL, so nothing is replayed in place). */
export async function integrityOfCopy(statePath: string): Promise<{ ok: boolean; detail: string; tasks: number }> {
  const dir = mkdtempSync(join(tmpdir(), "codex-bridge-integrity-"));
  try {
    const copy = join(dir, "state.sqlite3");
    copyFileSync(statePath, copy);
    if (existsSync(`${statePath}-wal`)) copyFileSync(`${statePath}-wal`, `${copy}-wal`);
    const db = await (await getPlatform()).openDatabase(copy);
    try {
      const rows = db.prepare("PRAGMA integrity_check").all();
      const detail = rows.map((row) => String(Object.values(row)[0])).join("; ");
      const tasks = Number(db.prepare("SELECT count(*) AS n FROM tasks").get()?.n ?? 0);
      return { ok: detail === "ok", detail, tasks };
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
