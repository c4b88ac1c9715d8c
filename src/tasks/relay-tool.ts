// The one dynamic tool the bridge registers on new threads: Codex asks the supervisor's host for a web-side capability.
export const RELAY_TOOL_NAME = "bridge_web_tool";
export const RELAY_REQUEST_MAX_CHARS = 16_000;
export const RELAY_ARGUMENTS_MAX_CHARS = 20_000;

export const RELAY_TOOL_SPEC = {
  type: "function",
  name: RELAY_TOOL_NAME,
  description:
    "Ask the supervising host (e.g. ChatGPT) to use one of ITS tools for you: web search, a connector, a document, an authorized write. " +
    "Describe the capability and the exact request. The answer comes back in this same turn. It is a host report, not verified evidence.",
  inputSchema: {
    type: "object",
    properties: {
      capability: { type: "string", description: "what kind of tool is needed, e.g. web_search, github, drive" },
      request: { type: "string", description: "the exact request, at most 16000 characters" },
      context: { description: "optional JSON context" },
      operation: { type: "string", enum: ["read", "write"] },
    },
    required: ["capability", "request", "operation"],
    additionalProperties: false,
  },
} as const;
