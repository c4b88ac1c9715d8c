// The JSONL client of one `codex app-server` child: ids, timeouts, server requests, exit. A lost acknowledgement of
// a mutating request becomes UNKNOWN, never a retry.
import { randomUUID } from "node:crypto";
import type { ChildExit, ChildHandle, Platform } from "../../platform/types.ts";
import { INITIALIZE, INITIALIZED, MUTATING_METHODS } from "./protocol/session.ts";
import { ConnectionClosedError, RequestTimeoutError, RpcError, UnknownOutcomeError, UnsendableError } from "./errors.ts";
import { LineSplitter } from "./jsonl.ts";
import { IncomingMessage, type RpcId, type ServerNotification, type ServerRequest } from "./rpc-messages.ts";

export interface AppServerOptions {
  platform: Platform;
  codexBin: string;
  env: Record<string, string>;
  cwd?: string;
  clientVersion: string;
  /** Acknowledgement deadline for ordinary requests. */
  requestTimeoutMs?: number;
  maxLineChars?: number;
  maxStderrChars?: number;
}

export interface InitializeInfo {
  userAgent: string;
  codexHome: string | null;
  platformOs: string | null;
}

interface Pending {
  method: string;
  mutating: boolean;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

export type ClientState = "starting" | "ready" | "exited";


/**
 * One `codex app-server` child spoken to over JSONL. Correlates ids (responses may come out of order),
 * hands server requests over with their original typed ids, and turns a lost acknowledgement of a mutating
 * request into UNKNOWN instead of a retry.
 */
export class AppServerClient {
  readonly connectionId = randomUUID();
  state: ClientState = "starting";
  exit: ChildExit | null = null;
  initializeInfo: InitializeInfo | null = null;
  readonly startedAt = Date.now();

  private child: ChildHandle | null = null;
  private nextId = 1;
  private readonly pending = new Map<RpcId, Pending>();
  private stderrTail = "";
  private droppedLines = 0;
  private readonly notificationListeners = new Set<(n: ServerNotification) => void>();
  private readonly requestListeners = new Set<(r: ServerRequest) => void>();
  private readonly exitListeners = new Set<(e: ChildExit) => void>();

  constructor(private readonly opts: AppServerOptions) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  onNotification(cb: (n: ServerNotification) => void): () => void {
    this.notificationListeners.add(cb);
    return () => this.notificationListeners.delete(cb);
  }

  onServerRequest(cb: (r: ServerRequest) => void): () => void {
    this.requestListeners.add(cb);
    return () => this.requestListeners.delete(cb);
  }

  onExit(cb: (e: ChildExit) => void): () => void {
    this.exitListeners.add(cb);
    return () => this.exitListeners.delete(cb);
  }

  diagnostics(): { stderrTail: string; droppedLines: number; pendingRequests: number } {
    return { stderrTail: this.stderrTail, droppedLines: this.droppedLines, pendingRequests: this.pending.size };
  }

  async start(): Promise<InitializeInfo> {
    const child = this.opts.platform.spawn(this.opts.codexBin, ["app-server"], { env: this.opts.env, cwd: this.opts.cwd });
    this.child = child;
    const splitter = new LineSplitter(
      this.opts.maxLineChars ?? 16 * 1024 * 1024,
      (line) => this.handleLine(line),
      () => {
        this.droppedLines++;
      },
    );
    child.onStdout((chunk) => splitter.push(chunk));
    child.onStderr((chunk) => {
      const cap = this.opts.maxStderrChars ?? 16_000;
      this.stderrTail = (this.stderrTail + chunk).slice(-cap);
    });
    child.onExit((e) => this.handleExit(e));
    const result = await this.request(INITIALIZE, {
      clientInfo: { name: "codex-bridge", title: "codex-bridge", version: this.opts.clientVersion },
      capabilities: { experimentalApi: true },
    });
    const r = (result ?? {}) as Record<string, unknown>;
    this.initializeInfo = {
      userAgent: typeof r.userAgent === "string" ? r.userAgent : "",
      codexHome: typeof r.codexHome === "string" ? r.codexHome : null,
      platformOs: typeof r.platformOs === "string" ? r.platformOs : null,
    };
    await this.notify(INITIALIZED);
    this.state = "ready";
    return this.initializeInfo;
  }

