// Requests the app-server sends to the bridge (verified on 0.171.0): approvals, questions, elicitations, dynamic tool
// calls, and the ones the bridge never serves.
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
