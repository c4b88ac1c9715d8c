// `codex-bridge serve --http HOST:PORT`: the MCP server over Streamable HTTP on loopback, for
// `tunnel-client --mcp.server-url` and local clients. One bridge (one database owner, one Codex app-server)
// serves every session; each session gets its own McpServer so concurrent conversations are not serialized.
import { connectMcp } from "../mcp/delivery.ts";
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, SessionRegistry } from "../mcp/http-sessions.ts";
import { checkInboundText, errorReply, type JsonRpcErrorReply } from "../mcp/jsonrpc-inbound.ts";
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Platform } from "../../platform/types.ts";
import { BUILD_INFO } from "../build-info.ts";
import { assembleForServe, type Bridge } from "./assemble.ts";
import { mcpServerFor } from "./serve.ts";

const log = (msg: string) => process.stderr.write(`codex-bridge: ${msg}\n`);

export const MCP_PATH = "/mcp";
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpOptions {
  /** Host as the user wrote it, without brackets (e.g. "127.0.0.1", "::1", "localhost"). */
  host: string;
  /** Address actually passed to listen(). */
  bindAddress: string;
  port: number;
  allowNonLoopback: boolean;
  tokenFile: string | null;
  /** Idle sessions are closed after this long (--session-idle-seconds). Default DEFAULT_SESSION_IDLE_MS. */
  sessionIdleMs?: number;
  /** Live sessions at most (--max-sessions). Default DEFAULT_MAX_SESSIONS. */
  maxSessions?: number;
}

export class HttpArgError extends Error {}

export function isLoopbackAddress(host: string): boolean {
  const h = host.toLowerCase();
  if (h === "localhost") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) return h === "::1" || h === "0:0:0:0:0:0:0:1" || /^::ffff:127\./.test(h);
  return false;
}

function splitHostPort(value: string): { host: string; port: string } {
  const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(value);
  if (bracketed) return { host: bracketed[1], port: bracketed[2] };
  const i = value.lastIndexOf(":");
  if (i <= 0 || value.indexOf(":") !== i) {
    throw new HttpArgError(`--http expects HOST:PORT (e.g. 127.0.0.1:8765, or [::1]:8765 for IPv6), got "${value}"`);
  }
  return { host: value.slice(0, i), port: value.slice(i + 1) };
}

/** Parses the serve flags that matter for HTTP; anything unknown is an error naming the flag. */
export function parseHttpArgs(args: string[]): HttpOptions {
  let http: string | null = null;
  let tokenFile: string | null = null;
  let allowNonLoopback = false;
  const limits: { sessionIdleMs?: number; maxSessions?: number } = {};
  const positiveInt = (flag: string, v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < 1 || !Number.isSafeInteger(Number(v))) throw new HttpArgError(`${flag} expects a whole number of at least 1, got "${v}"`);
    return Number(v);
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const [flag, inline] = a.startsWith("--") && a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    const value = (): string => {
      const v = inline ?? args[++i];
      if (v === undefined || v === "" || (inline === undefined && v.startsWith("--"))) throw new HttpArgError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case "--http":
        http = value();
        break;
      case "--token-file":
        tokenFile = value();
        break;
      case "--allow-non-loopback":
        if (inline !== undefined) throw new HttpArgError(`--allow-non-loopback takes no value`);
        allowNonLoopback = true;
        break;
      case "--session-idle-seconds":
        limits.sessionIdleMs = positiveInt(flag, value()) * 1000;
        break;
      case "--max-sessions":
        limits.maxSessions = positiveInt(flag, value());
        break;
      default:
        throw new HttpArgError(
          `unknown option "${a}" for serve --http (options: --http HOST:PORT, --token-file FILE, --allow-non-loopback, --session-idle-seconds SECONDS, --max-sessions COUNT)`,
        );
    }
  }
  if (http === null) throw new HttpArgError(`--http needs a value`);
  const { host, port: portText } = splitHostPort(http);
  if (!/^\d+$/.test(portText) || Number(portText) > 65535) {
    throw new HttpArgError(`--http port must be a number from 0 to 65535 (0 picks a free port), got "${portText}"`);
  }
  if (host.toLowerCase() !== "localhost" && isIP(host) === 0) {
    throw new HttpArgError(`--http host must be an IP address or "localhost", got "${host}"`);
  }
  if (!isLoopbackAddress(host) && !allowNonLoopback) {
    throw new HttpArgError(
      `--http ${http}: "${host}" is not a loopback address; the bridge drives Codex on this machine and listens on loopback only ` +
        `(use 127.0.0.1). Pass --allow-non-loopback (with --token-file) only if you really mean to expose it.`,
    );
  }
  // "localhost" may resolve to ::1 or 127.0.0.1; pin one so the printed URL is the one that works.
  const bindAddress = host.toLowerCase() === "localhost" ? "127.0.0.1" : host;
  return { host, bindAddress, port: Number(portText), allowNonLoopback, tokenFile, ...limits };
}

