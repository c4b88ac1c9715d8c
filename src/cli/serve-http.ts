// `codex-bridge serve --http HOST:PORT`: the MCP server over Streamable HTTP on loopback, for
// `tunnel-client --mcp.server-url` and local clients. One bridge (one database owner, one Codex app-server)
// serves every session; each session gets its own McpServer so concurrent conversations are not serialized.
import { connectMcp } from "../mcp/delivery.ts";
import { shutdownFor } from "./shutdown.ts";
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, SessionRegistry } from "../mcp/transport/http-sessions.ts";
import { checkInboundText, errorReply, type JsonRpcErrorReply } from "../mcp/transport/jsonrpc-inbound.ts";
import { restoreIdInResponse, sameLengthSurrogate } from "../mcp/transport/http-id-alias.ts";
import { randomUUID } from "node:crypto";
import { isIP } from "node:net";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Platform } from "../../platform/types.ts";
import { BUILD_INFO } from "../build-info.ts";
import { allowedHostHeaders, checkRequest, digest, HttpArgError, isLoopbackAddress, MCP_PATH, parseHttpArgs, readTokenFile, type HttpOptions } from "./http-options.ts";
import { assembleForServe, mcpServerFor, type Bridge } from "../app/assemble.ts";
import { installCrashGuard } from "./crash-guard.ts";
import { silentLog, type EventLog, type Logger } from "../log.ts";
const MAX_BODY_BYTES = 4 * 1024 * 1024;


function sendJsonError(res: ServerResponse, status: number, code: number, message: string, extra: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { "content-type": "application/json", ...extra });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

function sendReply(res: ServerResponse, status: number, reply: JsonRpcErrorReply, extra: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { "content-type": "application/json", ...extra });
  res.end(JSON.stringify(reply));
}

/**
 * The 404 for every path but the MCP endpoint, shaped as an OAuth error: an SDK client that tries OAuth after a 401
 * (discovery, then /register) stops there and shows this sentence, which names the real problem.
 */
function sendNoOAuth(res: ServerResponse): void {
  res.writeHead(404, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: "invalid_token", error_description: `codex-bridge has no OAuth; its MCP endpoint is ${MCP_PATH} and takes the --token-file token as "Authorization: Bearer <token>": the token sent is missing or wrong` }));
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? "0");
    if (declared > MAX_BODY_BYTES) return reject(new BodyTooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLarge());
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  close(): Promise<void>;
}

export interface HttpBridgeServer {
  url: string;
  port: number;
  sessionCount(): number;
  close(): Promise<void>;
}

