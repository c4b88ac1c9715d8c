// Arguments that known MCP hosts add to every tool on their own, which the bridge accepts and ignores. Every other
// unknown key is still refused by the tool's schema (input-boundary.ts), naming the keys the tool takes.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

/** Each host-added argument and the host that adds it. Keep this list short and name the host. */
const HOST_ADDED_ARGS: Readonly<Record<string, string>> = {
  // Gemini CLI (0.61) adds this property to every tool schema it gives its model, and forwards it when set.
  wait_for_previous: "Gemini CLI",
};

/** The arguments without the host-added keys (the same object when it holds none). */
function withoutHostArgs(args: unknown): unknown {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return args;
  const keys = Object.keys(args);
  if (!keys.some((k) => k in HOST_ADDED_ARGS)) return args;
  return Object.fromEntries(Object.entries(args).filter(([k]) => !(k in HOST_ADDED_ARGS)));
}

type Validate = (tool: unknown, args: unknown, name: string) => Promise<unknown>;

/** Drops host-added keys from every tool call before the tool's schema checks it (one place, every transport). */
export function acceptHostAddedArgs(server: McpServer): void {
  // The SDK validates tools/call arguments in this (TypeScript-private) method; the SDK version is pinned.
  const s = server as unknown as { validateToolInput: Validate };
  const validate = s.validateToolInput.bind(server);
  s.validateToolInput = (tool, args, name) => validate(tool, withoutHostArgs(args), name);
}
