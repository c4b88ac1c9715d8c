// Requests the app-server sends to the bridge (verified on 0.171.0): approvals, questions, elicitations, dynamic tool
// calls, and the ones the bridge never serves.
import { APPROVAL_DECISIONS, type Verdict } from "../../verdicts.ts";
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

/** Where a server request belongs: every kind names its thread and turn; its item is itemId (callId for a tool call). */
export interface ServerRequestWhere {
  threadId: string | null;
  turnId: string | null;
  itemId: string | null;
}

/** The params of item/tool/call as the bridge reads them. */
export interface DynamicToolCallParams {
  /** As Codex sent it: a name, or anything else a broken caller put there. */
  tool: unknown;
  arguments: Record<string, unknown>;
}

/** The params of a server request, typed: where it belongs, the params whole for the ledger, and a tool call's parts. */
export interface ServerRequestParams {
  where: ServerRequestWhere;
  params: Record<string, unknown>;
  toolCall?: DynamicToolCallParams;
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export function serverRequestParams(method: string, raw: unknown): ServerRequestParams {
  const params = obj(raw);
  const where = { threadId: str(params.threadId), turnId: str(params.turnId), itemId: str(params.itemId) ?? str(params.callId) };
  if (method !== DYNAMIC_TOOL_CALL) return { where, params };
  return { where, params, toolCall: { tool: params.tool, arguments: obj(params.arguments) } };
}

export const REQUESTS_SURFACE: SurfaceEntry[] = [
  { kind: "serverRequest", method: COMMAND_APPROVAL, reads: [...WHERE, "command", "cwd", "reason", "commandActions[].command", "availableDecisions"], sends: ["decision"] },
  { kind: "serverRequest", method: FILE_CHANGE_APPROVAL, reads: [...WHERE, "reason", "grantRoot"], sends: ["decision"] },
  { kind: "serverRequest", method: PERMISSIONS_APPROVAL, reads: [...WHERE, "reason", "permissions"], sends: ["permissions", "scope"] },
  { kind: "serverRequest", method: USER_INPUT_REQUEST, reads: [...WHERE, "questions[].id", "questions[].question", "questions[].options"], sends: ["answers"] },
  { kind: "serverRequest", method: ELICITATION_REQUEST, reads: ["threadId", "turnId"], sends: ["action", "content", "_meta"] },
  { kind: "serverRequest", method: DYNAMIC_TOOL_CALL, reads: ["threadId", "turnId", "callId", "tool", "arguments"], sends: ["contentItems", "success"] },
];

export const REQUESTS_VALUES: SurfaceValues[] = [{ definition: "CommandExecutionApprovalDecision", values: APPROVAL_DECISIONS }];

/** The legacy approval requests, which say no in their own words. */
const LEGACY_APPROVALS: ReadonlySet<string> = new Set(["applyPatchApproval", "execCommandApproval"]);

/** The JSON-RPC result Codex expects for `method`, from the policy's verdict (the `sends` fields above). */
export function replyTo(method: string, v: Verdict): Record<string, unknown> {
  switch (v.kind) {
    case "decision":
      if (LEGACY_APPROVALS.has(method)) return { decision: v.decision === "decline" ? "denied" : "abort" };
      return { decision: v.decision };
    case "permissions":
      return { permissions: v.permissions, scope: v.scope };
    case "answers":
      return { answers: v.answers };
    case "elicitation":
      return { action: v.action, content: v.action === "accept" ? v.content : null, _meta: null };
    case "toolResult":
      return { contentItems: [{ type: "inputText", text: v.text }], success: v.success };
  }
}
