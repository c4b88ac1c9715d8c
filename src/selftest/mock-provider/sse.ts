// Turns scripted items into the Responses API server-sent events that codex consumes.
import type { MockItem } from "./types.ts";

export interface SseEvent {
  type: string;
  data: Record<string, unknown>;
}

/** One SSE frame: `event: <type>\ndata: <json>\n\n`. JSON never contains a raw newline, so one data line suffices. */
export function sseFrame(event: SseEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify({ type: event.type, ...event.data })}\n\n`;
}

/** Splits text into `parts` non-empty pieces of near-equal length without breaking surrogate pairs. */
export function splitIntoDeltas(text: string, parts: number): string[] {
  const chars = Array.from(text);
  if (chars.length === 0) return [];
  const n = Math.max(1, Math.min(Math.floor(parts), chars.length));
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const start = Math.floor((i * chars.length) / n);
    const end = Math.floor(((i + 1) * chars.length) / n);
    out.push(chars.slice(start, end).join(""));
  }
  return out;
}

/** Issues ids that are unique for the lifetime of one mock provider. */
export class IdSource {
  private next = 1;
  take(prefix: string): string {
    return `${prefix}_mock${String(this.next++).padStart(4, "0")}`;
  }
}

function functionCallItem(item: Exclude<MockItem, { type: "message" }>, ids: IdSource): Record<string, unknown> {
  const callId = item.callId ?? ids.take("call");
  if (item.type === "tool") {
    return { type: "function_call", id: ids.take("fc"), call_id: callId, name: item.name, ...(item.namespace ? { namespace: item.namespace } : {}), arguments: JSON.stringify(item.arguments) };
  }
  if (item.type === "patch") {
    return { type: "custom_tool_call", id: ids.take("ctc"), call_id: callId, name: "apply_patch", input: item.patch, status: "completed" };
  }
  const args: Record<string, unknown> = { cmd: item.cmd };
  if (item.workdir !== undefined) args.workdir = item.workdir;
  if (item.yieldTimeMs !== undefined) args.yield_time_ms = item.yieldTimeMs;
  if (item.sandboxPermissions !== undefined) args.sandbox_permissions = item.sandboxPermissions;
  if (item.justification !== undefined) args.justification = item.justification;
  return { type: "function_call", id: ids.take("fc"), call_id: callId, name: "exec_command", arguments: JSON.stringify(args) };
}

/** Events for one output item at `outputIndex`, and the finished item for `response.completed.output`. */
export function itemEvents(item: MockItem, outputIndex: number, ids: IdSource): { events: SseEvent[]; done: Record<string, unknown> } {
  if (item.type === "message") {
    const id = ids.take("msg");
    const phase = item.phase ? { phase: item.phase } : {};
    const events: SseEvent[] = [
      { type: "response.output_item.added", data: { output_index: outputIndex, item: { type: "message", id, role: "assistant", status: "in_progress", content: [], ...phase } } },
      {
        type: "response.content_part.added",
        data: { item_id: id, output_index: outputIndex, content_index: 0, part: { type: "output_text", text: "", annotations: [] } },
      },
    ];
    for (const delta of splitIntoDeltas(item.text, item.deltas ?? 1)) {
      events.push({ type: "response.output_text.delta", data: { item_id: id, output_index: outputIndex, content_index: 0, delta } });
    }
    const done = { type: "message", id, role: "assistant", status: "completed", content: [{ type: "output_text", text: item.text, annotations: [] }], ...phase };
    events.push({ type: "response.output_item.done", data: { output_index: outputIndex, item: done } });
    return { events, done };
  }
  const call = functionCallItem(item, ids);
  const done = { ...call, status: "completed" };
  return {
    events: [
      { type: "response.output_item.added", data: { output_index: outputIndex, item: { ...call, arguments: "", status: "in_progress" } } },
      { type: "response.output_item.done", data: { output_index: outputIndex, item: done } },
    ],
    done,
  };
}

/** `response.created`, then each item's events, in order. */
export function openingEvents(responseId: string, items: MockItem[], ids: IdSource): { events: SseEvent[]; output: Record<string, unknown>[] } {
  const events: SseEvent[] = [{ type: "response.created", data: { response: { id: responseId, object: "response", status: "in_progress", output: [] } } }];
  const output: Record<string, unknown>[] = [];
  items.forEach((item, i) => {
    const built = itemEvents(item, i, ids);
    events.push(...built.events);
    output.push(built.done);
  });
  return { events, output };
}

export function completedEvent(responseId: string, output: Record<string, unknown>[]): SseEvent {
  const outputTokens = Math.max(1, output.length * 8);
  return {
    type: "response.completed",
    data: {
      response: {
        id: responseId,
        object: "response",
        status: "completed",
        output,
        usage: {
          input_tokens: 100,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 100 + outputTokens,
        },
      },
    },
  };
}

/** The whole stream of a complete response. */
function completeStream(responseId: string, items: MockItem[], ids: IdSource): SseEvent[] {
  const { events, output } = openingEvents(responseId, items, ids);
  return [...events, completedEvent(responseId, output)];
}

/** Parses SSE text back into events; used by tests and by anyone checking what the mock sent. */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split("\n\n")) {
    if (block.trim() === "") continue;
    let type = "message";
    const dataLines: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) type = line.slice(6).trim();
      else if (line.startsWith("data:")) dataLines.push(line.slice(5).trimStart());
    }
    const data = dataLines.length > 0 ? (JSON.parse(dataLines.join("\n")) as Record<string, unknown>) : {};
    events.push({ type, data });
  }
  return events;
}
