// The automatic wait cursor only moves once the answer was really written.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { startHarness, type Harness } from "../../src/selftest/harness.ts";
import { mcpServerFor } from "../../src/app/assemble.ts";
import { connectMcp } from "../../src/mcp/delivery.ts";

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

it("a wait answer that never reached the client is delivered again by the next automatic wait", async () => {
  h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
  h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "first news" }, { type: "exec", cmd: "sleep 2" }] }, { kind: "output", items: [{ type: "message", text: "done" }] });

  const server = mcpServerFor(h.bridge);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  let dropped = 0;
  const send = serverSide.send.bind(serverSide);
  // The first wait answer dies on the way out, as on a broken pipe or a retired tunnel request.
  serverSide.send = async (msg, opts) => {
    if (dropped === 0 && "result" in msg && JSON.stringify(msg).includes("first news")) {
      dropped++;
      throw new Error("pipe closed");
    }
    return send(msg, opts);
  };
  await connectMcp(server, serverSide);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(clientSide);

  const start = (await client.callTool({ name: "codex_start", arguments: { project_id: "demo", prompt: "go" } })).structuredContent as { task_id: string };
  await expect(client.callTool({ name: "codex_wait", arguments: { task_id: start.task_id, timeout_seconds: 20 } }, undefined, { timeout: 3000 })).rejects.toThrow();
  expect(dropped).toBe(1);
  const again = (await client.callTool({ name: "codex_wait", arguments: { task_id: start.task_id, timeout_seconds: 20 } })).structuredContent as { messages?: string[] };
  expect(again.messages).toContain("first news");
  // Once delivered, the cursor moves on: the same news is not repeated.
  const next = (await client.callTool({ name: "codex_wait", arguments: { task_id: start.task_id, timeout_seconds: 20 } })).structuredContent as { messages?: string[] };
  expect(next.messages ?? []).not.toContain("first news");
  await client.close();
  await server.close();
});
