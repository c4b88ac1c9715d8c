// The control endpoint's protocol: one JSON object per line each way, checked with zod on both sides. A request is
// answered with one reply line; `watch` then streams one {line} per event line until either side closes.
import { z } from "zod";

export const PROTOCOL_VERSION = 1;
/** The longest request line the bridge reads; a longer one closes the connection. */
export const MAX_REQUEST_BYTES = 64 * 1024;

const TaskId = z.string().regex(/^t_[0-9a-f]{10}$/, "a task id like t_0123456789");
const RequestId = z.string().regex(/^r_[0-9a-f]{10}$/, "a request id like r_0123456789 (codex-bridge pending lists them)");

export const ControlRequest = z.discriminatedUnion("cmd", [
  z.strictObject({ v: z.literal(PROTOCOL_VERSION), cmd: z.literal("tasks"), all: z.boolean() }),
  z.strictObject({ v: z.literal(PROTOCOL_VERSION), cmd: z.literal("pending") }),
  z.strictObject({ v: z.literal(PROTOCOL_VERSION), cmd: z.literal("watch"), task_id: TaskId.optional() }),
  z.strictObject({ v: z.literal(PROTOCOL_VERSION), cmd: z.literal("decide"), request_id: RequestId, verdict: z.enum(["approve", "decline"]), for_session: z.boolean() }),
  z.strictObject({
    v: z.literal(PROTOCOL_VERSION),
    cmd: z.literal("answer"),
    request_id: RequestId,
    single: z.string().max(20_000).optional(),
    by_id: z.record(z.string().max(200), z.string().max(20_000)).optional(),
  }),
  z.strictObject({ v: z.literal(PROTOCOL_VERSION), cmd: z.literal("cancel"), task_id: TaskId }),
]);
export type ControlRequest = z.infer<typeof ControlRequest>;

export const ControlReply = z.union([
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({ ok: z.literal(false), error: z.string(), field: z.string().optional() }),
  z.object({ line: z.object({ task_id: z.string(), seq: z.number(), at: z.string(), text: z.string() }) }),
  z.object({ bye: z.string() }),
]);
export type ControlReply = z.infer<typeof ControlReply>;
export type WatchLineMessage = Extract<ControlReply, { line: unknown }>["line"];

/** The fields a zod error names, as one sentence (the person typed the command; say what to fix). */
export function describeIssues(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.join(".") || "request"}: ${i.message}`).join("; ");
}
