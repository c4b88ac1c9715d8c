// serve collects the heap once after the MCP side went quiet, never while requests and answers keep coming, and only
// on a runtime that offers a collection; watching stdin takes nothing away from the transport that reads it.
import { PassThrough } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Platform } from "../../platform/types.ts";
import { collectWhenIdle } from "../../src/cli/idle-gc.ts";

function fakeTransport(): Transport & { sent: JSONRPCMessage[] } {
  const sent: JSONRPCMessage[] = [];
  return { sent, start: async () => {}, close: async () => {}, send: async (m: JSONRPCMessage) => void sent.push(m) };
}

const ping = { jsonrpc: "2.0" as const, id: 1, result: {} };
const MiB = 1024 * 1024;

describe("collection when idle", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("collects once after a quiet second, not while traffic continues, and again after new traffic", async () => {
    const collections: boolean[] = [];
    const platform = { collectGarbage: (full: boolean) => collections.push(full) } as unknown as Platform;
    const stdin = new PassThrough();
    const transport = fakeTransport();
    const read: string[] = [];
    stdin.on("data", (d: Buffer) => read.push(d.toString()));
    collectWhenIdle(platform, stdin, transport, 1000);

    for (let i = 0; i < 10; i++) {
      stdin.write(`line ${i}\n`);
      await vi.advanceTimersByTimeAsync(300);
      await transport.send(ping);
      await vi.advanceTimersByTimeAsync(300);
    }
    expect(collections).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(collections).toEqual([true]);
    await transport.send(ping);
    await vi.advanceTimersByTimeAsync(5000);
    expect(collections).toEqual([true, true]);
    // The reader that was there first still got every chunk, and every answer went out.
    expect(read.join("")).toBe(Array.from({ length: 10 }, (_, i) => `line ${i}\n`).join(""));
    expect(transport.sent).toHaveLength(11);
  });

  it("collects after each answer that carries megabytes, fully once the process has grown, not after small ones", async () => {
    const collections: boolean[] = [];
    let rss = 50 * MiB;
    const platform = { collectGarbage: (full: boolean) => collections.push(full) } as unknown as Platform;
    const transport = fakeTransport();
    collectWhenIdle(platform, new PassThrough(), transport, 1000, () => rss);
    const big = "A".repeat(2 * MiB);
    await transport.send({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "small" }] } });
    expect(collections).toEqual([]);
    rss += 20 * MiB;
    await transport.send({ jsonrpc: "2.0", id: 3, result: { content: [{ type: "resource", resource: { uri: "x", blob: big } }] } });
    expect(collections).toEqual([false]);
    rss += 20 * MiB;
    await transport.send({ jsonrpc: "2.0", id: 4, result: { contents: [{ uri: "x", text: big }] } });
    expect(collections).toEqual([false, true]);
    expect(transport.sent).toHaveLength(3);
  });

  it("does nothing on a runtime without a collection", async () => {
    const stdin = new PassThrough();
    const transport = fakeTransport();
    const send = transport.send;
    collectWhenIdle({} as Platform, stdin, transport, 1000);
    expect(transport.send).toBe(send);
    expect(stdin.listenerCount("data")).toBe(0);
  });
});
