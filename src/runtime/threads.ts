// Native Codex threads as the supervisor reads them: one page of thread/list (labelled with the bridge's task where
// it owns the thread) and one thread's turns.
import type { AppServerClient } from "../codex/client.ts";
import { threadList, threadTurnsList } from "../codex/protocol/thread.ts";

export interface ThreadSummary {
  thread_id: string;
  preview: string;
  cwd: unknown;
  task_id?: string;
}

export async function listThreads(
  client: AppServerClient,
  input: { cursor?: string; limit?: number },
  taskOf: (threadId: string) => string | undefined,
  /** Applied to the whole preview before it is cut to length (a redactor: a secret cut in half is still a secret). */
  clean: (preview: string) => string,
): Promise<{ threads: ThreadSummary[]; next_cursor: string | null }> {
  const res = await threadList(client, { limit: input.limit ?? 20, ...(input.cursor ? { cursor: input.cursor } : {}) });
  const threads = (res.data ?? []).map((t) => {
    const taskId = taskOf(String(t.id));
    return { thread_id: String(t.id), preview: clean(String(t.preview ?? "")).slice(0, 120), cwd: t.cwd, ...(taskId ? { task_id: taskId } : {}) };
  });
  return { threads, next_cursor: res.nextCursor ?? null };
}

export async function readThreadTurns(client: AppServerClient, input: { thread_id: string; cursor?: string }): Promise<{ turns: { turn_id: string; status: unknown }[]; next_cursor: string | null }> {
  const res = await threadTurnsList(client, { threadId: input.thread_id, itemsView: "summary", sortDirection: "asc", ...(input.cursor ? { cursor: input.cursor } : {}) });
  const turns = (res.data ?? []).map((t) => ({ turn_id: String(t.id), status: t.status }));
  return { turns, next_cursor: res.nextCursor ?? null };
}
