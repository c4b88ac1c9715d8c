// Native Codex threads as the supervisor reads them: one page of thread/list (filtered by Codex itself, labelled with
// the bridge's task where it owns the thread) and one thread's status with a page of its turns.
import type { AppServerClient } from "../codex/client.ts";
import { threadList, threadRead, threadTurnsList } from "../codex/protocol/thread.ts";

export interface ThreadSummary {
  thread_id: string;
  preview: string;
  cwd: unknown;
  task_id?: string;
}

export interface ThreadListInput {
  cursor?: string;
  limit?: number;
  search?: string;
  cwd?: string;
}

// Said whenever a filter narrowed the list, so nobody mistakes it for a boundary.
const FILTER_NOTE = "search and cwd only filter this list; they are not access control (any thread of this Codex stays readable by id)";
const TURNS_PAGE_DEFAULT = 20;

export async function listThreads(
  client: AppServerClient,
  input: ThreadListInput,
  taskOf: (threadId: string) => string | undefined,
  /** Applied to the whole preview before it is cut to length (a redactor: a secret cut in half is still a secret). */
  clean: (preview: string) => string,
): Promise<{ threads: ThreadSummary[]; next_cursor: string | null; note?: string }> {
  const res = await threadList(client, {
    limit: input.limit ?? 20,
    ...(input.cursor ? { cursor: input.cursor } : {}),
    ...(input.search ? { searchTerm: input.search } : {}),
    ...(input.cwd ? { cwd: input.cwd } : {}),
  });
  const threads = (res.data ?? []).map((t) => {
    const taskId = taskOf(String(t.id));
    return { thread_id: String(t.id), preview: clean(String(t.preview ?? "")).slice(0, 120), cwd: t.cwd, ...(taskId ? { task_id: taskId } : {}) };
  });
  return { threads, next_cursor: res.nextCursor ?? null, ...(input.search || input.cwd ? { note: FILTER_NOTE } : {}) };
}

export interface ThreadTurn {
  turn_id: string;
  status: unknown;
  error?: string;
}

/** One thread's status now and one page of its turns, oldest first; `limit` turns per page. */
export async function readThread(
  client: AppServerClient,
  input: { thread_id: string; cursor?: string; limit?: number },
): Promise<{ thread_id: string; status: string; turns: ThreadTurn[]; next_cursor: string | null }> {
  const read = await threadRead(client, { threadId: input.thread_id });
  const res = await threadTurnsList(client, {
    threadId: input.thread_id,
    itemsView: "summary",
    sortDirection: "asc",
    limit: input.limit ?? TURNS_PAGE_DEFAULT,
    ...(input.cursor ? { cursor: input.cursor } : {}),
  });
  const turns = (res.data ?? []).map((t) => {
    const error = (t.error ?? null) as { message?: unknown } | null;
    return { turn_id: String(t.id), status: t.status, ...(error && typeof error.message === "string" ? { error: error.message } : {}) };
  });
  const status = (read.thread.status ?? {}) as { type?: unknown };
  return { thread_id: input.thread_id, status: typeof status.type === "string" ? status.type : "unknown", turns, next_cursor: res.nextCursor ?? null };
}
