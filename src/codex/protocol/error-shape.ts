// The one shape of an error Codex reports, in a failed turn (turn/completed) and in an `error` notification alike:
// a message, the codexErrorInfo variant the failure classifier maps, and details.
import { z } from "zod";

export const CodexErrorShape = z.object({ message: z.string().optional(), codexErrorInfo: z.unknown().optional(), additionalDetails: z.string().nullable().optional() }).passthrough();
