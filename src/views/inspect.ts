// codex_inspect: the detail that results and waits leave out, one bounded page at a time.
// Three kinds of paging, each page naming the offset of the next:
//   event kinds (transcript, plan, warnings, raw_event): offset = the last seq already read;
//   item lists (commands, file_changes, mcp_calls, tool_requests, requests): offset = entries already read;
//   texts (diff, command_output, a file change's diffs, a tool result): offset = characters already read.
import type { Repo } from "../store/repo.ts";
import { boundText } from "../tasks/bounded-output.ts";
import { BridgeError } from "../bridge-error.ts";
import type { EventRow, InteractionRow, ItemRow } from "../store/rows.ts";
import { requestDetail } from "./request-detail.ts";
import { KEPT_MESSAGE_CHARS } from "../tasks/retention.ts";

export const INSPECT_KINDS = [
  "transcript",
  "plan",
  "diff",
  "commands",
  "command_output",
  "file_changes",
  "mcp_calls",
  "tool_requests",
  "requests",
  "warnings",
  "raw_event",
] as const;
export type InspectKind = (typeof INSPECT_KINDS)[number];

export const LIST_LIMIT_DEFAULT = 20;
export const LIST_LIMIT_MAX = 100;
export const TEXT_LIMIT_DEFAULT = 8_000;
export const TEXT_LIMIT_MAX = 32_000;
// A transcript entry is one message; a huge one keeps its head and tail so a page stays readable (and an old task,
// compacted by retention, keeps no more than this of each message).
const TRANSCRIPT_TEXT_MAX = KEPT_MESSAGE_CHARS;
const LIST_TEXT_MAX = 300;
const ARGUMENTS_MAX = 1_000;

export const WARNING_EVENT_KINDS = ["warning", "error", "notice", "connection_lost", "unknown"];
const TRANSCRIPT_EVENT_KINDS = ["user_message", "message", "command", "turn_completed"];

export interface InspectInput {
  task_id: string;
  kind: string;
  item_id?: string;
  offset?: number;
  limit?: number;
}

