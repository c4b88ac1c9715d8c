// The managed `codex app-server` child: started on first use, restarted on demand, its exit reported to the tasks.
import type { Platform } from "../../platform/types.ts";
import { AppServerClient, type InitializeInfo, type LateResponse } from "../codex/client.ts";
import { CodexMissingError } from "../codex/errors.ts";
import { SharedServerError, sharedServerPid, sharedSocketPath, startSharedServer } from "../codex/shared-daemon.ts";
import type { ServerNotification, ServerRequest } from "../codex/rpc-messages.ts";
import { silentLog, type EventLog } from "../log.ts";
import { checkProtocol, type ProtocolStatus } from "./protocol-check.ts";
import { LivenessWatch, type LivenessOptions } from "./liveness.ts";

export interface RuntimeOptions {
  platform: Platform;
  codexBin: string | null;
  env: Record<string, string>;
  version: string;
  requestTimeoutMs?: number;
  /** The Codex versions trusted without the start-up protocol check (default: the verified-<version> modules). */
  verifiedVersions?: readonly string[];
  log?: EventLog;
  /** When an app-server counts as not answering, and when it is replaced by itself. */
  liveness?: LivenessOptions;
  /** Attach to the Codex home's shared app-server instead of spawning one (profile `runtime = "shared"`). */
  shared?: { home: string; start: boolean };
}

/** Which shared server a `shared` runtime is attached to, for codex_health and doctor. */
export interface SharedServerInfo {
  socket: string;
  pid: number | null;
  /** "bridge" when this bridge ran `codex app-server daemon start` for it, else "already running". */
  started_by: "bridge" | "already running";
  attached_at: string;
}

export interface RuntimeHandlers {
  notification(client: AppServerClient, n: ServerNotification): void;
  request(client: AppServerClient, r: ServerRequest): void;
  exit(client: AppServerClient): void;
  /** A late answer to a mutating request already reported UNKNOWN. */
  late?(client: AppServerClient, r: LateResponse): void;
  /** The app-server began or stopped counting as not answering. */
  silence?(client: AppServerClient): void;
}

/**
 * Owns the one managed `codex app-server` child. Started on first use; after it exits the next use starts a new one
 * (a new connection, on which threads must be resumed before use).
 */
export class CodexRuntime {
  private client: AppServerClient | null = null;
  private starting: Promise<AppServerClient> | null = null;
  /** Threads loaded on the current connection: resume only what the app-server does not have. */
  readonly loadedThreads = new Set<string>();
  restarts = 0;
  lastExit: { code: number | null; signal: string | null; at: string; stderrTail: string } | null = null;
  /** What the current app-server's protocol check found; null before the first start. */
  protocol: ProtocolStatus | null = null;
  private watch: LivenessWatch | null = null;
  /** The shared server attached to (shared runtimes only); null before the first attach. */
  sharedServer: SharedServerInfo | null = null;

  constructor(private readonly opts: RuntimeOptions, private readonly handlers: RuntimeHandlers) {}

  get current(): AppServerClient | null {
    return this.client && this.client.state !== "exited" ? this.client : null;
  }

  get codexBin(): string | null {
    return this.opts.codexBin;
  }

  /** Why bridge_web_tool cannot be offered on new threads (this Codex refused dynamic tools), or null. */
  get relayRefused(): string | null {
    return this.protocol?.relayRefused ?? null;
  }

  async ensure(): Promise<AppServerClient> {
    if (this.current?.state === "ready") return this.current;
    if (this.starting) return this.starting;
    if (!this.opts.codexBin) throw new CodexMissingError("Codex was not found: install @openai/codex or set CODEX_BIN to the native codex executable.");
    const log = this.opts.log ?? silentLog;
    const client = new AppServerClient({
      platform: this.opts.platform,
      codexBin: this.opts.codexBin,
      env: this.opts.env,
      clientVersion: this.opts.version,
      requestTimeoutMs: this.opts.requestTimeoutMs,
      ...(this.opts.shared ? { socketPath: sharedSocketPath(this.opts.shared.home) } : {}),
    });
    client.onNotification((n) => this.handlers.notification(client, n));
    client.onServerRequest((r) => this.handlers.request(client, r));
    client.onStderrError = (source) => log("debug", "app_server_error_line", { pid: client.pid, source });
    client.onLateResponse((r) => this.handlers.late?.(client, r));
    client.onExit((e) => {
      const diag = client.diagnostics();
      this.lastExit = { ...e, at: new Date().toISOString(), stderrTail: wholeLinesTail(diag.stderrTail, 2000) };
      const stderr = diag.stderr;
      log(client.closeRequested ? "info" : "error", "app_server_exited", {
        pid: client.pid,
        code: e.code,
        signal: e.signal,
        stderr_lines: stderr.lines,
        stderr_warnings: stderr.warnings,
        stderr_errors: stderr.errors,
        last_error: stderr.last_error,
      });
      if (this.client === client) this.loadedThreads.clear();
      this.handlers.exit(client);
    });
    this.starting = (async () => {
      try {
        if (this.client) this.restarts++;
        this.client = client;
        this.loadedThreads.clear();
        this.protocol = null;
        if (this.opts.shared) await this.attach(client, this.opts.shared);
        else await client.start();
        this.protocol = await checkProtocol(client, this.opts.verifiedVersions);
        this.watch = new LivenessWatch(client, this.opts.liveness ?? {}, log, (why) => this.forceRestart(why), () => this.handlers.silence?.(client));
        this.watch.start();
        log("info", this.opts.shared ? "app_server_attached" : "app_server_started", { pid: client.pid ?? this.sharedServer?.pid ?? null, codex: this.protocol.version, verified: this.protocol.verified, relay: this.protocol.relayRefused ? "refused" : "ok" });
        return client;
      } catch (err) {
        // A child that failed to start or failed the protocol check is never handed out, even before it has exited.
        if (this.client === client) this.client = null;
        // Waited for, so its exit is handled before anyone (a closing bridge) can pull the store from under it.
        await client.close(100).catch(() => client.kill("SIGKILL"));
        throw err;
      } finally {
        this.starting = null;
      }
    })();
    return this.starting;
  }

