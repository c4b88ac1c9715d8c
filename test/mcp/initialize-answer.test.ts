// The initialize answer the start-up fast path writes before the SDK is loaded is, byte for byte, the one the bridge's
// real MCP server (the SDK) writes for the same request; and anything short of a plain initialize is left to the SDK.
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { initializeAnswer, PROTOCOL_VERSIONS } from "../../src/mcp/transport/initialize-answer.ts";
import { createMcpServer } from "../../src/mcp/server.ts";
import type { BridgeService } from "../../src/service/bridge.ts";

const VERSION = "9.8.7";

/** What the bridge's own MCP server writes for one request (the stdio transport writes JSON.stringify + newline). */
async function sdkAnswer(request: Record<string, unknown>): Promise<string> {
  // Registration reads only the artifact settings of the service; no call reaches it here.
  const service = { artifactSettings: { maxArtifactBytes: 1, inlineArtifactBytes: 1, sensitivePaths: [] } } as unknown as BridgeService;
  const server = createMcpServer({ service, version: VERSION });
  const [client, side] = InMemoryTransport.createLinkedPair();
  await server.connect(side);
  const answer = new Promise<JSONRPCMessage>((resolve) => (client.onmessage = resolve));
  await client.start();
  await client.send(request as JSONRPCMessage);
  const line = JSON.stringify(await answer) + "\n";
  await server.close();
  return line;
}

const init = (id: string | number, params: Record<string, unknown>) => ({ jsonrpc: "2.0", id, method: "initialize", params });
const client = { name: "some-client", version: "1.2.3" };

const PLAIN = [
  init(1, { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: client }),
  init(0, { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: client }),
  init("abc", { protocolVersion: "2025-03-26", capabilities: { roots: { listChanged: true } }, clientInfo: { ...client, title: "Some Client" } }),
  init(42, { protocolVersion: "2024-11-05", capabilities: { sampling: {}, elicitation: {}, roots: {}, experimental: {} }, clientInfo: client }),
  init(7, { protocolVersion: "2024-10-07", capabilities: { roots: { listChanged: false } }, clientInfo: { ...client, websiteUrl: "https://example.invalid", description: "d" } }),
  // An unknown version is answered with the latest the server speaks.
  init(8, { protocolVersion: "1999-01-01", capabilities: {}, clientInfo: client }),
];

describe("the early initialize answer", () => {
  it("speaks the protocol versions of the SDK in use, latest first", () => {
    expect([...PROTOCOL_VERSIONS]).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
    expect(PROTOCOL_VERSIONS[0]).toBe(LATEST_PROTOCOL_VERSION);
  });

  for (const request of PLAIN) {
    it(`is byte-identical to the SDK's for ${JSON.stringify(request.params)} (id ${JSON.stringify(request.id)})`, async () => {
      const early = initializeAnswer(JSON.stringify(request), VERSION);
      expect(early).not.toBeNull();
      expect(early!.id).toBe(request.id);
      expect(early!.line).toBe(await sdkAnswer(request));
    });
  }

  const LEFT_TO_THE_SDK: [string, string][] = [
    ["not JSON", "{"],
    ["another method first", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })],
    ["a notification", JSON.stringify({ jsonrpc: "2.0", method: "initialize", params: PLAIN[0]!.params })],
    ["a null id", JSON.stringify({ ...PLAIN[0], id: null })],
    ["a fractional id", JSON.stringify({ ...PLAIN[0], id: 1.5 })],
    ["no jsonrpc member", JSON.stringify({ id: 1, method: "initialize", params: PLAIN[0]!.params })],
    ["an extra top-level member", JSON.stringify({ ...PLAIN[0], extra: 1 })],
    ["no params", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize" })],
    ["params with _meta", JSON.stringify(init(1, { ...PLAIN[0]!.params, _meta: {} }))],
    ["a clientInfo without a version", JSON.stringify(init(1, { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x" } }))],
    ["clientInfo with icons", JSON.stringify(init(1, { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { ...client, icons: [] } }))],
    ["a numeric protocol version", JSON.stringify(init(1, { protocolVersion: 20250618, capabilities: {}, clientInfo: client }))],
    ["no capabilities", JSON.stringify(init(1, { protocolVersion: "2025-06-18", clientInfo: client }))],
    ["richer sampling capabilities", JSON.stringify(init(1, { protocolVersion: "2025-06-18", capabilities: { sampling: { context: {} } }, clientInfo: client }))],
    ["task capabilities", JSON.stringify(init(1, { protocolVersion: "2025-06-18", capabilities: { tasks: {} }, clientInfo: client }))],
    ["roots with a non-boolean listChanged", JSON.stringify(init(1, { protocolVersion: "2025-06-18", capabilities: { roots: { listChanged: "yes" } }, clientInfo: client }))],
  ];
  for (const [what, text] of LEFT_TO_THE_SDK) {
    it(`leaves ${what} to the SDK`, () => {
      expect(initializeAnswer(text, VERSION)).toBeNull();
    });
  }
});
