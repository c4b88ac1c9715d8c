// The flags of `serve --http`, its bearer-token file and the per-request guards (Host, Origin, token): everything
// decided about a request before the MCP transport sees it.
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";

export const MCP_PATH = "/mcp";

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
  /** How long one codex_wait holds, and its default (--max-wait-seconds). Default: the config's max_wait_seconds. */
  maxWaitSeconds?: number;
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
  const limits: { sessionIdleMs?: number; maxSessions?: number; maxWaitSeconds?: number } = {};
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
      case "--max-wait-seconds":
        limits.maxWaitSeconds = positiveInt(flag, value());
        if (limits.maxWaitSeconds > 300) throw new HttpArgError(`--max-wait-seconds expects at most 300, got "${limits.maxWaitSeconds}"`);
        break;
      default:
        throw new HttpArgError(
          `unknown option "${a}" for serve --http (options: --http HOST:PORT, --token-file FILE, --allow-non-loopback, --session-idle-seconds SECONDS, --max-sessions COUNT, --max-wait-seconds SECONDS)`,
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

/** Fixed-length digest of a token, so comparing two says nothing about either. */
export const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

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
    if (!m || !timingSafeEqual(digest(m[1]), tokenDigest)) return { ok: false, status: 401, message: `Unauthorized: ${headers.authorization ? "wrong" : "missing"} bearer token: send "Authorization: Bearer <the contents of the server's --token-file>"` };
  }
  return { ok: true };
}