/** The trimmed token, or an error naming --token-file. Warns (never prints the token) when others can read it. */
export function readTokenFile(path: string, warn: (msg: string) => void): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new HttpArgError(`--token-file ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const token = text.trim();
  if (!token) throw new HttpArgError(`--token-file ${path}: the file is empty; put a long random token in it (e.g. openssl rand -hex 32)`);
  if (/\s/.test(token)) throw new HttpArgError(`--token-file ${path}: the token must be one line without spaces`);
  try {
    if (process.platform !== "win32" && (statSync(path).mode & 0o077) !== 0) {
      warn(`--token-file ${path} is readable by other users; consider chmod 600`);
    }
  } catch {
    // the read above succeeded; a failing stat only loses the warning
  }
  return token;
}

const hostKey = (host: string, port: number) => (isIP(host) === 6 ? `[${host.toLowerCase()}]:${port}` : `${host.toLowerCase()}:${port}`);

/** Host header values a legitimate client can send; anything else is a DNS-rebinding attempt (or a mistake). */
export function allowedHostHeaders(opts: { bindAddress: string; host: string; port: number }): Set<string> {
  const names = new Set<string>(["localhost", opts.host, opts.bindAddress]);
  if (isLoopbackAddress(opts.bindAddress)) names.add("127.0.0.1").add("::1");
  if (opts.bindAddress === "0.0.0.0" || opts.bindAddress === "::") {
    // A wildcard bind is reached through the machine's own addresses, never through a name an attacker controls.
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) names.add(a.address.replace(/%.*$/, ""));
  }
  return new Set([...names].map((n) => hostKey(n, opts.port)));
}

export function isLoopbackOrigin(origin: string): boolean {
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return false;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return false;
  return isLoopbackAddress(u.hostname.replace(/^\[|\]$/g, ""));
}

export type GuardVerdict = { ok: true } | { ok: false; status: 401 | 403; message: string };

/** Host, Origin and bearer checks, in that order, before any MCP handling. */
export function checkRequest(
  headers: IncomingMessage["headers"],
  allowedHosts: Set<string>,
  tokenDigest: Buffer | null,
): GuardVerdict {
  const host = (headers.host ?? "").toLowerCase();
  if (!allowedHosts.has(host)) return { ok: false, status: 403, message: `Forbidden: Host header "${host}" is not this server's address` };
  const origin = headers.origin;
  if (origin !== undefined && !isLoopbackOrigin(origin)) return { ok: false, status: 403, message: `Forbidden: Origin "${origin}" is not a loopback origin` };
  if (tokenDigest) {
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(headers.authorization ?? "");
    // Compare fixed-length digests so the comparison time says nothing about the token.
    if (!m || !timingSafeEqual(digest(m[1]), tokenDigest)) return { ok: false, status: 401, message: "Unauthorized: missing or wrong bearer token" };
  }
  return { ok: true };
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

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
  opts: HttpOptions & { token: string | null; log?: (msg: string) => void },
): Promise<HttpBridgeServer> {
  const say = opts.log ?? log;
  const limits = { idleMs: opts.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS, maxSessions: opts.maxSessions ?? DEFAULT_MAX_SESSIONS };
  const sessions = new SessionRegistry<Session>(limits);
  const tokenDigest = opts.token ? digest(opts.token) : null;
  let allowedHosts = new Set<string>();

  const newSession = async (): Promise<StreamableHTTPServerTransport> => {
    const server = mcpServerFor(bridge);
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
    const verdict = checkRequest(req.headers, allowedHosts, tokenDigest);
    if (!verdict.ok) {
      if (verdict.status === 403) say(`refused ${req.method} from Host "${req.headers.host ?? ""}"${req.headers.origin ? ` Origin "${req.headers.origin}"` : ""}`);
      return sendJsonError(res, verdict.status, -32000, verdict.message, verdict.status === 401 ? { "www-authenticate": 'Bearer realm="codex-bridge"' } : {});
    }
    const path = (req.url ?? "/").split("?")[0];
    if (path !== MCP_PATH) return sendJsonError(res, 404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`);

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
    }

    if (sessionId) {
      const use = sessions.use(sessionId);
      if (!use) return sendJsonError(res, 404, -32001, "Session not found: initialize a new session");
      res.once("close", use.done);
      return use.session.transport.handleRequest(req, res, body);
    }
    if (req.method === "POST" && isInitializeRequest(body)) {
      const release = sessions.reserve();
      if (!release) {
        say(`refused an initialize: ${limits.maxSessions} sessions are open`);
        return sendReply(
          res,
          503,
          errorReply(
            requestId,
            -32000,
            `Server busy: ${limits.maxSessions} MCP sessions are open, the most this bridge keeps; close one (DELETE ${MCP_PATH}) ` +
              `or retry once idle ones expire (after ${Math.round(limits.idleMs / 1000)} s unused)`,
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
      say(`request failed: ${err instanceof Error ? err.message : String(err)}`);
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

  sessions.startSweeping((n) => say(`closed ${n} idle session(s) (unused for ${Math.round(limits.idleMs / 1000)} s)`));

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
export async function runHttp(platform: Platform, args: string[]): Promise<number> {
  let opts: HttpOptions;
  let token: string | null = null;
  try {
    opts = parseHttpArgs(args);
    if (opts.tokenFile) token = readTokenFile(opts.tokenFile, log);
  } catch (err) {
    if (err instanceof HttpArgError) {
      log(err.message);
      return 2;
    }
    throw err;
  }
  if (!isLoopbackAddress(opts.host)) {
    log(`WARNING: listening on non-loopback address ${opts.host} (--allow-non-loopback)${token ? "" : " WITHOUT a token: anyone who can reach it can run Codex"}`);
  }

  const bridge = await assembleForServe(platform, log);
  if (!bridge) return 1;
  let served: HttpBridgeServer;
  try {
    served = await startHttpServer(bridge, { ...opts, token });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    log(
      code === "EADDRINUSE"
        ? `--http ${opts.host}:${opts.port}: the port is already in use (another codex-bridge?); pick another port`
        : `--http ${opts.host}:${opts.port}: cannot listen (${code ?? (err instanceof Error ? err.message : String(err))})`,
    );
    await bridge.close().catch(() => {});
    return 1;
  }

  let stopping = false;
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log(`stopping (${why})`);
    const hard = setTimeout(() => process.exit(0), 1500);
    try {
      await served.close().catch(() => {});
      await bridge.close();
    } finally {
      clearTimeout(hard);
      process.exit(0);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGHUP", () => void shutdown("SIGHUP"));

  const projects = Object.keys(bridge.config.config.projects).length;
  log(
    `ready: ${served.url} (${BUILD_INFO.version}, ${BUILD_INFO.fingerprint.slice(0, 12)}), state ${bridge.store.path}, ` +
      `${projects} project(s), ${token ? "bearer token required" : "no token"}`,
  );
  return -1;
}
