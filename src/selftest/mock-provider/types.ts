// The script a test or the demo gives the mock, and what the mock records of each request codex makes.
import { z } from "zod";

/**
 * An assistant message, streamed as `deltas` text deltas (default 1). `phase` is the Responses API's message phase:
 * Codex passes it on as the agentMessage's `phase` (commentary while working, final_answer at the end).
 */
export interface MockMessageItem {
  type: "message";
  text: string;
  deltas?: number;
  phase?: "commentary" | "final_answer";
}

/** A call to codex's unified-exec shell tool `exec_command`. */
export interface MockExecItem {
  type: "exec";
  cmd: string;
  callId?: string;
  workdir?: string;
  yieldTimeMs?: number;
  sandboxPermissions?: "require_escalated";
  justification?: string;
}

/** A call to a dynamic tool registered on the thread, e.g. `bridge_web_tool`, or to a namespaced one (an MCP server's). */
export interface MockToolItem {
  type: "tool";
  name: string;
  arguments: Record<string, unknown>;
  callId?: string;
  /** The tool's namespace as codex advertised it, e.g. `mcp__forms` for the MCP server `forms`. */
  namespace?: string;
}

/**
 * A call to codex's freeform `apply_patch` tool (offered when the model slug is one Codex knows, e.g. gpt-5.5):
 * `patch` is the whole "*** Begin Patch … *** End Patch" text.
 */
export interface MockPatchItem {
  type: "patch";
  patch: string;
  callId?: string;
}

export type MockItem = MockMessageItem | MockExecItem | MockToolItem | MockPatchItem;

export type MockResponse =
  /** A complete stream: the items, then `response.completed`; `delayMs` holds the answer back first (the model "thinks"). */
  | { kind: "output"; items: MockItem[]; delayMs?: number }
  /** Streams `response.created` (and `partialText` as a started message, if given), then stays open until the client or `close()` ends it. */
  | { kind: "hang"; partialText?: string }
  /** A non-2xx JSON error body instead of a stream. */
  | { kind: "http_error"; status: number; message: string; code?: string }
  /** Streams `items` (default none) and ends the stream without `response.completed`. */
  | { kind: "disconnect"; items?: MockItem[] };

/** How a recorded request's stream ended, as far as the mock knows. */
export type RequestOutcome =
  | "streaming"
  | "completed"
  | "disconnected"
  | "http_error"
  | "bad_request"
  | "client_aborted"
  | "closed_by_server";

// Only the fields the helpers read are typed; everything else is kept as sent (loose objects).
export const ContentPartSchema = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
});
export type ContentPart = z.infer<typeof ContentPartSchema>;

export const InputItemSchema = z.looseObject({
  type: z.string().optional(),
  role: z.string().optional(),
  content: z.union([z.string(), z.array(ContentPartSchema)]).optional(),
  name: z.string().optional(),
  call_id: z.string().optional(),
  arguments: z.string().optional(),
  output: z.union([z.string(), z.array(ContentPartSchema)]).optional(),
});
export type InputItem = z.infer<typeof InputItemSchema>;

export const ToolSpecSchema = z.looseObject({
  type: z.string(),
  name: z.string().optional(),
});

export const ResponsesRequestBodySchema = z.looseObject({
  model: z.string().optional(),
  stream: z.boolean().optional(),
  input: z.array(InputItemSchema),
  tools: z.array(ToolSpecSchema).optional(),
});
export type ResponsesRequestBody = z.infer<typeof ResponsesRequestBodySchema>;

export interface RecordedRequest {
  /** 0-based position among all requests this mock received. */
  index: number;
  method: string;
  path: string;
  /** Lower-case header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The parsed body; `{ input: [] }` when it could not be parsed (see `parseError`). */
  body: ResponsesRequestBody;
  rawBody: string;
  parseError?: string;
  /** Epoch milliseconds when the body was fully received. */
  receivedAt: number;
  /** Epoch milliseconds (sub-millisecond, performance clock) when the last byte of the answer was handed to the OS. */
  finishedAt?: number;
  /** What the mock answered; undefined for a request it rejected before scripting. */
  response?: MockResponse;
  outcome: RequestOutcome;
  /** True once the client closed the connection before the mock ended the stream (e.g. interrupt, steer). */
  clientAborted: boolean;
}

export interface MockProviderOptions {
  /** Text of the default reply when neither the queue nor the responder supplies one. Default "ok". */
  defaultText?: string;
  /** Fixed port; default 0 (a random free port). */
  port?: number;
}

export type Responder = (req: RecordedRequest, index: number) => MockResponse | undefined;

export interface MockProvider {
  /** `http://127.0.0.1:PORT/v1`: the provider `base_url`; codex POSTs `${baseUrl}/responses`. */
  readonly baseUrl: string;
  readonly port: number;
  /** Every request received, in arrival order (live array). */
  readonly requests: RecordedRequest[];
  /** Answers for the next requests, first in first out; they take precedence over the responder. */
  enqueue(...responses: MockResponse[]): void;
  /** Consulted when the queue is empty; returning undefined falls back to the default "ok" message. */
  setResponder(fn: Responder | undefined): void;
  /** Resolves with the requests once at least `n` arrived; rejects after `timeoutMs`. */
  waitForRequests(n: number, timeoutMs: number): Promise<RecordedRequest[]>;
  /** Resolves once the client has closed request `index`'s stream early; rejects after `timeoutMs`. */
  waitForClientAbort(index: number, timeoutMs: number): Promise<RecordedRequest>;
  /** Ends every open stream and stops listening. Idempotent. */
  close(): Promise<void>;
}