/** Serves MCP for `bridge` at http://HOST:PORT/mcp. Exported for tests and embedding; runHttp adds the process part. */
export async function startHttpServer(
  bridge: Bridge,
  opts: HttpOptions & { token: string | null; log?: EventLog },
): Promise<HttpBridgeServer> {
  const say = opts.log ?? silentLog;
  const limits = { idleMs: opts.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS, maxSessions: opts.maxSessions ?? DEFAULT_MAX_SESSIONS };
  const sessions = new SessionRegistry<Session>(limits);
  const tokenDigest = opts.token ? digest(opts.token) : null;
  // The flag, else the config's max_wait_seconds (55 s unless raised): HTTP calls are not serialized, so a wait may
  // hold the whole limit.
  const waitSeconds = opts.maxWaitSeconds ?? bridge.settings.maxWaitSeconds;
  let allowedHosts = new Set<string>();

  const newSession = async (): Promise<StreamableHTTPServerTransport> => {
    const server = mcpServerFor(bridge, { defaultSeconds: waitSeconds, maxSeconds: waitSeconds });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.add(id, {
          transport,
          server,
          async close() {
            await transport.close().catch(() => {});
            await server.close().catch(() => {});
          },
        });
      },
      onsessionclosed: (id) => {
        void sessions.close(id);
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id) sessions.forget(id);
    };
    await connectMcp(server, transport);
    return transport;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // Every other path is a plain 404 before any token check: an SDK client that finds OAuth metadata (or a 401 where
    // it looks for it: /.well-known/oauth-protected-resource, /register, ...) starts an OAuth login instead of saying
    // that the token is wrong. This server has no OAuth; its token is static (--token-file).
    const path = (req.url ?? "/").split("?")[0];
    if (path !== MCP_PATH) return sendNoOAuth(res);
    const verdict = checkRequest(req.headers, allowedHosts, tokenDigest);
    if (!verdict.ok) {
      if (verdict.status === 403) say("warn", "http_refused", { status: 403, method: req.method, host: req.headers.host ?? null, origin: req.headers.origin ?? null });
      if (verdict.status === 401) {
        // A token problem is answered 403, not 401: SDK-based clients (the MCP Inspector 2.12 CLI) take every 401 as
        // "start an OAuth login" and tell the user so, whatever the server says; with 403 they show this message.
        // This server has no OAuth: its token is static (--token-file).
        say("warn", "http_refused", { status: 403, method: req.method, token: req.headers.authorization ? "wrong" : "missing" });
        return sendJsonError(res, 403, -32000, verdict.message, { "www-authenticate": 'Bearer realm="codex-bridge", error="invalid_token", error_description="missing or wrong bearer token"' });
      }
      return sendJsonError(res, verdict.status, -32000, verdict.message);
    }

    const sessionHeader = req.headers["mcp-session-id"];
    // An empty header is no session id.
    const sessionId = (Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader) ?? "";

    let body: unknown;
    let requestId: string | number | null = null;
    if (req.method === "POST") {
      let raw: Buffer;
      try {
        raw = await readBody(req);
      } catch (err) {
        if (err instanceof BodyTooLarge) return sendJsonError(res, 413, -32000, `Payload too large: the limit is ${MAX_BODY_BYTES} bytes`);
        return sendJsonError(res, 400, -32700, "Parse error: the body could not be read");
      }
      // Malformed JSON-RPC gets its JSON-RPC error here (the SDK would call everything -32700 and accept batches).
      const checked = checkInboundText(raw.toString("utf8"));
      if (!checked.ok) return sendReply(res, 400, errorReply(checked.id, checked.code, checked.message));
      body = checked.message;
      if ("id" in checked.message && "method" in checked.message) requestId = checked.message.id;
      if (checked.alias) {
        // An id the SDK cannot carry (1.5): it sees a same-length stand-in, the client reads its own id back.
        const surrogate = sameLengthSurrogate(checked.alias.original);
        body = { ...checked.message, id: surrogate };
        requestId = checked.alias.original;
        restoreIdInResponse(res, surrogate, checked.alias.original);
      }
    }

    if (sessionId) {
      const use = sessions.use(sessionId);
      if (!use) return sendJsonError(res, 404, -32001, "Session not found: initialize a new session");
      res.once("close", use.done);
      return use.session.transport.handleRequest(req, res, body);
    }
    if (req.method === "POST" && isInitializeRequest(body)) {
      const release = sessions.reserve((idleMs) => say("info", "http_session_evicted", { sessions: limits.maxSessions, idle_s: Math.round(idleMs / 1000) }));
      if (!release) {
        say("warn", "http_sessions_full", { sessions: limits.maxSessions });
        return sendReply(
          res,
          503,
          errorReply(
            requestId,
            -32000,
            `Server busy: ${limits.maxSessions} MCP sessions are open, the most this bridge keeps, and every one has a request in flight; ` +
              `retry when one ends, or close one (DELETE ${MCP_PATH})`,
          ),
          { "retry-after": String(Math.min(60, Math.max(1, Math.ceil(limits.idleMs / 1000)))) },
        );
      }
      try {
        const transport = await newSession();
        await transport.handleRequest(req, res, body);
        // A rejected initialize leaves no session behind.
        if (!transport.sessionId || !sessions.has(transport.sessionId)) await transport.close().catch(() => {});
      } finally {
        release();
      }
      return;
    }
    // Streamable HTTP: a server that assigns session ids answers 400 to anything but initialize without one.
    if (req.method === "POST" || req.method === "GET" || req.method === "DELETE") {
      return sendReply(res, 400, errorReply(requestId, -32000, "Bad Request: Mcp-Session-Id header is required (send initialize first to get one)"));
    }
    return sendJsonError(res, 405, -32000, "Method not allowed", { allow: "GET, POST, DELETE" });
  };

  const http: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      say("error", "http_request_failed", { error: err instanceof Error ? err.constructor.name : "unknown" });
      sendJsonError(res, 500, -32603, "Internal error");
    });
  });
  // A codex_wait holds its request up to its timeout; the defaults (300 s request timeout) are enough, but
  // an idle keep-alive socket must not keep the process alive at shutdown.
  http.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(opts.port, opts.bindAddress, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const address = http.address();
  const port = typeof address === "object" && address ? address.port : opts.port;
  allowedHosts = allowedHostHeaders({ bindAddress: opts.bindAddress, host: opts.host, port });

  sessions.startSweeping((n) => say("info", "http_sessions_closed", { sessions: n, idle_s: Math.round(limits.idleMs / 1000) }));

  const urlHost = isIP(opts.bindAddress) === 6 ? `[${opts.bindAddress}]` : opts.bindAddress;
  return {
    url: `http://${urlHost}:${port}${MCP_PATH}`,
    port,
    sessionCount: () => sessions.size,
    async close() {
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      await sessions.closeAll();
      http.closeAllConnections?.();
      await closed;
    },
  };
}

/** `serve --http`: returns -1 while serving (the process stays up until a signal), or an exit code on error. */
export async function runHttp(platform: Platform, args: string[], logger: Logger): Promise<number> {
  const log = logger.log;
  let opts: HttpOptions;
  let token: string | null = null;
  try {
    opts = parseHttpArgs(args);
    if (opts.tokenFile) token = readTokenFile(opts.tokenFile, (msg) => logger.say("warn", "token_file_mode", msg));
  } catch (err) {
    if (err instanceof HttpArgError) {
      logger.say("error", "usage", err.message);
      return 2;
    }
    throw err;
  }
  if (!isLoopbackAddress(opts.host)) {
    logger.say("warn", "non_loopback", `WARNING: listening on non-loopback address ${opts.host} (--allow-non-loopback)${token ? "" : " WITHOUT a token: anyone who can reach it can run Codex"}`);
  }

  const bridge = await assembleForServe(platform, logger);
  if (!bridge) return 1;
  installCrashGuard(logger, () => bridge.store.path);
  let served: HttpBridgeServer;
  try {
    served = await startHttpServer(bridge, { ...opts, token });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    logger.say(
      "error",
      "listen_failed",
      code === "EADDRINUSE"
        ? `--http ${opts.host}:${opts.port}: the port is already in use (another codex-bridge?); pick another port`
        : `--http ${opts.host}:${opts.port}: cannot listen (${code ?? (err instanceof Error ? err.message : String(err))})`,
    );
    await bridge.close().catch(() => {});
    return 1;
  }

  const shutdown = shutdownFor(bridge, log, () => served.close().catch(() => {}));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGHUP", () => void shutdown("SIGHUP"));

  const projects = Object.keys(bridge.config.config.projects).length;
  logger.announce("ready", { url: served.url, version: BUILD_INFO.version, build: BUILD_INFO.fingerprint.slice(0, 12), projects, token: token ? "bearer_token_required" : "none", pid: process.pid });
  return -1;
}
