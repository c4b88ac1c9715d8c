// Requests the app-server sends to the bridge (verified on 0.171.0): approvals, questions, elicitations, dynamic tool
// calls, and the ones the bridge never serves.
import type { SurfaceEntry, SurfaceValues } from "./reliance.ts";

const COMMAND_APPROVAL = "item/commandExecution/requestApproval";
const FILE_CHANGE_APPROVAL = "item/fileChange/requestApproval";
const PERMISSIONS_APPROVAL = "item/permissions/requestApproval";
const USER_INPUT_REQUEST = "item/tool/requestUserInput";
const ELICITATION_REQUEST = "mcpServer/elicitation/request";
export const DYNAMIC_TOOL_CALL = "item/tool/call";

export type RequestKind = "command" | "fileChange" | "permissions" | "userInput" | "elicitation" | "tool";

export const REQUEST_KINDS: Readonly<Record<string, RequestKind>> = {
  [COMMAND_APPROVAL]: "command",
  [FILE_CHANGE_APPROVAL]: "fileChange",
  [PERMISSIONS_APPROVAL]: "permissions",
  [USER_INPUT_REQUEST]: "userInput",
  [ELICITATION_REQUEST]: "elicitation",
  [DYNAMIC_TOOL_CALL]: "tool",
};

/** Requests that only make sense for a ChatGPT-managed client; the bridge refuses them as not supported. */
export const UNSUPPORTED_REQUESTS: ReadonlySet<string> = new Set(["account/chatgptAuthTokens/refresh", "attestation/generate"]);

const WHERE = ["threadId", "turnId", "itemId"];

export const REQUESTS_SURFACE: SurfaceEntry[] = [
  { kind: "serverRequest", method: COMMAND_APPROVAL, reads: [...WHERE, "command", "cwd", "reason", "commandActions[].command", "availableDecisions"], sends: ["decision"] },
  { kind: "serverRequest", method: FILE_CHANGE_APPROVAL, reads: [...WHERE, "reason", "grantRoot"], sends: ["decision"] },
  { kind: "serverRequest", method: PERMISSIONS_APPROVAL, reads: [...WHERE, "reason", "permissions"], sends: ["permissions", "scope"] },
  { kind: "serverRequest", method: USER_INPUT_REQUEST, reads: [...WHERE, "questions[].id", "questions[].question", "questions[].options"], sends: ["answers"] },
  { kind: "serverRequest", method: ELICITATION_REQUEST, reads: ["threadId", "turnId"], sends: ["action", "content", "_meta"] },
  { kind: "serverRequest", method: DYNAMIC_TOOL_CALL, reads: ["threadId", "turnId", "callId", "tool", "arguments"], sends: ["contentItems", "success"] },
];

export const REQUESTS_VALUES: SurfaceValues[] = [{ definition: "CommandExecutionApprovalDecision", values: ["accept", "acceptForSession", "decline", "cancel"] }];
