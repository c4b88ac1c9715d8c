// Thread methods of the app-server protocol (verified on 0.171.0): names, params and the result fields the bridge reads.
import { z } from "zod";
import { sender, type RequestOptions, type Requester } from "./requester.ts";
import { keysOf, zodPaths, type SurfaceEntry } from "./reliance.ts";

export const THREAD_START = "thread/start";
export const THREAD_RESUME = "thread/resume";
export const THREAD_LIST = "thread/list";
export const THREAD_READ = "thread/read";
export const THREAD_TURNS_LIST = "thread/turns/list";
export const THREAD_TERMINALS_LIST = "thread/backgroundTerminals/list";
export const THREAD_TERMINALS_TERMINATE = "thread/backgroundTerminals/terminate";
/** Answered from memory: the liveness probe (an app-server that cannot answer this cannot answer anything). */
export const THREAD_LOADED_LIST = "thread/loaded/list";

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
  /** Not persisted: used for the start-up check that dynamic tools are accepted. */
  ephemeral?: boolean;
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

/** thread/list filters are Codex's own: `searchTerm` matches the title, `cwd` the session cwd exactly. */
export interface ThreadListParams {
  limit: number;
  cursor?: string;
  searchTerm?: string;
  cwd?: string;
}
export interface ThreadReadParams {
  threadId: string;
  includeTurns?: boolean;
}
export interface ThreadTurnsListParams {
  threadId: string;
  itemsView: "summary";
  sortDirection: "asc";
  cursor?: string;
  limit?: number;
}
export interface TerminalParams {
  threadId: string;
  processId: string;
}

/** thread/read answers with the thread (status, and its turns when asked); `readState` is a local receipt. */
export interface ThreadReadResult {
  thread: Record<string, unknown> & { id?: unknown; status?: unknown; turns?: unknown };
}

/** thread/resume answers with the resumed thread. */
export interface ThreadResumeResult {
  thread: Record<string, unknown> & { id: string };
}

/** Every thread request the bridge sends, with its params and its result. */
export interface ThreadRequests {
  [THREAD_START]: { params: ThreadStartParams; result: ThreadStartResult };
  [THREAD_RESUME]: { params: ThreadResumeParams; result: ThreadResumeResult };
  [THREAD_LIST]: { params: ThreadListParams; result: Page<Record<string, unknown>> };
  [THREAD_READ]: { params: ThreadReadParams; result: ThreadReadResult };
  [THREAD_TURNS_LIST]: { params: ThreadTurnsListParams; result: Page<Record<string, unknown>> };
  [THREAD_TERMINALS_LIST]: { params: Pick<TerminalParams, "threadId">; result: Page<{ processId?: string }> };
  [THREAD_TERMINALS_TERMINATE]: { params: TerminalParams; result: { terminated?: boolean } };
  [THREAD_LOADED_LIST]: { params: Record<string, never>; result: { data?: string[] } };
}

const send = sender<ThreadRequests>();

export const threadStart = (c: Requester, p: ThreadStartParams, o?: RequestOptions) => send(c, THREAD_START, p, o);
export const threadResume = (c: Requester, p: ThreadResumeParams, o?: RequestOptions) => send(c, THREAD_RESUME, p, o);
export const threadList = (c: Requester, p: ThreadListParams) => send(c, THREAD_LIST, p);
export const threadRead = (c: Requester, p: ThreadReadParams, o?: RequestOptions) => send(c, THREAD_READ, p, o);
export const threadTurnsList = (c: Requester, p: ThreadTurnsListParams) => send(c, THREAD_TURNS_LIST, p);
export const backgroundTerminalsList = (c: Requester, p: Pick<TerminalParams, "threadId">, o?: RequestOptions) => send(c, THREAD_TERMINALS_LIST, p, o);
export const backgroundTerminalTerminate = (c: Requester, p: TerminalParams, o?: RequestOptions) => send(c, THREAD_TERMINALS_TERMINATE, p, o);

export const threadLoadedList = (c: Requester, o?: RequestOptions) => send(c, THREAD_LOADED_LIST, {}, o);

export const THREAD_SURFACE: SurfaceEntry[] = [
  { kind: "request", method: THREAD_LOADED_LIST, sends: [], reads: [] },
  {
    kind: "request",
    method: THREAD_START,
    sends: keysOf<ThreadStartParams>({ cwd: true, approvalPolicy: true, sandbox: true, model: true, serviceTier: true, dynamicTools: true, ephemeral: true }),
    reads: ["thread.id", "cwd", "model", "reasoningEffort", "approvalPolicy", "sandbox.type", "sandbox.networkAccess"],
  },
  { kind: "request", method: THREAD_RESUME, sends: keysOf<ThreadResumeParams>({ threadId: true, excludeTurns: true, cwd: true }) },
  {
    kind: "request",
    method: THREAD_LIST,
    sends: keysOf<ThreadListParams>({ limit: true, cursor: true, searchTerm: true, cwd: true }),
    reads: ["data[].id", "data[].preview", "data[].cwd", "nextCursor"],
  },
  {
    kind: "request",
    method: THREAD_READ,
    sends: keysOf<ThreadReadParams>({ threadId: true, includeTurns: true }),
    reads: ["thread.id", "thread.status", "thread.status.type", "thread.turns[].id", "thread.turns[].status"],
  },
  {
    kind: "request",
    method: THREAD_TURNS_LIST,
    sends: keysOf<ThreadTurnsListParams>({ threadId: true, itemsView: true, sortDirection: true, cursor: true, limit: true }),
    reads: ["data[].id", "data[].status", "data[].error.message", "nextCursor"],
  },
  { kind: "request", method: THREAD_TERMINALS_LIST, sends: ["threadId"], reads: ["data[].processId"] },
  { kind: "request", method: THREAD_TERMINALS_TERMINATE, sends: keysOf<TerminalParams>({ threadId: true, processId: true }), reads: ["terminated"] },
  { kind: "notification", method: THREAD_SETTINGS_UPDATED, reads: zodPaths(ThreadSettingsEnvelope) },
  { kind: "notification", method: THREAD_STATUS_CHANGED, reads: zodPaths(ThreadStatusEnvelope) },
];
