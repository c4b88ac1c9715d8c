// Thread methods of the app-server protocol (verified on 0.171.0): names, params and the result fields the bridge reads.
import { z } from "zod";
import type { RequestOptions, Requester } from "./requester.ts";

export const THREAD_START = "thread/start";
export const THREAD_RESUME = "thread/resume";
export const THREAD_LIST = "thread/list";
export const THREAD_READ = "thread/read";
export const THREAD_TURNS_LIST = "thread/turns/list";
export const THREAD_TERMINALS_LIST = "thread/backgroundTerminals/list";
export const THREAD_TERMINALS_TERMINATE = "thread/backgroundTerminals/terminate";

/** Sent when a turn/start changed the thread's sticky settings (model, effort, tier...), before its acknowledgement. */
export const THREAD_SETTINGS_UPDATED = "thread/settings/updated";
export const THREAD_STATUS_CHANGED = "thread/status/changed";

export const ThreadSettingsEnvelope = z.object({
  threadId: z.string(),
  threadSettings: z.looseObject({ model: z.string().optional(), effort: z.string().nullable().optional(), serviceTier: z.string().nullable().optional() }),
});
export const ThreadStatusEnvelope = z.object({ threadId: z.string(), status: z.looseObject({ type: z.string() }) });

export interface ThreadStartParams {
  cwd: string;
  approvalPolicy: string;
  sandbox: string;
  model?: string;
  serviceTier?: string;
  dynamicTools?: unknown[];
}
/** thread/start answers with the thread and what Codex itself will use (cwd, model, sandbox...). */
export type ThreadStartResult = Record<string, unknown> & { thread: { id: string } };

export interface ThreadResumeParams {
  threadId: string;
  excludeTurns: boolean;
  cwd?: string;
}

export interface Page<T> {
  data?: T[];
  nextCursor?: string | null;
}

export const threadStart = (c: Requester, p: ThreadStartParams, o?: RequestOptions) => c.request<ThreadStartResult>(THREAD_START, p, o);
export const threadResume = (c: Requester, p: ThreadResumeParams, o?: RequestOptions) => c.request<unknown>(THREAD_RESUME, p, o);
/** thread/list filters are Codex's own: `searchTerm` matches the title, `cwd` the session cwd exactly. */
export interface ThreadListParams {
  limit: number;
  cursor?: string;
  searchTerm?: string;
  cwd?: string;
}

/** thread/read answers with the thread (status, and its turns when asked); `readState` is a local receipt. */
export interface ThreadReadResult {
  thread: Record<string, unknown> & { id?: unknown; status?: unknown; turns?: unknown };
}

export const threadList = (c: Requester, p: ThreadListParams) => c.request<Page<Record<string, unknown>>>(THREAD_LIST, p);
export const threadRead = (c: Requester, p: { threadId: string; includeTurns?: boolean }, o?: RequestOptions) => c.request<ThreadReadResult>(THREAD_READ, p, o);
export const threadTurnsList = (c: Requester, p: { threadId: string; itemsView: "summary"; sortDirection: "asc"; cursor?: string; limit?: number }) =>
  c.request<Page<Record<string, unknown>>>(THREAD_TURNS_LIST, p);
export const backgroundTerminalsList = (c: Requester, p: { threadId: string }, o?: RequestOptions) =>
  c.request<Page<{ processId?: string }>>(THREAD_TERMINALS_LIST, p, o);
export const backgroundTerminalTerminate = (c: Requester, p: { threadId: string; processId: string }, o?: RequestOptions) =>
  c.request<{ terminated?: boolean }>(THREAD_TERMINALS_TERMINATE, p, o);
