// `codex-bridge serve`: the MCP server over stdio for tunnel-client and local clients; exits promptly on EOF or SIGTERM.
import { connectMcp } from "../mcp/delivery.ts";
import { BoundedStdioServerTransport } from "../mcp/transport/stdio.ts";
import type { Platform } from "../../platform/types.ts";
import { BUILD_INFO } from "../build-info.ts";
import { assembleForServe, mcpServerFor } from "../app/assemble.ts";
import { Logger } from "../log.ts";
import { takeLogOptions } from "./log-options.ts";
import type { OpenedState } from "../app/open-state.ts";
import type { EarlyStdio } from "./early-stdio.ts";
import { collectWhenIdle } from "./idle-gc.ts";
import { installCrashGuard } from "./crash-guard.ts";
import { shutdownFor } from "./shutdown.ts";

/** What main.ts has done already on the stdio fast path: logger set up, stdin read early, config and state opened. */
export interface ServeStart {
  logger: Logger;
  early: EarlyStdio;
  opened: OpenedState;
}

export async function runServe(platform: Platform, allArgs: string[], start?: ServeStart): Promise<number> {
  const setup = start ? { logger: start.logger, rest: [] } : takeLogOptions(allArgs);
  if ("error" in setup) {
    new Logger().plain(`codex-bridge serve: ${setup.error}; see codex-bridge serve --help`);
    return 2;
  }
  const { logger, rest: args } = setup;
  const log = logger.log;
  const httpIdx = args.findIndex((a) => a === "--http" || a.startsWith("--http="));
  if (httpIdx >= 0) {
    const { runHttp } = await import("./serve-http.ts");
    return runHttp(platform, args, logger);
  }
  if (args.length > 0) {
    // Refused rather than ignored: a typo must not silently start a server with other settings than intended.
    const a = args[0]!;
    const httpOnly = ["--token-file", "--allow-non-loopback", "--session-idle-seconds", "--max-sessions", "--max-wait-seconds"].includes(a.split("=")[0]!);
    const why = httpOnly ? `${a.split("=")[0]} only applies with --http HOST:PORT` : `unknown option ${a}`;
    logger.plain(`codex-bridge serve: ${why}; see codex-bridge serve --help`);
    return 2;
  }
  // stdout belongs to MCP: anything printed by accident must not corrupt the stream (nor reach the log as text).
  console.log = (...a: unknown[]) => log("warn", "stray_output", { chars: a.map(String).join(" ").length });
  const bridge = await assembleForServe(platform, logger, start?.opened);
  if (!bridge) return 1;
  installCrashGuard(logger, () => bridge.store.path);
  const server = mcpServerFor(bridge);
  // Not the SDK's StdioServerTransport: an over-long or malformed line must be answered, never wedge the bridge.
  // With the start-up fast path, stdin is read through `early` (initialize may have been answered already).
  const stdin = start?.early.input ?? process.stdin;
  const bounded = new BoundedStdioServerTransport(stdin, process.stdout, { log });
  const transport = start ? start.early.adopt(bounded, log) : bounded;
  // The tunnel stops us by closing stdin, then SIGTERM: stop answering, end the app-server, exit within the deadline.
  const shutdown = shutdownFor(bridge, log, async () => {
    stdin.pause();
    await server.close().catch(() => {});
  });
  stdin.on("end", () => void shutdown("stdin_closed"));
  stdin.on("close", () => void shutdown("stdin_closed"));
  stdin.on("error", () => void shutdown("stdin_failed"));
  // A reader that went away must not turn into an EPIPE crash with a stack trace.
  process.stdout.on("error", () => void shutdown("stdout_closed"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  let sigints = 0;
  process.on("SIGINT", () => {
    sigints++;
    if (sigints >= 2) void shutdown("SIGINT");
    else logger.say("warn", "sigint", "SIGINT received; press Ctrl+C again to stop");
  });
  process.on("SIGHUP", () => void shutdown("SIGHUP"));
  // A transport that closed for any reason serves nothing more: exit rather than linger deaf.
  transport.onclose = () => void shutdown("transport_closed");
  await connectMcp(server, transport);
  collectWhenIdle(platform, stdin, transport);
  logger.announce("ready", { version: BUILD_INFO.version, build: BUILD_INFO.fingerprint.slice(0, 12), projects: Object.keys(bridge.config.config.projects).length, pid: process.pid });
  return -1;
}
