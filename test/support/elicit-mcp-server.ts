// A small stdio MCP server for the elicitation tests: its one tool asks its client (Codex) for a form with a field of
// each JSON-schema type the bridge's policy checks, and returns what came back, so the model's next input shows it.
// Run by Codex from the test's isolated CODEX_HOME config (`[mcp_servers.forms]`), never by the bridge.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const FORM_SCHEMA = {
  type: "object" as const,
  properties: {
    name: { type: "string" as const, title: "Name", minLength: 1, maxLength: 40 },
    email: { type: "string" as const, title: "Email", format: "email" as const },
    count: { type: "integer" as const, title: "Count", minimum: 1, maximum: 10 },
    ratio: { type: "number" as const, title: "Ratio", minimum: 0, maximum: 1 },
    confirm: { type: "boolean" as const, title: "Confirm" },
    color: { type: "string" as const, title: "Color", enum: ["red", "blue"] },
    size: { type: "string" as const, title: "Size", oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }] },
    tags: { type: "array" as const, title: "Tags", items: { type: "string" as const, enum: ["a", "b", "c"] }, minItems: 1, maxItems: 2 },
  },
  required: ["name", "count", "confirm", "color"],
};

async function main(): Promise<void> {
  const server = new McpServer({ name: "forms", version: "1.0.0" });
  server.registerTool("fill_form", { description: "Asks the user to fill a release form", inputSchema: {} }, async () => {
    const r = await server.server.elicitInput({ message: "Release details for the changelog", requestedSchema: FORM_SCHEMA });
    return { content: [{ type: "text", text: `FORM ${r.action} ${JSON.stringify(r.content ?? null)}` }] };
  });
  await server.connect(new StdioServerTransport());
}

void main();
