// Tells a checkpoint field that copies what the bridge already keeps elsewhere (the prompt, a message, a final answer,
// command output) or that has the shape of a transcript or of command output: a checkpoint is a short anchor, not a
// second history.
import type { Repo } from "../store/repo.ts";
import type { TaskRow } from "../store/rows.ts";

export interface CopySource {
  /** What the text is, as the refusal names it. */
  label: string;
  text: string;
}

// A verbatim stretch of WINDOW + STEP characters always covers one whole window starting at a multiple of STEP.
const WINDOW = 120;
const STEP = 40;
/** A field equal to a whole source this long is a copy even when it is shorter than a window. */
const WHOLE_MIN = 60;
const MAX_SOURCE_EVENTS = 2_000;

const squash = (s: string) => s.replace(/\s+/g, " ").trim();

/** The texts of a task a checkpoint must not repeat. */
export function taskSources(repo: Repo, task: TaskRow): CopySource[] {
  const out: CopySource[] = [{ label: "the task's prompt", text: task.prompt }];
  for (const e of repo.events(task.id, 0, MAX_SOURCE_EVENTS, ["user_message", "message"])) {
    if (typeof e.data.text === "string") out.push({ label: e.kind === "user_message" ? "a prompt sent to Codex" : "a Codex message", text: e.data.text });
  }
  for (const m of repo.items(task.id, "agentMessage")) {
    if (typeof m.data.text === "string") out.push({ label: m.data.final === true ? "Codex's final answer" : "a Codex message", text: m.data.text });
  }
  if (task.final_message) out.push({ label: "Codex's final answer", text: task.final_message });
  for (const c of repo.items(task.id, "commandExecution")) {
    if (typeof c.data.output === "string") out.push({ label: `the output of \`${String(c.data.command ?? "a command")}\``, text: c.data.output });
  }
  return out;
}

/** What the value copies or looks like, or null when it reads as the supervisor's own short note. */
export function looksCopied(value: string, sources: CopySource[]): string | null {
  const v = squash(value);
  for (const s of sources) {
    const t = squash(s.text);
    if (t.length >= WHOLE_MIN && v === t) return s.label;
    if (t.length < WINDOW) continue;
    for (let i = 0; i + WINDOW <= v.length; i += STEP) if (t.includes(v.slice(i, i + WINDOW))) return s.label;
  }
  return shapeOf(value);
}

const ROLE_LINE = /^\s*(user|assistant|codex|system|human|ai|supervisor|model)\s*:/gim;
const EXEC_OUTPUT = /Process exited with code -?\d+|^Chunk ID: \w+|^Wall time: [\d.]+ seconds|^Original token count: \d+/m;
const DIFF = /^diff --git |^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/m;

function shapeOf(value: string): string | null {
  if ((value.match(ROLE_LINE) ?? []).length >= 3) return "a transcript";
  if (EXEC_OUTPUT.test(value)) return "command output";
  if (DIFF.test(value)) return "a diff";
  return null;
}
