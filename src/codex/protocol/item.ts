// Item and diagnostic notifications of the app-server protocol (verified on 0.171.0), with the shapes the bridge parses.
import { z } from "zod";

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
export const ErrorEnvelope = z.object({
  error: z.object({ message: z.string().optional(), codexErrorInfo: z.unknown().optional() }).passthrough(),
  willRetry: z.boolean().optional(),
});
export const WarningEnvelope = z.object({ message: z.string() }).passthrough();
