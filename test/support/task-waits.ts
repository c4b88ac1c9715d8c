// Test support: driving a task through a bridge's MCP surface (an in-process harness, an HTTP session or the SDK
// client of the compiled binary): start it, then codex_wait until it reaches a point, answering what it asks.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { resultText } from "../../src/selftest/harness.ts";
import type { AppServerClient } from "../../src/codex/client.ts";

export type S = Record<string, any>;
export const sc = (r: { structuredContent?: unknown }) => (r.structuredContent ?? {}) as S;
export const SETTLED = ["completed", "failed", "interrupted", "connection_lost", "unknown"];

/** Anything that calls a bridge tool the MCP way: a Harness, an HttpClient, `{ call }` around an SDK client. */
export interface ToolCaller {
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
}

export interface WaitOptions {
  rounds?: number;
  mode?: "auto" | "supervision" | "raw";
  /** Runs on every answer before `done` is asked, e.g. to answer the requests it shows. */
  onAnswer?: (s: S) => Promise<void>;
  /** More to say when the task never gets there (e.g. the bridge's stderr). */
  context?: () => string;
}

/** Calls codex_wait until `done` says so; returns every answer seen. */
export async function waitUntil(h: ToolCaller, taskId: string, done: (s: S, all: S[]) => boolean, opts: WaitOptions = {}): Promise<S[]> {
  const answers: S[] = [];
  for (let i = 0; i < (opts.rounds ?? 40); i++) {
    const r = await h.call("codex_wait", { task_id: taskId, timeout_seconds: 20, ...(opts.mode ? { mode: opts.mode } : {}) });
    expect(r.isError, resultText(r)).toBeFalsy();
    const s = sc(r);
    answers.push(s);
    await opts.onAnswer?.(s);
    if (done(s, answers)) return answers;
  }
  const more = opts.context ? `\n${opts.context()}` : "";
  throw new Error(`task ${taskId} never reached the expected point; last answer: ${JSON.stringify(answers.at(-1))}${more}`);
}

export const settled = (h: ToolCaller, taskId: string, opts: WaitOptions = {}) => waitUntil(h, taskId, (s) => SETTLED.includes(s.state), opts);

/** Waits for the first approval request (codex_respond kind) of the task and returns its view. */
export async function nextRequest(h: ToolCaller, taskId: string): Promise<S> {
  const answers = await waitUntil(h, taskId, (s) => (s.requests?.length ?? 0) > 0 || SETTLED.includes(s.state));
  const req = answers.at(-1)!.requests?.[0];
  if (!req) throw new Error(`no request arrived; last answer: ${JSON.stringify(answers.at(-1))}`);
  return req;
}

/** Waits for the first bridge_web_tool request of the task and returns its view. */
export async function nextToolRequest(h: ToolCaller, taskId: string): Promise<S> {
  const answers = await waitUntil(h, taskId, (s) => (s.tool_requests?.length ?? 0) > 0 || SETTLED.includes(s.state));
  const req = answers.at(-1)!.tool_requests?.[0];
  if (!req) throw new Error(`no tool request arrived; last answer: ${JSON.stringify(answers.at(-1))}`);
  return req;
}

export async function startTask(h: ToolCaller, prompt: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await h.call("codex_start", { project_id: "demo", prompt, ...extra });
  expect(r.isError, resultText(r)).toBeFalsy();
  return sc(r).task_id as string;
}

/** Counts what the bridge writes back to the app-server as answers to its requests (results and errors). */
export function countAnswers(client: AppServerClient): { readonly count: number; readonly sent: unknown[] } {
  const sent: unknown[] = [];
  const respond = client.respond.bind(client);
  const respondError = client.respondError.bind(client);
  client.respond = async (id, result) => {
    sent.push(result);
    return respond(id, result);
  };
  client.respondError = async (id, code, message) => {
    sent.push({ error: message });
    return respondError(id, code, message);
  };
  return {
    get count() {
      return sent.length;
    },
    sent,
  };
}
