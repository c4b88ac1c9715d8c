// Test support for test:scale growth: runs the task kinds the issue measures through the bridge (the real app-server,
// the loopback mock model) and reads how many bytes of the state database they occupy.
import type { Database } from "../../platform/types.ts";
import type { Harness } from "../../src/selftest/harness.ts";
import type { MockResponse } from "../../src/selftest/mock-provider/index.ts";
import { sc, settled } from "../support/task-waits.ts";

export type TaskKind = "one_message" | "deltas_5000" | "commands_30";
export const TASK_KINDS: TaskKind[] = ["one_message", "deltas_5000", "commands_30"];

/** A 50,000-character answer (about what 5,000 deltas of a real model carry), different per task. */
export function longAnswer(tag: string): string {
  const line = (i: number) => `${tag} line ${String(i).padStart(4, "0")}: the quick brown fox jumps over the lazy dog again.\n`;
  let s = "";
  for (let i = 0; s.length < 50_000; i++) s += line(i);
  return s.slice(0, 50_000);
}

/** What the mock model answers for one task of a kind. */
export function script(kind: TaskKind, tag: string): MockResponse[] {
  switch (kind) {
    case "one_message":
      return [{ kind: "output", items: [{ type: "message", text: `Done ${tag}: the README has one heading.`, phase: "final_answer" }] }];
    case "deltas_5000":
      return [{ kind: "output", items: [{ type: "message", text: longAnswer(tag), deltas: 5000, phase: "final_answer" }] }];
    case "commands_30": {
      // `seq 1000 1400` prints 401 lines, 2,005 bytes: a command with about 2 KB of output.
      const out: MockResponse[] = [];
      for (let i = 0; i < 30; i++) out.push({ kind: "output", items: [{ type: "exec", cmd: `seq ${1000 + i} ${1400 + i}` }] });
      out.push({ kind: "output", items: [{ type: "message", text: `Ran 30 commands for ${tag}.`, phase: "final_answer" }] });
      return out;
    }
  }
}

export async function runTask(h: Harness, kind: TaskKind, tag: string): Promise<string> {
  h.provider!.enqueue(...script(kind, tag));
  const started = await h.call("codex_start", { project_id: "demo", prompt: `task ${tag} (${kind})` });
  const id = String(sc(started).task_id);
  const answers = await settled(h, id, { rounds: 60 });
  if (answers.at(-1)!.state !== "completed") throw new Error(`task ${id} (${kind}) ended ${answers.at(-1)!.state}`);
  return id;
}

/** Bytes in pages that hold data (free pages excluded), after the WAL is folded into the file. */
export function usedBytes(db: Database): number {
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const pages = Number(db.prepare("PRAGMA page_count").get()?.page_count);
  const free = Number(db.prepare("PRAGMA freelist_count").get()?.freelist_count);
  const size = Number(db.prepare("PRAGMA page_size").get()?.page_size);
  return (pages - free) * size;
}

export const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