  /** "shared" when this runtime attaches to the home's shared app-server, "spawn" when it runs its own child. */
  get mode(): "spawn" | "shared" {
    return this.opts.shared ? "shared" : "spawn";
  }

  /**
   * Connects to the shared server; when none listens and the profile allows it, starts it with
   * `codex app-server daemon start` first. Never stops it: it belongs to the person and their other Codex clients.
   */
  private async attach(client: AppServerClient, shared: { home: string; start: boolean }): Promise<void> {
    const socket = sharedSocketPath(shared.home);
    let startedBy: SharedServerInfo["started_by"] = "already running";
    try {
      await client.start();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code !== "ENOENT" && code !== "ECONNREFUSED") throw err;
      if (!shared.start) {
        throw new SharedServerError(
          `no shared Codex app-server is running for ${shared.home} (nothing listens on ${socket}): start it with \`codex app-server daemon start\` (or open Codex there), or set start_shared = true in the profile`,
        );
      }
      const answer = await startSharedServer(this.opts.platform, this.opts.codexBin!, this.opts.env);
      if (answer.status === "started") startedBy = "bridge";
      await client.start();
    }
    const pid = sharedServerPid(shared.home);
    // Re-attached to the same server this bridge started earlier: it is still the bridge's start.
    if (this.sharedServer?.started_by === "bridge" && this.sharedServer.pid === pid) startedBy = "bridge";
    this.sharedServer = { socket, pid, started_by: startedBy, attached_at: new Date().toISOString() };
  }

  info(): { state: string; pid: number | null; connectionId: string | null; initialize: InitializeInfo | null; restarts: number; uptimeMs: number | null } {
    const c = this.client;
    return {
      state: c ? c.state : "not_started",
      pid: c?.pid ?? null,
      connectionId: c?.connectionId ?? null,
      initialize: c?.initializeInfo ?? null,
      restarts: this.restarts,
      uptimeMs: c && c.state !== "exited" ? Date.now() - c.startedAt : null,
    };
  }

  /**
   * Kills the app-server (SIGKILL to its process group: a stopped or wedged one cannot refuse) and starts another;
   * a shared one is only disconnected and attached to again.
   * Its tasks end connection_lost, saying `why`; its UNKNOWN outcomes settle as lost (nothing can take effect now).
   */
  async forceRestart(why: string): Promise<AppServerClient> {
    const c = this.client;
    if (c && c.state !== "exited") {
      c.killedBecause = why;
      c.kill("SIGKILL");
      await c.whenExited();
    }
    if (!this.opts.shared) return this.ensure();
    // A shared server is the person's: only the connection was dropped, and a stopped server takes no new one.
    try {
      return await this.ensure();
    } catch (err) {
      throw new SharedServerError(
        `dropped the connection to the shared Codex app-server (pid ${this.sharedServer?.pid ?? "?"}), which the bridge never kills; ` +
          `it did not take a new one (${(err as Error).message}). The bridge attaches again on next use once it answers: ` +
          `resume it, or restart it with \`codex app-server daemon restart\``,
      );
    }
  }

  /** While the current app-server has not answered: "the app-server (pid N) has not answered for S s", else null. */
  silence(): string | null {
    const c = this.current;
    return c && c.unresponsiveSince !== null ? c.silenceText() : null;
  }

  /** How long an app-server may be silent before it counts as not answering, and before it is replaced by itself. */
  get livenessMs(): { unresponsive: number; restartAfter: number } {
    return { unresponsive: this.watch?.unresponsiveMs ?? 0, restartAfter: this.watch?.restartAfterMs ?? 0 };
  }

  async restart(): Promise<AppServerClient> {
    await this.stop();
    return this.ensure();
  }

  async stop(graceMs = 500): Promise<void> {
    const c = this.client;
    if (c && c.state !== "exited") await c.close(graceMs);
  }
}

/** The last `max` characters of `text`, from a line start: half a line could be half a secret no redactor knows. */
function wholeLinesTail(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(-max);
  const nl = cut.indexOf("\n");
  return nl >= 0 ? cut.slice(nl + 1) : "";
}
