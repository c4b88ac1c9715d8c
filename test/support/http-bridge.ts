// Test support: the REAL bridge process serving Streamable HTTP (`serve --http …` from source, or CODEX_BRIDGE_BIN), and MCP SDK
// clients connected to it. The ready line on stderr gives the URL (port 0 lets the OS pick a free port).
import { spawn, type ChildProcess } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { bridgeCommand } from "./bridge-process.ts";
import { poll } from "./poll.ts";
import { PROJECT_ROOT } from "./real-codex.ts";

export interface HttpBridge {
  child: ChildProcess;
  pid: number;
  url: string;
  port: number;
  stderr(): string;
  /** Resolves with the exit once the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after `graceMs` if it is still running (a failed test must not leave a bridge behind). */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; killed: boolean }>;
}

/** Runs `serve` with `args`; resolves once the process exited (for argument errors) or printed its ready line. */
export function runBridge(env: Record<string, string | undefined>, args: string[]): { child: ChildProcess; stderr: () => string; exited: HttpBridge["exited"] } {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) clean[k] = v;
  const run = bridgeCommand(["serve", ...args]);
  const child = spawn(run.command, run.args, { cwd: PROJECT_ROOT, env: clean, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  child.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, stderr: () => err, exited };
}

export async function startHttpBridge(env: Record<string, string | undefined>, args: string[] = ["--http", "127.0.0.1:0"]): Promise<HttpBridge> {
  const { child, stderr, exited } = runBridge(env, args);
  let done = false;
  exited.then(() => (done = true));
  // The ready line, or "exited" as soon as the process ended without printing it.
  const ready = await poll(() => /\bready url=(http:\/\/\S+:(\d+)\/mcp)/.exec(stderr()) ?? (done ? "exited" : null), {
    timeoutMs: 60_000,
    interval: 25,
    what: () => `the bridge's ready line on stderr; stderr so far:\n${stderr()}`,
  }).catch((err: unknown) => {
    child.kill("SIGKILL");
    throw err;
  });
  if (ready === "exited") throw new Error(`bridge exited before it was ready:\n${stderr()}`);
  return {
    child,
    pid: child.pid!,
    url: ready[1],
    port: Number(ready[2]),
    stderr,
    exited,
    async stop(graceMs = 10_000) {
      if (done) return { ...(await exited), killed: false };
      child.kill("SIGTERM");
      const timer = new Promise<null>((r) => setTimeout(() => r(null), graceMs));
      const first = await Promise.race([exited, timer]);
      if (first) return { ...first, killed: false };
      child.kill("SIGKILL");
      return { ...(await exited), killed: true };
    },
  };
}

export interface HttpClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function connectHttpClient(url: string, headers: Record<string, string> = {}, name = "http-test"): Promise<HttpClient> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name, version: "1" });
  await client.connect(transport);
  return {
    client,
    transport,
    // Waits take up to their timeout; the SDK's default 60 s request timeout is enough for the ones used here.
    call: async (n, a) => (await client.callTool({ name: n, arguments: a }, undefined, { timeout: 120_000 })) as CallToolResult,
    close: () => client.close().catch(() => {}),
  };
}

/** A raw HTTP request to the bridge with full control over the headers (fetch cannot forge Host). */
export async function rawPost(port: number, headers: Record<string, string>, body: unknown): Promise<{ status: number; text: string; headers: Record<string, string | string[] | undefined> }> {
  const { request } = await import("node:http");
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "content-length": Buffer.byteLength(data), ...headers },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (d: string) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

export const INIT_REQUEST = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
