// The managed `codex app-server` child: started on first use, restarted on demand, its exit reported to the tasks.
import type { Platform } from "../../platform/types.ts";
import { AppServerClient, type InitializeInfo } from "../codex/client.ts";
import type { ServerNotification, ServerRequest } from "../codex/rpc-messages.ts";

export interface RuntimeOptions {
  platform: Platform;
  codexBin: string | null;
  env: Record<string, string>;
  version: string;
  requestTimeoutMs?: number;
}

export interface RuntimeHandlers {
  notification(client: AppServerClient, n: ServerNotification): void;
  request(client: AppServerClient, r: ServerRequest): void;
  exit(client: AppServerClient): void;
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

  constructor(private readonly opts: RuntimeOptions, private readonly handlers: RuntimeHandlers) {}

  get current(): AppServerClient | null {
    return this.client && this.client.state !== "exited" ? this.client : null;
  }

  get codexBin(): string | null {
    return this.opts.codexBin;
  }

  async ensure(): Promise<AppServerClient> {
    if (this.current?.state === "ready") return this.current;
    if (this.starting) return this.starting;
    if (!this.opts.codexBin) throw new Error("Codex was not found: install @openai/codex or set CODEX_BIN to the native codex executable.");
    const client = new AppServerClient({
      platform: this.opts.platform,
      codexBin: this.opts.codexBin,
      env: this.opts.env,
      clientVersion: this.opts.version,
      requestTimeoutMs: this.opts.requestTimeoutMs,
    });
    client.onNotification((n) => this.handlers.notification(client, n));
    client.onServerRequest((r) => this.handlers.request(client, r));
    client.onExit((e) => {
      this.lastExit = { ...e, at: new Date().toISOString(), stderrTail: wholeLinesTail(client.diagnostics().stderrTail, 2000) };
      if (this.client === client) this.loadedThreads.clear();
      this.handlers.exit(client);
    });
    this.starting = (async () => {
      try {
        if (this.client) this.restarts++;
        this.client = client;
        this.loadedThreads.clear();
        await client.start();
        return client;
      } catch (err) {
        client.kill("SIGKILL");
        throw err;
      } finally {
        this.starting = null;
      }
    })();
    return this.starting;
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
