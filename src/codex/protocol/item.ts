// Item and diagnostic notifications of the app-server protocol (verified on 0.171.0), with the shapes the bridge parses.
import { z } from "zod";
import { CodexErrorShape } from "./error-shape.ts";
import { copyUnknownKeys, isPlainObject, type PlainObject } from "./plain-object.ts";
import { zodPaths, type SurfaceEntry, type SurfaceValues } from "./reliance.ts";

export const ITEM_STARTED = "item/started";
export const ITEM_COMPLETED = "item/completed";
export const AGENT_MESSAGE_DELTA = "item/agentMessage/delta";
export const COMMAND_OUTPUT_DELTA = "item/commandExecution/outputDelta";
export const ERROR_NOTIFICATION = "error";
export const WARNING_NOTIFICATION = "warning";
/** Codex closed a server request (answered, or withdrawn by an interrupt). */
export const SERVER_REQUEST_RESOLVED = "serverRequest/resolved";

export const ItemEnvelope = z.object({ item: z.object({ type: z.string(), id: z.string() }).passthrough(), turnId: z.string().optional() }).passthrough();
export const DeltaEnvelope = z.object({ itemId: z.string(), delta: z.string(), turnId: z.string().optional() });
type ParseResult<S extends z.ZodType> = z.ZodSafeParseResult<z.infer<S>>;
const ok = <S extends z.ZodType>(data: PlainObject): ParseResult<S> => ({ success: true, data }) as ParseResult<S>;

const ITEM_SHAPE: ReadonlySet<string> = new Set(["type", "id"]);
const ITEM_ENVELOPE_SHAPE: ReadonlySet<string> = new Set(["item", "turnId"]);

/**
 * ItemEnvelope.safeParse, hand-written for the plain well-formed case (every item/started and item/completed takes
 * this path): the same object zod builds, key for key and in the same order; any other input is zod's to judge.
 */
export function parseItemEnvelope(v: unknown): ParseResult<typeof ItemEnvelope> {
  if (isPlainObject(v)) {
    const item = v.item;
    const turnId = v.turnId;
    if (isPlainObject(item) && typeof item.type === "string" && typeof item.id === "string" && (turnId === undefined || typeof turnId === "string")) {
      const outItem: PlainObject = { type: item.type, id: item.id };
      const out: PlainObject = { item: outItem };
      if ("turnId" in v) out.turnId = turnId;
      if (copyUnknownKeys(item, outItem, ITEM_SHAPE) && copyUnknownKeys(v, out, ITEM_ENVELOPE_SHAPE)) return ok(out);
    }
  }
  return ItemEnvelope.safeParse(v);
}

/** DeltaEnvelope.safeParse, hand-written the same way (a message is streamed as thousands of these). */
export function parseDeltaEnvelope(v: unknown): ParseResult<typeof DeltaEnvelope> {
  if (isPlainObject(v) && typeof v.itemId === "string" && typeof v.delta === "string" && (v.turnId === undefined || typeof v.turnId === "string")) {
    const out: PlainObject = { itemId: v.itemId, delta: v.delta };
    if ("turnId" in v) out.turnId = v.turnId;
    return ok(out);
  }
  return DeltaEnvelope.safeParse(v);
}

export const ErrorEnvelope = z.object({
  error: CodexErrorShape,
  willRetry: z.boolean().optional(),
});
export const WarningEnvelope = z.object({ message: z.string() }).passthrough();

/**
 * The fields the bridge reads of each item type, beyond `type` and `id` (items are parsed loosely, since their
 * variants keep growing; these are the ones ingest, evidence and the final-answer rule depend on).
 */
export const ITEM_READS: Readonly<Record<string, readonly string[]>> = {
  userMessage: ["content[].text"],
  agentMessage: ["text", "phase"],
  commandExecution: ["command", "commandActions[].command", "cwd", "aggregatedOutput", "exitCode", "status", "durationMs"],
  fileChange: ["changes[].path", "changes[].kind", "changes[].diff", "status"],
  mcpToolCall: ["server", "tool", "status", "error", "arguments"],
  dynamicToolCall: ["tool", "status", "success", "arguments"],
  reasoning: [],
};

/** agentMessage.phase: commentary is never a final answer; final_answer always is (MessagePhase in the schema). */
export const PHASE_COMMENTARY = "commentary";
export const PHASE_FINAL_ANSWER = "final_answer";

const itemReads = Object.entries(ITEM_READS).flatMap(([type, fields]) => fields.map((f) => `item{type=${type}}.${f}`));

export const ITEM_SURFACE: SurfaceEntry[] = [
  { kind: "notification", method: ITEM_STARTED, reads: ["threadId", ...zodPaths(ItemEnvelope), ...itemReads] },
  { kind: "notification", method: ITEM_COMPLETED, reads: ["threadId", ...zodPaths(ItemEnvelope), ...itemReads] },
  { kind: "notification", method: AGENT_MESSAGE_DELTA, reads: ["threadId", ...zodPaths(DeltaEnvelope)] },
  { kind: "notification", method: COMMAND_OUTPUT_DELTA, reads: ["threadId", ...zodPaths(DeltaEnvelope)] },
  { kind: "notification", method: ERROR_NOTIFICATION, reads: ["threadId", "turnId", ...zodPaths(ErrorEnvelope)] },
  { kind: "notification", method: WARNING_NOTIFICATION, reads: ["threadId", ...zodPaths(WarningEnvelope)] },
  { kind: "notification", method: SERVER_REQUEST_RESOLVED, reads: ["threadId", "requestId"] },
];

export const ITEM_VALUES: SurfaceValues[] = [
  { definition: "ThreadItem", values: Object.keys(ITEM_READS) },
  { definition: "MessagePhase", values: [PHASE_COMMENTARY, PHASE_FINAL_ANSWER] },
];
