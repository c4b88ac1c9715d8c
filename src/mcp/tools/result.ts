// The one tool-result helper: success and error results, the annotation sets, and the error wrapper every tool uses.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ArtifactPathError, ArtifactRangeError, ArtifactTooLargeError } from "../../service/bridge.ts";
import { BridgeError } from "../../bridge-error.ts";

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
export function wrap<A>(fn: (args: A, extra: ToolExtra) => Promise<CallToolResult> | CallToolResult): (args: A, extra: ToolExtra) => Promise<CallToolResult> {
  return async (args, extra) => {
    try {
      return await fn(args, extra);
    } catch (err) {
      const described = describeError(err);
      if (described !== undefined) return fail(described);
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

/** The text of an error the caller can fix (it names the field), or undefined for an unexpected one. */
export function describeError(e: unknown): string | undefined {
  if (e instanceof BridgeError) return e.message;
  if (e instanceof ArtifactPathError) return `path: ${e.message}`;
  if (e instanceof ArtifactTooLargeError) return `path: ${e.message}; raise max_artifact_bytes in the config to read it`;
  if (e instanceof ArtifactRangeError) return `${e.field}: ${e.message}`;
  if (e instanceof RangeError) return e.message;
  return undefined;
}
