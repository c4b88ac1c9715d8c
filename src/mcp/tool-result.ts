import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { BridgeError } from "../supervisor/errors.ts";

export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
/** Changes Codex's work; may be consequential (Codex can run commands or write files afterwards). */
export const MUTATING = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true } as const;

export function ok(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: structured };
}

export function fail(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** Turns a thrown error into a tool error the model can act on; unexpected ones keep their message too. */
export function wrap<A>(fn: (args: A, extra: ToolExtra) => Promise<CallToolResult>): (args: A, extra: ToolExtra) => Promise<CallToolResult> {
  return async (args, extra) => {
    try {
      return await fn(args, extra);
    } catch (err) {
      if (err instanceof BridgeError) return fail(err.message);
      const msg = err instanceof Error ? err.message : String(err);
      return fail(`codex-bridge: ${msg}`);
    }
  };
}

export interface ToolExtra {
  sessionId?: string;
  requestId?: string | number;
  signal?: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification?: (n: { method: "notifications/progress"; params: { progressToken: string | number; progress: number; total?: number; message?: string } }) => Promise<void>;
}
