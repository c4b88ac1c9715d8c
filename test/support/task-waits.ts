// Helpers for integration tests that drive a task through the MCP surface of a harness bridge.
import { expect } from "vitest";
import { resultText, type Harness } from "../../src/selftest/harness.ts";
import type { AppServerClient } from "../../src/codex/client.ts";

export type S = Record<string, any>;
export const sc = (r: { structuredContent?: unknown }) => (r.structuredContent ?? {}) as S;
export const SETTLED = ["completed", "failed", "interrupted", "connection_lost", "unknown"];

export interface WaitOptions {
  rounds?: number;
  mode?: "auto" | "supervision" | "raw";
  /** Runs on every answer before `done` is asked, e.g. to answer the requests it shows. */
  onAnswer?: (s: S) => Promise<void>;
}

/** Calls codex_wait until `done` says so; returns every answer seen. */
export async function waitUntil(h: Harness, taskId: string, done: (s: S, all: S[]) => boolean, opts: WaitOptions = {}): Promise<S[]> {
  const answers: S[] = [];
  for (let i = 0; i < (opts.rounds ?? 40); i++) {
    const r = await h.call("codex_wait", { task_id: taskId, timeout_seconds: 20, ...(opts.mode ? { mode: opts.mode } : {}) });
    expect(r.isError, resultText(r)).toBeFalsy();
    const s = sc(r);
    answers.push(s);
    await opts.onAnswer?.(s);
    if (done(s, answers)) return answers;
  }
  throw new Error(`task ${taskId} never reached the expected point; last answer: ${JSON.stringify(answers.at(-1))}`);
}

export const settled = (h: Harness, taskId: string, opts: WaitOptions = {}) => waitUntil(h, taskId, (s) => SETTLED.includes(s.state), opts);

/** Waits for the first approval request (codex_respond kind) of the task and returns its view. */
export async function nextRequest(h: Harness, taskId: string): Promise<S> {
  const answers = await waitUntil(h, taskId, (s) => (s.requests?.length ?? 0) > 0 || SETTLED.includes(s.state));
  const req = answers.at(-1)!.requests?.[0];
  if (!req) throw new Error(`no request arrived; last answer: ${JSON.stringify(answers.at(-1))}`);
  return req;
}

/** Waits for the first bridge_web_tool request of the task and returns its view. */
export async function nextToolRequest(h: Harness, taskId: string): Promise<S> {
  const answers = await waitUntil(h, taskId, (s) => (s.tool_requests?.length ?? 0) > 0 || SETTLED.includes(s.state));
  const req = answers.at(-1)!.tool_requests?.[0];
  if (!req) throw new Error(`no tool request arrived; last answer: ${JSON.stringify(answers.at(-1))}`);
  return req;
}

export async function startTask(h: Harness, prompt: string, extra: Record<string, unknown> = {}): Promise<string> {
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
