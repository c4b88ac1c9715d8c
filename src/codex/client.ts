// The JSONL client of one `codex app-server` child: ids, timeouts, server requests, exit. A lost acknowledgement of
// a mutating request becomes UNKNOWN, never a retry.
import { randomUUID } from "node:crypto";
import type { ChildExit, ChildHandle, Platform } from "../../platform/types.ts";
import { initialize, INITIALIZED, MUTATING_METHODS } from "./protocol/session.ts";
import { AnswerNotReadError, ConnectionClosedError, NotSentError, RequestTimeoutError, RpcError, UnknownOutcomeError, UnsendableError } from "./errors.ts";
import { LineSplitter } from "./jsonl.ts";
import { StderrCounter, type StderrSummary } from "./stderr-summary.ts";
import { parseIncoming, type RpcId, type ServerNotification, type ServerRequest } from "./rpc-messages.ts";

export interface AppServerOptions {
  platform: Platform;
  codexBin: string;
  env: Record<string, string>;
  cwd?: string;
  clientVersion: string;
  /** Attach to the app-server listening on this Unix socket (Codex's shared one) instead of spawning a child. */
  socketPath?: string;
  /** Acknowledgement deadline for ordinary requests. */
  requestTimeoutMs?: number;
  maxLineChars?: number;
  maxStderrChars?: number;
  /** How long, and how many, timed-out mutating requests are remembered so a late answer can still be reported. */
  lateRetentionMs?: number;
  maxLateRequests?: number;
}

/** An answer that came after its mutating request had been declared UNKNOWN: evidence, never a cue to resend. */
export interface LateResponse {
  id: RpcId;
  method: string;
  params: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

export interface InitializeInfo {
  userAgent: string;
  codexHome: string | null;
  platformOs: string | null;
}

interface Pending {
  method: string;
  params: unknown;
  sentAt: number;
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
  /** Set when the bridge itself closed or killed the child: its exit is then no crash. */
  closeRequested = false;
  /** True while the bridge does not read what the app-server sends (its state database refuses writes). */
  readingPaused = false;
  /** When the app-server last wrote anything on stdout. */
  lastHeardAt = Date.now();
  /** Set while the app-server counts as not answering: since when it has been silent (see silentForMs). */
  unresponsiveSince: number | null = null;
  /** Called when an app-server that counted as not answering writes again. */
  onAnswering: (() => void) | null = null;
  /** Why the bridge killed it, when it did (a forced restart): said to the tasks it carried. */
  killedBecause: string | null = null;

  private child: ChildHandle | null = null;
  private nextId = 1;
  private readonly pending = new Map<RpcId, Pending>();
  /** Timed-out mutating requests, oldest first: id -> what was asked and when it timed out. */
  private readonly late = new Map<RpcId, { method: string; params: unknown; at: number }>();
  private readonly lateListeners = new Set<(r: LateResponse) => void>();
  private stderrTail = "";
  private readonly stderrCounter = new StderrCounter();
  /** Called with the source of each ERROR line on stderr (for the bridge's log; the text stays here). */
  onStderrError: ((source: string) => void) | null = null;
  private droppedLines = 0;
  private readonly notificationListeners = new Set<(n: ServerNotification) => void>();
  private readonly requestListeners = new Set<(r: ServerRequest) => void>();
  private readonly exitListeners = new Set<(e: ChildExit) => void>();

  constructor(private readonly opts: AppServerOptions) {}

  /** The spawned child's pid; null on a shared server's socket (that process is not ours). */
  get pid(): number | null {
    return this.opts.socketPath ? null : (this.child?.pid ?? null);
  }

  /** true when this is a connection to a shared app-server other clients may use too. */
  get shared(): boolean {
    return this.opts.socketPath !== undefined;
  }

  onNotification(cb: (n: ServerNotification) => void): () => void {
    this.notificationListeners.add(cb);
    return () => this.notificationListeners.delete(cb);
  }

  onServerRequest(cb: (r: ServerRequest) => void): () => void {
    this.requestListeners.add(cb);
    return () => this.requestListeners.delete(cb);
  }

  onLateResponse(cb: (r: LateResponse) => void): () => void {
    this.lateListeners.add(cb);
    return () => this.lateListeners.delete(cb);
  }

  onExit(cb: (e: ChildExit) => void): () => void {
    this.exitListeners.add(cb);
    return () => this.exitListeners.delete(cb);
  }

  diagnostics(): { stderrTail: string; stderr: StderrSummary; droppedLines: number; pendingRequests: number } {
    return { stderrTail: this.stderrTail, stderr: { ...this.stderrCounter.summary }, droppedLines: this.droppedLines, pendingRequests: this.pending.size };
  }

