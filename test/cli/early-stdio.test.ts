// The start-up fast path of `serve` on stdio, in-process over PassThrough streams: a plain initialize on the first line
// is answered once the bridge knows it will start and before any MCP server exists, the SDK's own answer to it is
// never written, and every line (that one too) still reaches the real server in order, so the session goes on exactly
// as without the fast path.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { startEarlyStdio } from "../../src/cli/early-stdio.ts";
import { initializeAnswer } from "../../src/mcp/transport/initialize-answer.ts";
import { createMcpServer } from "../../src/mcp/server.ts";
import { BoundedStdioServerTransport } from "../../src/mcp/transport/stdio.ts";
import type { BridgeService } from "../../src/service/bridge.ts";
import { poll } from "../support/poll.ts";

const VERSION = "1.0.0-test";
const line = (m: unknown) => JSON.stringify(m) + "\n";
const INIT = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } } };
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
const LIST = { jsonrpc: "2.0", id: 2, method: "tools/list" };

function rig() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const out: string[] = [];
  let buf = "";
  stdout.setEncoding("utf8").on("data", (d: string) => {
    buf += d;
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      out.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
  });
  const early = startEarlyStdio(VERSION, stdin, stdout);
  const logs: string[] = [];
  /** What serve does once everything is loaded: the real server on the bounded transport, reading early.input. */
  const connect = async () => {
    const service = { artifactSettings: { maxArtifactBytes: 1, inlineArtifactBytes: 1, sensitivePaths: [] } } as unknown as BridgeService;
    const server = createMcpServer({ service, version: VERSION });
    const log = (_level: string, event: string) => void logs.push(event);
    const transport = early.adopt(new BoundedStdioServerTransport(early.input, stdout, { log }), log);
    await server.connect(transport);
    return server;
  };
  const ids = () => out.map((l) => (JSON.parse(l) as { id?: unknown }).id);
  return { stdin, out, logs, early, connect, ids };
}

describe("serve's early stdio", () => {
  it("holds the answer until the bridge knows it will start, then answers before the server exists, once", async () => {
    const r = rig();
    r.stdin.write(line(INIT) + line(INITIALIZED) + line(LIST));
    // Config and state not open yet (a predecessor may still hold the database): nothing is answered.
    await new Promise((res) => setTimeout(res, 50));
    expect(r.out).toEqual([]);
    r.early.open();
    // Nothing of the MCP server is built yet, and the answer is out.
    expect(r.out).toEqual([initializeAnswer(JSON.stringify(INIT), VERSION)!.line.trimEnd()]);
    const server = await r.connect();
    await poll(() => r.ids().includes(2), { timeoutMs: 5000, what: () => `the tools/list answer (stdout: ${r.out.join("\n")})` });
    r.stdin.write(line({ jsonrpc: "2.0", id: 3, method: "ping" }));
    await poll(() => r.ids().includes(3), { timeoutMs: 5000, what: "the ping answer" });
    expect(r.ids()).toEqual([1, 2, 3]);
    expect((JSON.parse(r.out[1]!) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0);
    // The SDK saw the initialize (its answer was the one skipped, and it matched).
    expect(server.server.getClientVersion()).toEqual({ name: "c", version: "1" });
    expect(r.logs).toEqual([]);
    await server.close();
  });

  it("leaves a first line that is not a plain initialize to the SDK, which answers it as usual", async () => {
    const r = rig();
    const rich = { ...INIT, params: { ...INIT.params, capabilities: { sampling: { context: {} } } } };
    r.stdin.write(line(rich) + line(LIST));
    await new Promise((res) => setTimeout(res, 50));
    r.early.open();
    expect(r.out).toEqual([]);
    const server = await r.connect();
    await poll(() => r.ids().includes(2), { timeoutMs: 5000, what: () => `both answers (stdout: ${r.out.join("\n")})` });
    expect(r.ids()).toEqual([1, 2]);
    expect((JSON.parse(r.out[0]!) as { result: { serverInfo: unknown } }).result.serverInfo).toEqual({ name: "codex-bridge", version: VERSION });
    await server.close();
  });

  it("hands on what arrived before stdin ended, then the end itself", async () => {
    const r = rig();
    r.stdin.end(line(INIT) + line(LIST));
    r.early.open();
    await poll(() => r.out.length === 1, { timeoutMs: 5000, what: "the early answer" });
    let ended = false;
    r.early.input.on("end", () => (ended = true));
    const server = await r.connect();
    await poll(() => r.ids().includes(2) && ended, { timeoutMs: 5000, what: () => `the tools/list answer and the end of input (stdout: ${r.out.join("\n")}, ended ${ended})` });
    expect(r.ids()).toEqual([1, 2]);
    await server.close();
  });

  it("answers a first line that arrives after the bridge knew it would start, the moment it arrives", async () => {
    const r = rig();
    r.early.open();
    expect(r.out).toEqual([]);
    r.stdin.write(line(INIT));
    await poll(() => r.out.length === 1, { timeoutMs: 5000, what: "the early answer" });
    expect(JSON.parse(r.out[0]!)).toMatchObject({ id: 1, result: { serverInfo: { name: "codex-bridge", version: VERSION } } });
    r.early.release();
  });
});
