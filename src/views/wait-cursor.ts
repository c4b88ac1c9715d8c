// Wait cursors as the supervisor sees them: `t_…:SEQ`, or `t_…:gN:SEQ` once the app-server has been restarted N
// times; a cursor from an earlier generation is lost and the supervisor is told how to re-anchor.
import { BridgeError } from "../bridge-error.ts";

export interface Cursor {
  seq: number;
  generation: number;
}

export const REANCHOR =
  "the Codex app-server was restarted since this cursor; events from before the restart are not replayed. Re-anchor: codex_checkpoint read, codex_status, codex_result (or codex_threads read) for what happened, then continue";

export function encodeCursor(taskId: string, c: Cursor): string {
  return c.generation === 0 ? `${taskId}:${c.seq}` : `${taskId}:g${c.generation}:${c.seq}`;
}

const CURSOR_RE = /^(t_[0-9a-f]+):(?:g(\d+):)?(\d+)$/;

/**
 * The explicit cursors of a wait: one per task, several separated by spaces or commas. Each names its task, which
 * must be one of the tasks waited on.
 */
export function decodeCursors(input: string | undefined, taskIds: string[]): Map<string, Cursor> {
  const out = new Map<string, Cursor>();
  if (input === undefined) return out;
  for (const one of input.split(/[\s,]+/).filter(Boolean)) {
    const m = CURSOR_RE.exec(one);
    if (!m) throw new BridgeError(`cursor "${one}" is malformed; pass the next_cursor of an earlier codex_wait unchanged, or omit it`, "cursor");
    const taskId = m[1]!;
    if (!taskIds.includes(taskId)) {
      throw new BridgeError(`cursor "${one}" belongs to task ${taskId}, not ${taskIds.join(", ")}; omit it or use this task's next_cursor`, "cursor");
    }
    if (out.has(taskId)) throw new BridgeError(`cursor names task ${taskId} twice; give one cursor per task`, "cursor");
    out.set(taskId, { seq: Number(m[3]), generation: m[2] === undefined ? 0 : Number(m[2]) });
  }
  return out;
}
