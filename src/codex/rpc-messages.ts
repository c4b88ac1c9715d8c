// The JSON-RPC envelopes that arrive on the app-server's stdout, parsed once so nothing downstream trusts raw JSON.
import { z } from "zod";
import { isPlainObject } from "./protocol/plain-object.ts";

export const RpcId = z.union([z.number().int(), z.string()]);
export type RpcId = z.infer<typeof RpcId>;

export const RpcErrorBody = z.object({
  code: z.number(),
  message: z.string(),
  data: z.unknown().optional(),
});
export type RpcErrorBody = z.infer<typeof RpcErrorBody>;

const RequestMessage = z.object({ id: RpcId, method: z.string(), params: z.unknown().optional() }).transform((m) => ({ type: "request" as const, ...m }));
const NotificationMessage = z.object({ method: z.string(), params: z.unknown().optional() }).transform((m) => ({ type: "notification" as const, ...m }));
const ErrorMessage = z.object({ id: RpcId, error: RpcErrorBody }).transform((m) => ({ type: "error" as const, ...m }));
const ResultMessage = z.object({ id: RpcId, result: z.unknown() }).transform((m) => ({ type: "result" as const, ...m }));

/** The first of these that a message matches says what it is. */
export const IncomingMessage = z.union([RequestMessage, NotificationMessage, ErrorMessage, ResultMessage]);
export type IncomingMessage = z.infer<typeof IncomingMessage>;

/**
 * IncomingMessage.safeParse without its cost on the hot path: a union tries its members in order and builds an error
 * for each that fails, which for every notification and result is most of the parse. When the keys alone rule out
 * the members before the one that can match, that member is parsed directly; the outcome is the union's.
 */
export function parseIncoming(value: unknown): ReturnType<typeof IncomingMessage.safeParse> {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const m = value as Record<string, unknown>;
    const hasMethod = typeof m.method === "string";
    // A request needs an id, so a message with a method and none is a notification or nothing.
    if (hasMethod && m.id === undefined) {
      // The plain case (every notification the app-server sends) is built here as zod would build it.
      if (!isPlainObject(m)) return passedOrUnion(NotificationMessage.safeParse(value), value);
      const data = "params" in m ? { type: "notification" as const, method: m.method as string, params: m.params } : { type: "notification" as const, method: m.method as string };
      return { success: true, data } as ReturnType<typeof IncomingMessage.safeParse>;
    }
    // Requests and notifications need a method, an error response its error: what is left is a result or nothing.
    if (!hasMethod && m.error === undefined) return passedOrUnion(ResultMessage.safeParse(value), value);
  }
  return IncomingMessage.safeParse(value);
}

/** A member's success is the union's; its failure is not (the union reports every member's issues), so ask the union. */
function passedOrUnion(r: ReturnType<typeof IncomingMessage.safeParse>, value: unknown): ReturnType<typeof IncomingMessage.safeParse> {
  return r.success ? r : IncomingMessage.safeParse(value);
}

export interface ServerNotification {
  method: string;
  params: unknown;
}

export interface ServerRequest {
  id: RpcId;
  method: string;
  params: unknown;
}