  async start(): Promise<InitializeInfo> {
    const child = this.opts.socketPath
      ? await this.opts.platform.connectSocket(this.opts.socketPath)
      : this.opts.platform.spawn(this.opts.codexBin, ["app-server"], { env: this.opts.env, cwd: this.opts.cwd });
    this.child = child;
    const splitter = new LineSplitter(
      this.opts.maxLineChars ?? 16 * 1024 * 1024,
      (line) => this.handleLine(line),
      () => {
        this.droppedLines++;
      },
    );
    child.onStdout((chunk) => {
      this.lastHeardAt = Date.now();
      if (this.unresponsiveSince !== null) {
        this.unresponsiveSince = null;
        this.onAnswering?.();
      }
      splitter.push(chunk);
    });
    child.onStderr((chunk) => {
      const cap = this.opts.maxStderrChars ?? 16_000;
      this.stderrTail = (this.stderrTail + chunk).slice(-cap);
      for (const source of this.stderrCounter.push(chunk)) this.onStderrError?.(source);
    });
    child.onExit((e) => this.handleExit(e));
    const r = (await initialize(this, {
      clientInfo: { name: "codex-bridge", title: "codex-bridge", version: this.opts.clientVersion },
      capabilities: { experimentalApi: true },
    })) ?? {};
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
    const refusal = this.notSendable();
    if (refusal) return Promise.reject(new NotSentError(method, refusal));
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
        if (mutating) this.rememberLate(id, method, params);
        reject(mutating ? new UnknownOutcomeError(method, timeoutMs, id) : new RequestTimeoutError(method, timeoutMs));
      }, timeoutMs);
      this.pending.set(id, { method, params, sentAt: Date.now(), mutating, resolve: resolve as (v: unknown) => void, reject, timer });
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
    this.closeRequested = true;
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

  /** Resolves once the exit was handled (every exit listener has run). */
  whenExited(): Promise<ChildExit | null> {
    if (this.state === "exited" || !this.child) return Promise.resolve(this.exit);
    return new Promise((resolve) => this.exitListeners.add((e) => resolve(e)));
  }

  /** Stops taking the app-server's output (what it sends waits in the pipe, unacknowledged) until resumeReading. */
  pauseReading(): void {
    this.readingPaused = true;
    this.child?.pauseStdout?.();
    // A read would wait out its whole deadline for an answer nobody reads; a mutating request keeps waiting (its
    // answer is read once reading resumes, or it becomes UNKNOWN as always).
    for (const [id, p] of this.pending) {
      if (p.mutating) continue;
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(new AnswerNotReadError(p.method, this.notSendable()!));
    }
  }

  resumeReading(): void {
    this.readingPaused = false;
    this.child?.resumeStdout?.();
  }

  kill(signal: "SIGTERM" | "SIGKILL" = "SIGKILL"): void {
    this.child?.killTree(signal);
  }

  /** Why a request would wait in vain now (its answer could not be read), or null. */
  private notSendable(): string | null {
    if (this.readingPaused) return "the bridge is not reading from the app-server while the state database refuses writes (codex_health says why; it resumes by itself)";
    if (this.unresponsiveSince !== null) return `${this.silenceText()}; codex_runtime restart with force=true replaces it`;
    return null;
  }

  /** "the app-server (pid N) has not answered for S s". */
  silenceText(now = Date.now()): string {
    const since = this.unresponsiveSince ?? now - this.silentForMs(now);
    return `the app-server (pid ${this.pid ?? "?"}) has not answered for ${Math.round((now - since) / 1000)} s`;
  }

  /**
   * How long the app-server has left the bridge waiting: since the later of its last output and the oldest request
   * still unanswered. 0 when nothing is awaited (a quiet app-server is not a silent one) or while reading is paused.
   */
  silentForMs(now = Date.now()): number {
    if (this.readingPaused || this.state !== "ready") return 0;
    let oldest = Infinity;
    for (const p of this.pending.values()) oldest = Math.min(oldest, p.sentAt);
    if (oldest === Infinity) return 0;
    return Math.max(0, now - Math.max(this.lastHeardAt, oldest));
  }

  /**
   * The app-server counts as not answering: what waits on it ends now (a read as timed out, a mutating request as
   * UNKNOWN, exactly as at its deadline), and nothing more is sent until it writes again or is replaced.
   */
  markUnresponsive(since: number): void {
    this.unresponsiveSince = since;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      const waited = Date.now() - p.sentAt;
      if (p.mutating) this.rememberLate(id, p.method, p.params);
      p.reject(p.mutating ? new UnknownOutcomeError(p.method, waited, id) : new RequestTimeoutError(p.method, waited));
    }
  }

  private exitDescription(): string {
    if (!this.exit) return this.child ? "not ready" : "not started";
    return this.exit.signal ? `exited on ${this.exit.signal}` : `exited with code ${this.exit.code}`;
  }

  private rememberLate(id: RpcId, method: string, params: unknown): void {
    this.late.set(id, { method, params, at: Date.now() });
    const max = this.opts.maxLateRequests ?? 64;
    while (this.late.size > max) this.late.delete(this.late.keys().next().value!);
  }

  /** A late answer to a remembered request goes to the listeners once; anything older or unknown is dropped. */
  private takeLate(id: RpcId): { method: string; params: unknown } | undefined {
    const horizon = Date.now() - (this.opts.lateRetentionMs ?? 15 * 60_000);
    for (const [k, v] of this.late) {
      if (v.at >= horizon) break;
      this.late.delete(k);
    }
    const hit = this.late.get(id);
    this.late.delete(id);
    return hit;
  }

  private handleLine(line: string): void {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.droppedLines++;
      return;
    }
    const parsed = parseIncoming(json);
    if (!parsed.success) {
      this.droppedLines++;
      return;
    }
    const msg = parsed.data;
    switch (msg.type) {
      case "result":
      case "error": {
        const p = this.pending.get(msg.id);
        if (!p) {
          // A late answer to a timed-out mutating request: handed over as evidence; a read's late answer is dropped.
          const late = this.takeLate(msg.id);
          if (!late) return;
          const r: LateResponse = { id: msg.id, ...late, ...(msg.type === "result" ? { result: msg.result } : { error: { code: msg.error.code, message: msg.error.message } }) };
          for (const l of this.lateListeners) l(r);
          return;
        }
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
    this.late.clear();
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
