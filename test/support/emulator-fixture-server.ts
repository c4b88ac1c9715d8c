// A tiny stdio MCP server for the tunnel emulator's own tests. Run: bun test/support/emulator-fixture-server.ts [flags]
//   --linger          stay alive after stdin closes (so only SIGTERM ends it)
//   --ignore-sigterm  also ignore SIGTERM (so stop() must give up; the test kills it by pid)
//   --garbage-at-start  print a non-JSON line to stdout before serving
// Tools: sleep {ms} (reports how many sleeps ran at once), progress {steps}, misbehave {mode}.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const flags = new Set(process.argv.slice(2));

if (flags.has("--garbage-at-start")) process.stdout.write("fixture starting up\n");

const server = new McpServer({ name: "emulator-fixture", version: "1.0.0" });

let running = 0;
let maxRunning = 0;

function text(value: unknown) {
  return { content: [{ type: "text" as const, text: JSON.stringify(value) }] };
}

server.registerTool(
  "sleep",
  { description: "Sleeps ms milliseconds", inputSchema: { ms: z.number().int().min(0) } },
  async ({ ms }) => {
    running += 1;
    maxRunning = Math.max(maxRunning, running);
    const concurrentAtStart = running;
    await new Promise((resolve) => setTimeout(resolve, ms));
    running -= 1;
    return text({ slept: ms, concurrentAtStart, maxRunning });
  },
);

server.registerTool(
  "progress",
  { description: "Sends steps progress notifications, then answers", inputSchema: { steps: z.number().int().min(1) } },
  async ({ steps }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i += 1) {
      if (token !== undefined) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: steps, message: `step ${i}` },
        });
      }
    }
    return text({ steps, token: token ?? null });
  },
);

server.registerTool(
  "misbehave",
  {
    description: "Breaks the stdio contract on purpose",
    inputSchema: { mode: z.enum(["garbage", "roots", "ping", "exit"]) },
  },
  async ({ mode }) => {
    if (mode === "garbage") process.stdout.write("this is not JSON\n");
    // Written by hand so no SDK capability check can stop the fixture from misbehaving.
    if (mode === "roots") process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: "srv-1", method: "roots/list" })}\n`);
    if (mode === "ping") void server.server.ping().catch(() => undefined);
    if (mode === "exit") setTimeout(() => process.exit(3), 10);
    // Answer late so the fault reaches the client first.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return text({ mode });
  },
);

if (flags.has("--ignore-sigterm")) process.on("SIGTERM", () => process.stderr.write("fixture: ignoring SIGTERM\n"));
if (flags.has("--linger")) {
  // Keeps the event loop alive after stdin EOF.
  setInterval(() => undefined, 60_000);
}
process.stdin.on("end", () => process.stderr.write("fixture: stdin closed\n"));

await server.connect(new StdioServerTransport());
process.stderr.write("fixture: ready\n");
