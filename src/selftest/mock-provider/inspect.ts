// Reading what codex sent: tool results, user messages and advertised tools in a recorded request.
import type { ContentPart, InputItem, RecordedRequest } from "./types.ts";

function partsText(content: string | ContentPart[] | undefined): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content
    .map((p) => p.text)
    .filter((t): t is string => typeof t === "string")
    .join("\n");
}

/**
 * The text of the latest `function_call_output` in the request's input (optionally for one call id).
 * Codex sends a plain string for a single text result and an array of `input_text` parts for several;
 * parts are joined with newlines.
 */
export function lastFunctionOutput(req: RecordedRequest, callId?: string): string | undefined {
  const input = req.body.input;
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if (item.type !== "function_call_output") continue;
    if (callId !== undefined && item.call_id !== callId) continue;
    return partsText(item.output);
  }
  return undefined;
}

function isUserMessage(item: InputItem): boolean {
  return item.role === "user" && (item.type === undefined || item.type === "message");
}

/** The text of each user message in the input, in order (including codex's own `<environment_context>` message). */
export function userTexts(req: RecordedRequest): string[] {
  return req.body.input.filter(isUserMessage).map((item) => partsText(item.content));
}

/** Names of the tools codex advertised to the model in this request. */
export function toolNames(req: RecordedRequest): string[] {
  return (req.body.tools ?? []).map((t) => t.name).filter((n): n is string => typeof n === "string");
}

/** The `function_call` items (name, call id, parsed arguments) codex replayed in the input history. */
function functionCalls(req: RecordedRequest): { name: string; callId: string; arguments: unknown }[] {
  return req.body.input
    .filter((item) => item.type === "function_call")
    .map((item) => {
      let args: unknown = item.arguments;
      try {
        args = JSON.parse(item.arguments ?? "");
      } catch {
        // keep the raw string: codex passes through whatever the model produced
      }
      return { name: item.name ?? "", callId: item.call_id ?? "", arguments: args };
    });
}
