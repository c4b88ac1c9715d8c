// Whether the connected client shows MCP Apps views, and what only such a client gets: the app-only tools in its
// listing, and each task card's key in the `_meta` of task results (hosts hand `_meta` to the view, not the model).
import type { McpServer, RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** The MCP Apps extension a client declares in initialize: `capabilities.extensions["io.modelcontextprotocol/ui"]`. */
const UI_EXTENSION = "io.modelcontextprotocol/ui";

/**
 * Clients that show views without declaring the extension, by `clientInfo.name`. ChatGPT implements MCP Apps (OpenAI
 * Apps SDK docs) and connects as "openai-mcp"; it has been reported to do so without the extension. Codex CLI,
 * Claude Code and Gemini CLI declare nothing and show no views.
 */
const VIEW_HOSTS_BY_NAME: readonly string[] = ["openai-mcp"];

/** Where a result's `_meta` carries card keys: `{ "<task id>": "<key>" }`. */
const CARD_KEYS_META = "codex-bridge/card-keys";

export function showsViews(server: McpServer): boolean {
  const caps = server.server.getClientCapabilities() as { extensions?: Record<string, unknown> } | undefined;
  const ui = caps?.extensions?.[UI_EXTENSION];
  if (typeof ui === "object" && ui !== null) return true;
  const name = server.server.getClientVersion()?.name;
  return name !== undefined && VIEW_HOSTS_BY_NAME.includes(name);
}

/** An app-only tool: listed and callable only when the client shows views (decided per call, per connection). */
export function forViewHostsOnly(server: McpServer, tool: RegisteredTool): void {
  Object.defineProperty(tool, "enabled", { get: () => showsViews(server), configurable: true });
}

/** The task ids a result is about: every `task_id` in its structured content, at any depth. */
function taskIdsOf(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) taskIdsOf(v, into);
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === "task_id" && typeof v === "string") into.add(v);
      else if (typeof v === "object") taskIdsOf(v, into);
    }
  }
  return into;
}

/** Adds the card key of every task a successful result names to its `_meta`, for view hosts only. */
export function withCardKeys(server: McpServer, tool: RegisteredTool, keyFor: (taskId: string) => string): void {
  const inner = tool.handler as (args: unknown, extra: unknown) => Promise<CallToolResult>;
  tool.handler = (async (args: unknown, extra: unknown) => {
    const r = await inner(args, extra);
    if (r.isError || !showsViews(server)) return r;
    const asked = args as { task_id?: unknown; task_ids?: unknown };
    const ids = [...taskIdsOf([r.structuredContent, { task_id: asked.task_id }, (Array.isArray(asked.task_ids) ? asked.task_ids : []).map((task_id) => ({ task_id }))])];
    if (!ids.length) return r;
    return { ...r, _meta: { ...r._meta, [CARD_KEYS_META]: Object.fromEntries(ids.map((id) => [id, keyFor(id)])) } };
  }) as RegisteredTool["handler"];
}
