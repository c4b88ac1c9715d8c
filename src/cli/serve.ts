// `codex-bridge serve`: the MCP server over stdio for tunnel-client and local clients; exits promptly on EOF or SIGTERM.
import { connectMcp } from "../mcp/delivery.ts";
import { BoundedStdioServerTransport } from "../mcp/stdio-transport.ts";
import type { Platform } from "../../platform/types.ts";
import { BUILD_INFO } from "../build-info.ts";
import { assembleForServe, mcpServerFor } from "../app/assemble.ts";

// Leaves the app-server its close grace (300 ms) plus margin, and stays under the one second a restart may wait.
const STOP_DEADLINE_MS = 800;

const log = (msg: string) => process.stderr.write(`codex-bridge: ${msg}\n`);

export async function runServe(platform: Platform, args: string[]): Promise<number> {
  const httpIdx = args.findIndex((a) => a === "--http" || a.startsWith("--http="));
  if (httpIdx >= 0) {
    const { runHttp } = await import("./serve-http.ts");
    return runHttp(platform, args);
  }
  if (args.length > 0) {
    // Refused rather than ignored: a typo must not silently start a server with other settings than intended.
    const a = args[0]!;
    const httpOnly = ["--token-file", "--allow-non-loopback", "--session-idle-seconds", "--max-sessions", "--max-wait-seconds"].includes(a.split("=")[0]!);
    const why = httpOnly ? `${a.split("=")[0]} only applies with --http HOST:PORT` : `unknown option ${a}`;
    process.stderr.write(`codex-bridge serve: ${why}; see codex-bridge serve --help\n`);
    return 2;
  }
  // stdout belongs to MCP: anything printed by accident must not corrupt the stream.
  console.log = (...a: unknown[]) => log(a.map(String).join(" "));
  const bridge = await assembleForServe(platform, log);
  if (!bridge) return 1;
  const server = mcpServerFor(bridge);
  // Not the SDK's StdioServerTransport: an over-long or malformed line must be answered, never wedge the bridge.
  const transport = new BoundedStdioServerTransport(process.stdin, process.stdout, { log });
  let stopping = false;
  // The tunnel stops us by closing stdin, then SIGTERM, never SIGKILL, and starts nothing until we are gone:
  // stop answering, end the app-server, exit well within a second whatever hangs.
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log(`stopping (${why})`);
    const appServers = bridge.sup.runtimes.all().map((s) => s.runtime.current);
    const finish = () => {
      // Anything an app-server left in its process group goes too (the group outlives its leader).
      for (const appServer of appServers) appServer?.kill("SIGKILL");
      try {
        bridge.store.close();
      } catch {
        // closed already
      }
      process.exit(0);
    };
    const hard = setTimeout(() => {
      log("stop took too long; exiting anyway");
      finish();
    }, STOP_DEADLINE_MS);
    try {
      process.stdin.pause();
      await server.close().catch(() => {});
      await bridge.close();
    } catch (err) {
      log(`while stopping: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      clearTimeout(hard);
      finish();
    }
  };
  process.stdin.on("end", () => void shutdown("stdin closed"));
  process.stdin.on("close", () => void shutdown("stdin closed"));
  process.stdin.on("error", () => void shutdown("stdin failed"));
  // A reader that went away must not turn into an EPIPE crash with a stack trace.
  process.stdout.on("error", () => void shutdown("stdout closed"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  let sigints = 0;
  process.on("SIGINT", () => {
    sigints++;
    if (sigints >= 2) void shutdown("SIGINT");
    else log("SIGINT received; press Ctrl+C again to stop");
  });
  process.on("SIGHUP", () => void shutdown("SIGHUP"));
  // A transport that closed for any reason serves nothing more: exit rather than linger deaf.
  transport.onclose = () => void shutdown("MCP transport closed");
  await connectMcp(server, transport);
  log(`ready: ${BUILD_INFO.version} (${BUILD_INFO.fingerprint.slice(0, 12)}), state ${bridge.store.path}, ${Object.keys(bridge.config.config.projects).length} project(s)`);
  return -1;
}
