// Checks one inbound JSON-RPC value before the MCP SDK sees it, so malformed input gets the error JSON-RPC 2.0 asks
// for: the SDK's stdio transport drops it without a word and its HTTP transport answers -32700 for everything.
import { randomBytes } from "node:crypto";
import { JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

export interface JsonRpcErrorReply {
  jsonrpc: "2.0";
  id: RequestId | null;
  error: { code: number; message: string };
}

/**
 * A numeric id the SDK cannot carry (a fraction like 1.5, or an integer beyond 2^53): MCP's RequestId is any JSON
 * number, but the SDK takes only safe integers. The message goes to the SDK under a unique string id instead, and
 * the transport puts the original back into the answer.
 */
export interface IdAlias {
  surrogate: string;
  original: number;
}

export type InboundCheck =
  | { ok: true; message: JSONRPCMessage; alias?: IdAlias }
  | {
      ok: false;
      /** The request's id when it is a valid one, else null (JSON-RPC's rule for errors "in detecting the id"). */
      id: RequestId | null;
      code: number;
      message: string;
      /**
       * False for a notification or a response that is malformed: JSON-RPC forbids answering notifications, and
       * answering a response risks an error ping-pong, so on a shared stream nothing is written for them (a stray
       * id-null message is exactly what a strict client like the tunnel may choke on). Over HTTP the POST that
       * carried it still gets its 400 with this error, which the Streamable HTTP spec allows.
       */
      answerable: boolean;
    };

export function errorReply(id: RequestId | null, code: number, message: string): JsonRpcErrorReply {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

type PlainObject = Record<string, unknown>;

const isPlainObject = (v: unknown): v is PlainObject => typeof v === "object" && v !== null && !Array.isArray(v);
const has = (o: PlainObject, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** The value of a top-level "id" when it is a valid JSON-RPC id for MCP (a string or any finite number), else null. */
export function validId(value: unknown): RequestId | null {
  if (typeof value === "string") return value;
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

const ALIAS_PREFIX = `codex-bridge-id-${randomBytes(6).toString("hex")}-`;
let aliases = 0;

function aliasFor(id: unknown): IdAlias | undefined {
  if (typeof id !== "number" || Number.isSafeInteger(id)) return undefined;
  return { surrogate: `${ALIAS_PREFIX}${++aliases}`, original: id };
}

function firstIssue(err: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = err.issues[0];
  if (!issue) return "does not match the MCP schema";
  const path = issue.path.map(String).join(".");
  return path ? `${path}: ${issue.message}` : issue.message;
}

/**
 * Classifies one parsed JSON value. Unknown top-level members of a request or notification are dropped rather than
 * refused (JSON-RPC does not forbid them; the SDK's strict schema would silently discard the whole message).
 */
export function checkInbound(value: unknown): InboundCheck {
  const fail = (id: RequestId | null, code: number, message: string, answerable = true): InboundCheck => ({ ok: false, id, code, message, answerable });
  if (Array.isArray(value)) {
    return fail(null, INVALID_REQUEST, "Invalid Request: JSON-RPC batches (arrays) are not supported since MCP 2025-06-18; send one message at a time");
  }
  if (!isPlainObject(value)) return fail(null, INVALID_REQUEST, "Invalid Request: a JSON-RPC message must be a JSON object");
  const obj = value;
  const hasId = has(obj, "id");
  const hasMethod = has(obj, "method");
  const id = hasId ? validId(obj.id) : null;

  // A response from the client (to a request this server never sends): handed on when valid, never answered.
  if (!hasMethod && (has(obj, "result") || has(obj, "error"))) {
    const parsed = JSONRPCMessageSchema.safeParse(obj);
    if (parsed.success) return { ok: true, message: parsed.data };
    return fail(id, INVALID_REQUEST, `Invalid Request: malformed JSON-RPC response (${firstIssue(parsed.error)})`, false);
  }

  const isNotification = !hasId && hasMethod;
  if (obj.jsonrpc !== "2.0") return fail(id, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', !isNotification);
  if (!hasMethod) return fail(id, INVALID_REQUEST, 'Invalid Request: "method" is missing (and it is not a response)');
  if (typeof obj.method !== "string") return fail(id, INVALID_REQUEST, 'Invalid Request: "method" must be a string', !isNotification);
  if (hasId && id === null) return fail(null, INVALID_REQUEST, 'Invalid Request: "id" must be a string or a number');
  if (has(obj, "params") && !isPlainObject(obj.params)) {
    return fail(id, INVALID_PARAMS, 'Invalid params: "params" must be an object', !isNotification);
  }

  const alias = hasId ? aliasFor(obj.id) : undefined;
  const cleaned: PlainObject = { jsonrpc: "2.0", ...(hasId ? { id: alias ? alias.surrogate : obj.id } : {}), method: obj.method };
  if (has(obj, "params")) cleaned.params = obj.params;
  const parsed = JSONRPCMessageSchema.safeParse(cleaned);
  if (parsed.success) return alias ? { ok: true, message: parsed.data, alias } : { ok: true, message: parsed.data };
  return fail(id, INVALID_PARAMS, `Invalid params: ${firstIssue(parsed.error)}`, !isNotification);
}

/** Parses one line or body of text, then checks it. */
export function checkInboundText(text: string): InboundCheck {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, id: null, code: PARSE_ERROR, message: "Parse error: the message is not valid JSON", answerable: true };
  }
  return checkInbound(value);
}
