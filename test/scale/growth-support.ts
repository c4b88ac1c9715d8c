// Test support for test:scale growth: runs the task kinds the issue measures through the bridge (the real app-server,
// the loopback mock model) and reads how many bytes of the state database they occupy.
import type { Database } from "../../platform/types.ts";
import type { Harness } from "../../src/selftest/harness.ts";
import type { MockResponse } from "../../src/selftest/mock-provider/index.ts";
import { sc, settled } from "../support/task-waits.ts";

export type TaskKind = "one_message" | "deltas_5000" | "commands_30";
export const TASK_KINDS: TaskKind[] = ["one_message", "deltas_5000", "commands_30"];

// Made-up prose: words of letters drawn as often as in English, common words far more often than rare ones. Deflate
// packs it about as well as a model's English (2.5 times; this README packs 2.5 times), unlike repeated lines, which
// it would pack tens of times and so flatter what retention keeps.
const LETTERS = "etaoinshrdlcumwfgypbvkjxqz";

function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** `chars` characters of prose-like text, different per tag. */
export function prose(tag: string, chars: number): string {
  let seed = 7;
  for (const c of tag) seed = (seed * 31 + c.charCodeAt(0)) >>> 0;
  const rnd = prng(seed);
  const vocabulary = Array.from({ length: 1000 }, () => {
    let w = "";
    for (let i = 2 + Math.floor(rnd() * 7); i > 0; i--) w += LETTERS[Math.floor(LETTERS.length * rnd() ** 2)];
    return w;
  });
  let s = `${tag}: `;
  for (let n = 1; s.length < chars; n++) s += vocabulary[Math.floor(vocabulary.length * rnd() ** 2)]! + (n % 14 === 0 ? ".\n" : " ");
  return s.slice(0, chars);
}

/** A 50,000-character answer (about what 5,000 deltas of a real model carry), different per task. */
export const longAnswer = (tag: string): string => prose(tag, 50_000);

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
