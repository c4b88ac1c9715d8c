// The MCP server: the registration of every tool (its name and instructions live in server-identity.ts); no decision
// is made here.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { BridgeService } from "../service/bridge.ts";
import { registerAdminTools } from "./tools/admin.ts";
import { registerArtifactTools } from "./tools/artifacts.ts";
import { registerCardTools } from "./tools/card.ts";
import { registerTaskTools } from "./tools/tasks.ts";
import { lazyJsonSchemaValidator } from "./lazy-validator.ts";
import { acceptHostAddedArgs } from "./tools/host-args.ts";
import { SERVER_NAME, serverInstructions, type WaitHold } from "./server-identity.ts";

export type { WaitHold };

export interface ServerDeps {
  service: BridgeService;
  version: string;
  /** Set for HTTP sessions, where calls are not serialized and a wait may hold longer; stdio keeps the profile's. */
  waitHold?: WaitHold;
}

/** Wires the tools and the MCP Apps pages; every decision lives behind the service. */
export function createMcpServer(deps: ServerDeps): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: deps.version },
    { instructions: serverInstructions(deps.waitHold), capabilities: { tools: {}, resources: {} }, jsonSchemaValidator: lazyJsonSchemaValidator() },
  );
  registerAdminTools(server, deps.service);
  registerTaskTools(server, deps.service, deps.waitHold);
  registerArtifactTools(server, deps.service);
  registerCardTools(server, deps.service);
  acceptHostAddedArgs(server);
  return server;
}