  /**
   * Sends a request. For mutating methods a lost acknowledgement rejects with UnknownOutcomeError, and the caller
   * must not send it again.
   */
  request<T = unknown>(method: string, params: unknown = {}, opts: { timeoutMs?: number } = {}): Promise<T> {
    const child = this.child;
    if (!child || this.state === "exited") {
      return Promise.reject(new ConnectionClosedError(method, this.exitDescription()));
    }
    const id = this.nextId++;
    let line: string;
    try {
      line = encodeLine(method, { id, method, params });
    } catch (err) {
      return Promise.reject(err);
    }
    const mutating = MUTATING_METHODS.has(method);
    const timeoutMs = opts.timeoutMs ?? this.opts.requestTimeoutMs ?? 30_000;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(mutating ? new UnknownOutcomeError(method, timeoutMs) : new RequestTimeoutError(method, timeoutMs));
      }, timeoutMs);
      this.pending.set(id, { method, mutating, resolve: resolve as (v: unknown) => void, reject, timer });
      child.write(line).catch((err: unknown) => {
        const p = this.pending.get(id);
        if (!p) return;
        clearTimeout(p.timer);
        this.pending.delete(id);
        reject(new ConnectionClosedError(method, `write failed: ${String(err)}`));
      });
    });
  }

  async notify(method: string, params?: unknown): Promise<void> {
    if (!this.child || this.state === "exited") throw new ConnectionClosedError(method, this.exitDescription());
    await this.child.write(encodeLine(method, params === undefined ? { method } : { method, params }));
  }

  /** Answers a server request with its original id. Resolves once written to the pipe. */
  async respond(id: RpcId, result: unknown): Promise<void> {
    if (!this.child || this.state === "exited") throw new ConnectionClosedError("response", this.exitDescription());
    await this.child.write(encodeLine("response", { id, result }));
  }

  async respondError(id: RpcId, code: number, message: string): Promise<void> {
    if (!this.child || this.state === "exited") throw new ConnectionClosedError("response", this.exitDescription());
    await this.child.write(encodeLine("response", { id, error: { code, message } }));
  }

  /** Closes stdin (the app-server exits cleanly on EOF), then kills the whole process group if it lingers. */
  async close(graceMs = 500): Promise<ChildExit | null> {
    const child = this.child;
    if (!child) return null;
    if (this.state !== "exited") {
      try {
        child.endStdin();
      } catch {
        /* already closed */
      }
      const timer = setTimeout(() => child.killTree("SIGKILL"), graceMs);
      const exit = await child.exited;
      clearTimeout(timer);
      return exit;
    }
    return this.exit;
  }

  kill(signal: "SIGTERM" | "SIGKILL" = "SIGKILL"): void {
    this.child?.killTree(signal);
  }

  private exitDescription(): string {
    if (!this.exit) return this.child ? "not ready" : "not started";
    return this.exit.signal ? `exited on ${this.exit.signal}` : `exited with code ${this.exit.code}`;
  }

  private handleLine(line: string): void {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.droppedLines++;
      return;
    }
    const parsed = IncomingMessage.safeParse(json);
    if (!parsed.success) {
      this.droppedLines++;
      return;
    }
    const msg = parsed.data;
    switch (msg.type) {
      case "result":
      case "error": {
        const p = this.pending.get(msg.id);
        if (!p) return; // late answer to a timed-out request: the outcome stays UNKNOWN as reported
        clearTimeout(p.timer);
        this.pending.delete(msg.id);
        if (msg.type === "result") p.resolve(msg.result);
        else p.reject(new RpcError(p.method, msg.error));
        return;
      }
      case "notification":
        for (const l of this.notificationListeners) l({ method: msg.method, params: msg.params });
        return;
      case "request":
        for (const l of this.requestListeners) l({ id: msg.id, method: msg.method, params: msg.params });
        return;
    }
  }

  private handleExit(e: ChildExit): void {
    this.state = "exited";
    this.exit = e;
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new ConnectionClosedError(p.method, this.exitDescription()));
    }
    this.pending.clear();
    for (const l of this.exitListeners) l(e);
  }
}

// JSON.stringify writes a lone surrogate as a \uD8xx-\uDFxx escape (a well-formed pair stays raw), and the app-server
// drops such a line without an answer. An escape preceded by an even run of backslashes is one; odd is quoted text.
const LONE_SURROGATE_ESCAPE = /(?<!\\)(?:\\\\)*\\ud[89a-f][0-9a-f]{2}/i;

/** One JSONL line for the app-server; throws UnsendableError rather than write a line it would silently drop. */
function encodeLine(method: string, msg: unknown): string {
  const json = JSON.stringify(msg);
  if (json.includes("\\u") && LONE_SURROGATE_ESCAPE.test(json)) throw new UnsendableError(method);
  return json + "\n";
}
