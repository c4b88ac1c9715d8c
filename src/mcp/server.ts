// The MCP server: its instructions and the registration of every tool; no decision is made here.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { BridgeService } from "../service/bridge-service.ts";
import { registerAdminTools } from "./admin-tools.ts";
import { registerArtifactTools } from "./artifact-tools.ts";
import { registerCardTools } from "./card-tools.ts";
import { registerTaskTools, type WaitHold } from "./task-tools.ts";

/** What the supervisor is told once per connection; how long a wait holds depends on the transport. */
export function serverInstructions(hold?: WaitHold): string {
  const holds = `each call holds up to ${hold ? hold.maxSeconds : 25} s`;
  return [
    "codex-bridge runs the real Codex on the user's machine. Codex does the work; you supervise.",
    `Wait rule: after codex_start or codex_send, stay in the same response and keep calling codex_wait until the turn ends (${holds}; a one-line 'running …' answer means no news: call again). It returns early only for Codex's messages, requests, failures and the turn's end; routine progress (commands that succeed, file changes) comes with the next news. Several tasks: one codex_wait with task_ids.`,
    "When codex_wait shows a request, decide and answer it (codex_respond, or codex_submit_tool_result for bridge_web_tool with what your tool really returned); decline anything risky or outside the user's scope.",
    "When the turn ended, call codex_result and check its evidence (exit codes, file changes, Git checks) before telling the user it is done.",
  ].join("\n");
}

export type { WaitHold };

export interface ServerDeps {
  service: BridgeService;
  version: string;
  /** Set for HTTP sessions, where calls are not serialized and a wait may hold longer; stdio keeps the profile's. */
  waitHold?: WaitHold;
}

/** Wires the tools; every decision lives in the supervisor and artifact modules. */
export function createMcpServer(deps: ServerDeps): McpServer {
  const server = new McpServer(
    { name: "codex-bridge", version: deps.version },
    { instructions: serverInstructions(deps.waitHold), capabilities: { tools: {}, resources: {} } },
  );
  registerAdminTools(server, deps.service);
  registerTaskTools(server, deps.service, deps.waitHold);
  registerArtifactTools(server, deps.service);
  registerCardTools(server, deps.service);
  return server;
}
