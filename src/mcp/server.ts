// The MCP server: its instructions and the registration of every tool; no decision is made here.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { BridgeService } from "../service/bridge-service.ts";
import { registerAdminTools } from "./admin-tools.ts";
import { registerArtifactTools } from "./artifact-tools.ts";
import { registerCardTools } from "./card-tools.ts";
import { registerTaskTools } from "./task-tools.ts";

export const SERVER_INSTRUCTIONS = [
  "codex-bridge runs the real Codex on the user's machine. Codex does the work; you supervise.",
  "Wait rule: after codex_start or codex_send, stay in the same response and call codex_wait again and again until it reports the turn ended (each call returns within about 25 s; 'still running' means call again).",
  "When codex_wait shows a request, decide and answer it (codex_respond, or codex_submit_tool_result for bridge_web_tool with what your tool really returned); decline anything risky or outside the user's scope.",
  "When the turn ended, call codex_result and check its evidence (exit codes, file changes, Git checks) before telling the user it is done.",
].join("\n");

export interface ServerDeps {
  service: BridgeService;
  version: string;
}

/** Wires the tools; every decision lives in the supervisor and artifact modules. */
export function createMcpServer(deps: ServerDeps): McpServer {
  const server = new McpServer(
    { name: "codex-bridge", version: deps.version },
    { instructions: SERVER_INSTRUCTIONS, capabilities: { tools: {}, resources: {} } },
  );
  registerAdminTools(server, deps.service);
  registerTaskTools(server, deps.service);
  registerArtifactTools(server, deps.service);
  registerCardTools(server, deps.service);
  return server;
}
