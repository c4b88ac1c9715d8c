// Streamed Codex text as ingest stores it: however the stream is cut into deltas and flushes, no stored chunk holds
// part of a secret that the redactor could not recognise on its own, and nothing of the text is lost.
import { describe, expect, it } from "vitest";
import { redactText } from "../../src/policy/redact.ts";
import type { NewEvent } from "../../src/store/repo.ts";
import { TaskIngest } from "../../src/tasks/ingest.ts";
import { CORPUS_TEXT } from "../support/secret-channels.ts";
import { leakProbes, SECRET_CORPUS } from "../support/secret-corpus.ts";

function stream(text: string, deltaChars: number): NewEvent[] {
  const ingest = new TaskIngest("turn1");
  const stored: NewEvent[] = [];
  const feed = (method: string, params: unknown) => stored.push(...ingest.handle(method, params).events);
  feed("item/started", { turnId: "turn1", item: { type: "agentMessage", id: "a1" } });
  for (let i = 0; i < text.length; i += deltaChars) {
    feed("item/agentMessage/delta", { turnId: "turn1", itemId: "a1", delta: text.slice(i, i + deltaChars) });
    // A reader flushes between any two deltas (codex_wait, codex_inspect).
    stored.push(...ingest.drainDeltas(false));
  }
  feed("item/completed", { turnId: "turn1", item: { type: "agentMessage", id: "a1", text } });
  feed("turn/completed", { turn: { id: "turn1", status: "completed", items: [] } });
  return stored;
}

describe("streamed message deltas", () => {
  for (const size of [1, 7, 64, 4_001]) {
    it(`cut every ${size} characters and flushed in between: no secret stored, no text lost`, () => {
      // A key block cut off without its END hides all that follows it, so the first copy leaves that one out.
      const whole = SECRET_CORPUS.filter((c) => !c.text.includes("BEGIN") || c.text.includes("-----END")).map((c) => c.text).join("\n");
      const text = `${whole}\n${"filler words ".repeat(800)}\n${CORPUS_TEXT}`;
      const events = stream(text, size);
      const json = JSON.stringify(events);
      for (const probe of leakProbes()) expect(json, probe.name).not.toContain(probe.secret);
      const deltas = events.filter((e) => e.kind === "message_delta").map((e) => String(e.data.text));
      // Chunks are redacted line by line, so together they read as the redacted whole, line for line.
      expect(deltas.join("").split("\n").length).toBe(redactText(text).split("\n").length);
      expect(deltas.join("")).toContain("filler words filler words");
      expect(deltas.join("")).toContain("[REDACTED:github-token]");
    });
  }
});