export interface InspectPage {
  kind: InspectKind;
  items: unknown[];
  /** Present only when there is more: pass it back as `offset`. */
  next_offset?: number;
  /** Entries (lists) or characters (texts) in all. */
  total?: number;
  /** Present when retention removed part of what this kind shows of an old task: what went, when, what remains. */
  compacted?: string;
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** Drops null and undefined fields: a model reader pays for every empty key. */
function compact(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

function clipJson(v: unknown, max: number): unknown {
  if (v === null || v === undefined) return undefined;
  const s = typeof v === "string" ? v : JSON.stringify(v);
  if (s.length <= max) return v;
  return `${s.slice(0, max - 1)}…`;
}

function isKind(k: string): k is InspectKind {
  return (INSPECT_KINDS as readonly string[]).includes(k);
}

function checkCount(field: "offset" | "limit", v: number | undefined, min: number): void {
  if (v === undefined) return;
  if (!Number.isInteger(v) || v < min) throw new BridgeError(`${field} must be an integer ≥ ${min}; got ${v}`, field);
}

function needItemId(input: InspectInput, what: string): string {
  if (!input.item_id) throw new BridgeError(`kind=${input.kind} needs item_id: ${what}`, "item_id");
  return input.item_id;
}

function notFound(input: InspectInput, what: string, listKind: InspectKind): BridgeError {
  return new BridgeError(`item_id "${input.item_id}" is not ${what} of ${input.task_id}; list them with codex_inspect kind=${listKind}`, "item_id");
}

// ---------------------------------------------------------------- paging primitives

function textPage(full: string, offset: number, limit: number): { text: string; next?: number } {
  if (offset > full.length) throw new BridgeError(`offset ${offset} is past the end of this text (${full.length} characters)`, "offset");
  let end = Math.min(full.length, offset + limit);
  // Never split a surrogate pair: each page must be valid text on its own.
  const code = full.charCodeAt(end - 1);
  if (end < full.length && end - 1 > offset && code >= 0xd800 && code <= 0xdbff) end--;
  return end < full.length ? { text: full.slice(offset, end), next: end } : { text: full.slice(offset, end) };
}

function textResult(kind: InspectKind, full: string, offset: number, limit: number, head: Record<string, unknown>): InspectPage {
  const p = textPage(full, offset, limit);
  const page: InspectPage = { kind, items: [{ ...head, text: p.text }], total: full.length };
  if (p.next !== undefined) page.next_offset = p.next;
  return page;
}

function listResult<T>(kind: InspectKind, all: T[], offset: number, limit: number, map: (x: T) => unknown): InspectPage {
  const slice = all.slice(offset, offset + limit);
  const page: InspectPage = { kind, items: slice.map(map), total: all.length };
  if (offset + slice.length < all.length) page.next_offset = offset + slice.length;
  return page;
}

function countEvents(repo: Repo, taskId: string, kinds?: string[]): number {
  if (!kinds) return Number(repo.db.prepare(`SELECT COUNT(*) AS n FROM events WHERE task_id = ?`).get(taskId)?.n ?? 0);
  const marks = kinds.map(() => "?").join(",");
  return Number(repo.db.prepare(`SELECT COUNT(*) AS n FROM events WHERE task_id = ? AND kind IN (${marks})`).get(taskId, ...kinds)?.n ?? 0);
}

function eventResult(repo: Repo, kind: InspectKind, taskId: string, kinds: string[] | undefined, afterSeq: number, limit: number, map: (e: EventRow) => unknown): InspectPage {
  const rows = repo.events(taskId, afterSeq, limit + 1, kinds);
  const page = rows.slice(0, limit);
  const out: InspectPage = { kind, items: page.map(map), total: countEvents(repo, taskId, kinds) };
  if (rows.length > limit) out.next_offset = page[page.length - 1]!.seq;
  return out;
}

// ---------------------------------------------------------------- entry shapes

function transcriptEntry(e: EventRow, finals: Map<string, string>): unknown {
  const bounded = (t: unknown): string => boundText(str(t) ?? "", TRANSCRIPT_TEXT_MAX).text;
  switch (e.kind) {
    case "user_message":
      return { seq: e.seq, type: "user", text: bounded(e.data.text) };
    case "message":
      return { seq: e.seq, type: "agent", text: bounded(e.data.text) };
    case "command":
      return compact({ seq: e.seq, type: "command", item_id: e.item_id, command: e.data.command, exit_code: e.data.exit_code, status: e.data.status });
    default: {
      const final = e.turn_id ? finals.get(e.turn_id) : undefined;
      return compact({ seq: e.seq, type: "turn_end", status: e.data.status, error: e.data.error, final: final === undefined ? undefined : bounded(final) });
    }
  }
}

function commandEntry(i: ItemRow): unknown {
  return compact({
    item_id: i.item_id,
    command: i.data.command,
    exit_code: i.data.exit_code,
    status: i.data.status ?? i.status,
    duration_ms: i.data.duration_ms,
    output_chars: i.data.output_chars,
  });
}

function fileChanges(i: ItemRow): { path: string; kind: string; diff: string }[] {
  const list = Array.isArray(i.data.changes) ? i.data.changes : [];
  return list.map((raw) => {
    const o = (raw ?? {}) as Record<string, unknown>;
    return { path: str(o.path) ?? "?", kind: str(o.kind) ?? "update", diff: str(o.diff) ?? "" };
  });
}

function mcpEntry(i: ItemRow, argsMax: number): unknown {
  return compact({
    item_id: i.item_id,
    server: i.data.server,
    tool: i.data.tool,
    status: i.status ?? i.data.status,
    error: i.data.error,
    arguments: clipJson(i.data.arguments, argsMax),
  });
}

function toolArgs(i: InteractionRow): Record<string, unknown> {
  const a = i.params.arguments;
  return a && typeof a === "object" ? (a as Record<string, unknown>) : {};
}

function submissionOf(i: InteractionRow): Record<string, unknown> | null {
  return i.response && typeof i.response === "object" ? (i.response as Record<string, unknown>) : null;
}

/** The result text exactly as Codex read it from relayText: strings verbatim, JSON as relayText prints it. */
export function submittedResultText(i: InteractionRow): string {
  const s = submissionOf(i);
  if (!s || s.result === undefined || s.result === null) return "";
  return typeof s.result === "string" ? s.result : JSON.stringify(s.result, null, 1);
}

function toolRequestEntry(i: InteractionRow): unknown {
  const args = toolArgs(i);
  const s = submissionOf(i);
  return compact({
    request_id: i.id,
    state: i.state,
    capability: args.capability,
    operation: args.operation,
    request: clipJson(args.request, LIST_TEXT_MAX),
    status: s?.status,
    result_chars: s ? submittedResultText(i).length : undefined,
    note: i.note,
  });
}

// ---------------------------------------------------------------- entry point

export function inspect(repo: Repo, input: InspectInput): InspectPage {
  const task = repo.task(input.task_id);
  if (!task) throw new BridgeError(`task_id "${input.task_id}" is not a known task; list tasks with codex_status`, "task_id");
  if (!isKind(input.kind)) throw new BridgeError(`kind "${input.kind}" is not inspectable; use one of: ${INSPECT_KINDS.join(", ")}`, "kind");
  const kind = input.kind;
  checkCount("offset", input.offset, 0);
  checkCount("limit", input.limit, 1);
  const offset = input.offset ?? 0;
  const listLimit = Math.min(input.limit ?? LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX);
  const textLimit = Math.min(input.limit ?? TEXT_LIMIT_DEFAULT, TEXT_LIMIT_MAX);
  const taskId = task.id;

  switch (kind) {
    case "transcript": {
      const finals = new Map<string, string>();
      for (const m of repo.items(taskId, "agentMessage")) {
        // The current turn's answer is kept once, in the task; an earlier turn's moved into its item.
        const text = typeof m.data.text === "string" ? m.data.text : m.turn_id === task.turn_id ? task.final_message : null;
        if (m.data.final === true && m.turn_id && text !== null) finals.set(m.turn_id, text);
      }
      const page = eventResult(repo, kind, taskId, TRANSCRIPT_EVENT_KINDS, offset, listLimit, (e) => transcriptEntry(e, finals));
      const c = task.compaction;
      if (c) page.compacted = `retention (retention_days ${c.retention_days}) compacted this task on ${c.at}: up to seq ${c.through_seq} its commands are listed by kind=commands (with exit codes), not here, and each message keeps at most ${KEPT_MESSAGE_CHARS} characters`;
      return page;
    }
    case "plan":
      return eventResult(repo, kind, taskId, ["plan"], offset, listLimit, (e) => compact({ seq: e.seq, explanation: e.data.explanation, steps: e.data.steps }));
    case "warnings":
      return eventResult(repo, kind, taskId, WARNING_EVENT_KINDS, offset, listLimit, (e) => compact({ seq: e.seq, kind: e.kind, ...e.data }));
    case "raw_event": {
      const page = eventResult(repo, kind, taskId, undefined, offset, listLimit, (e) =>
        compact({ seq: e.seq, kind: e.kind, turn_id: e.turn_id, item_id: e.item_id, at: e.at, data: e.data }),
      );
      const c = task.compaction;
      if (c && c.events_removed > 0) {
        page.compacted =
          `retention (retention_days ${c.retention_days}) compacted this task on ${c.at}: ${c.events_removed} raw event(s) up to seq ${c.through_seq} ` +
          `(streamed chunks, starts, item and request markers) were removed; the transcript, plan and warnings remain`;
      }
      return page;
    }
    case "diff": {
      let diffs = repo.items(taskId, "turnDiff");
      if (input.item_id) {
        diffs = diffs.filter((d) => d.item_id === input.item_id);
        if (diffs.length === 0) throw notFound(input, "a turn diff (diff:<turn id>)", "diff");
      }
      // One turn's diff is returned verbatim; several are labelled so the reader can tell the turns apart.
      const full = diffs.length === 1 ? (str(diffs[0]!.data.diff) ?? "") : diffs.map((d) => `### turn ${d.turn_id ?? "?"}\n${str(d.data.diff) ?? ""}`).join("\n");
      return textResult(kind, full, offset, textLimit, diffs.length === 1 ? { item_id: diffs[0]!.item_id } : {});
    }
    case "commands":
      return listResult(kind, repo.items(taskId, "commandExecution"), offset, listLimit, commandEntry);
    case "command_output": {
      const id = needItemId(input, "the item_id of a command (listed by codex_inspect kind=commands)");
      const item = repo.item(taskId, id);
      if (!item || item.type !== "commandExecution") throw notFound(input, "a command", "commands");
      const output = str(item.data.output) ?? "";
      const original = typeof item.data.output_chars === "number" ? item.data.output_chars : output.length;
      const c = task.compaction;
      if (item.data.output_removed === true && c) {
        return {
          kind,
          items: [compact({ item_id: id, original_chars: original })],
          total: 0,
          compacted: `retention (retention_days ${c.retention_days}) removed this command's output on ${c.at}; its command, exit code and length remain in kind=commands`,
        };
      }
      // The stored output keeps head and tail of long output; say how long the original was.
      return textResult(kind, output, offset, textLimit, compact({ item_id: id, original_chars: original > output.length ? original : undefined }));
    }
    case "file_changes": {
      if (!input.item_id) {
        return listResult(kind, repo.items(taskId, "fileChange"), offset, listLimit, (i) => ({
          item_id: i.item_id,
          status: i.status,
          changes: fileChanges(i).map((c) => ({ path: c.path, kind: c.kind })),
        }));
      }
      const item = repo.item(taskId, input.item_id);
      if (!item || item.type !== "fileChange") throw notFound(input, "a file change", "file_changes");
      const text = fileChanges(item)
        .map((c) => `*** ${c.kind} ${c.path}\n${c.diff}${c.diff.endsWith("\n") || c.diff === "" ? "" : "\n"}`)
        .join("");
      return textResult(kind, text, offset, textLimit, { item_id: item.item_id });
    }
    case "mcp_calls": {
      if (!input.item_id) return listResult(kind, repo.items(taskId, "mcpToolCall"), offset, listLimit, (i) => mcpEntry(i, ARGUMENTS_MAX));
      const item = repo.item(taskId, input.item_id);
      if (!item || item.type !== "mcpToolCall") throw notFound(input, "an MCP call", "mcp_calls");
      return { kind, items: [mcpEntry(item, Number.POSITIVE_INFINITY)], total: 1 };
    }
    case "requests": {
      // Approvals, permission requests, questions and elicitations, in full; the relayed tool calls are tool_requests.
      const all = repo.interactions(taskId).filter((i) => i.kind !== "tool");
      if (!input.item_id) return listResult(kind, all, offset, listLimit, (i) => requestDetail(i));
      const one = all.find((x) => x.id === input.item_id);
      if (!one) throw notFound(input, "a request", "requests");
      return { kind, items: [requestDetail(one, true)], total: 1 };
    }
    case "tool_requests": {
      const all = repo.interactions(taskId).filter((i) => i.kind === "tool");
      if (!input.item_id) return listResult(kind, all, offset, listLimit, toolRequestEntry);
      const i = all.find((x) => x.id === input.item_id);
      if (!i) throw notFound(input, "a bridge_web_tool request", "tool_requests");
      const s = submissionOf(i);
      // The header rides on the first page only; later pages carry just the next stretch of text.
      const head =
        offset === 0
          ? compact({
              request_id: i.id,
              state: i.state,
              capability: toolArgs(i).capability,
              status: s?.status,
              sources: Array.isArray(s?.sources) && s.sources.length > 0 ? s.sources : undefined,
              tool_used: s?.tool_used,
              note: s ? "a host report, not independently verified" : "nothing was submitted",
            })
          : { request_id: i.id };
      return textResult(kind, submittedResultText(i), offset, textLimit, head);
    }
  }
}
