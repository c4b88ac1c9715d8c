// The JSON-RPC envelopes that arrive on the app-server's stdout, parsed once so nothing downstream trusts raw JSON.
import { z } from "zod";

export const RpcId = z.union([z.number().int(), z.string()]);
export type RpcId = z.infer<typeof RpcId>;

export const RpcErrorBody = z.object({
  code: z.number(),
  message: z.string(),
  data: z.unknown().optional(),
});
export type RpcErrorBody = z.infer<typeof RpcErrorBody>;

export const IncomingMessage = z.union([
  // server → client request (has both id and method)
  z.object({ id: RpcId, method: z.string(), params: z.unknown().optional() }).transform((m) => ({ type: "request" as const, ...m })),
  z.object({ method: z.string(), params: z.unknown().optional() }).transform((m) => ({ type: "notification" as const, ...m })),
  z.object({ id: RpcId, error: RpcErrorBody }).transform((m) => ({ type: "error" as const, ...m })),
  z.object({ id: RpcId, result: z.unknown() }).transform((m) => ({ type: "result" as const, ...m })),
]);
export type IncomingMessage = z.infer<typeof IncomingMessage>;

export interface ServerNotification {
  method: string;
  params: unknown;
}

export interface ServerRequest {
  id: RpcId;
  method: string;
  params: unknown;
}
