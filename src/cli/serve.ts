import { connectMcp } from "../mcp/delivery.ts";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Platform } from "../../platform/types.ts";
import { BUILD_INFO } from "../build-info.ts";
import { createMcpServer } from "../mcp/server.ts";
import { assembleForServe, type Bridge } from "./assemble.ts";

// Leaves the app-server its close grace (300 ms) plus margin, and stays under the one second a restart may wait.
const STOP_DEADLINE_MS = 800;

const log = (msg: string) => process.stderr.write(`codex-bridge: ${msg}\n`);

export function mcpServerFor(bridge: Bridge) {
  const c = bridge.config.config;
  return createMcpServer({
    platform: bridge.platform,
    sup: bridge.sup,
    health: bridge.health,
    version: BUILD_INFO.version,
    artifacts: {
      projects: () =>
        Object.fromEntries(Object.entries(c.projects).map(([id, p]) => [id, { cwd: p.real_cwd || p.cwd, allowHardLinks: p.allow_hard_links }])),
      maxArtifactBytes: c.max_artifact_bytes,
      inlineArtifactBytes: c.inline_artifact_bytes,
      sensitivePaths: c.sensitive_paths,
    },
  });
}

export async function runServe(platform: Platform, args: string[]): Promise<number> {
  const httpIdx = args.findIndex((a) => a === "--http" || a.startsWith("--http="));
  if (httpIdx >= 0) {
    const { runHttp } = await import("./serve-http.ts");
    return runHttp(platform, args);
  }
  if (args.length > 0) {
    // Refused rather than ignored: a typo must not silently start a server with other settings than intended.
    const a = args[0]!;
    const why = a === "--token-file" || a === "--allow-non-loopback" ? `${a} only applies with --http HOST:PORT` : `unknown option ${a}`;
    process.stderr.write(`codex-bridge serve: ${why}; see codex-bridge serve --help\n`);
    return 2;
  }
  // stdout belongs to MCP: anything printed by accident must not corrupt the stream.
  console.log = (...a: unknown[]) => log(a.map(String).join(" "));
  const bridge = await assembleForServe(platform, log);
  if (!bridge) return 1;
  const server = mcpServerFor(bridge);
  const transport = new StdioServerTransport();
  let stopping = false;
  // The tunnel stops us by closing stdin, then SIGTERM, never SIGKILL, and starts nothing until we are gone:
  // stop answering, end the app-server, exit well within a second whatever hangs.
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log(`stopping (${why})`);
    const appServer = bridge.sup.runtime.current;
    const finish = () => {
      // Anything the app-server left in its process group goes too (the group outlives its leader).
      appServer?.kill("SIGKILL");
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
  await connectMcp(server, transport);
  log(`ready: ${BUILD_INFO.version} (${BUILD_INFO.fingerprint.slice(0, 12)}), state ${bridge.store.path}, ${Object.keys(bridge.config.config.projects).length} project(s)`);
  return -1;
}
