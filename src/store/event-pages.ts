// The last full page of events read outside a transaction, kept as the driver gave it: codex_wait reads the same page
// when it looks and again when it answers, and a busy task's pages are hundreds of rows.
import type { Row } from "../../platform/types.ts";

/**
 * Events are never changed or deleted, and a later one has a higher seq: a full page of committed events after a seq
 * is that page for good. A short page (more may come) and anything read inside a transaction (it may roll back) are
 * not kept. Rows are handed out as stored; each reader builds its own objects from them.
 */
export class FullEventPage {
  private last: { key: string; rows: Row[] } | null = null;

  read(taskId: string, afterSeq: number, limit: number, committed: boolean, load: () => Row[]): Row[] {
    const key = `${taskId}\u0000${afterSeq}\u0000${limit}`;
    if (this.last?.key === key) return this.last.rows;
    const rows = load();
    if (rows.length === limit && committed) this.last = { key, rows };
    return rows;
  }
}
