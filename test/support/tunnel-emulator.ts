// Test support: behaves toward a stdio MCP server the way OpenAI's tunnel-client does, as observed:
// one child for the whole run, strictly one request in flight, ids forwarded unchanged, a deadline per request
// after which the id is retired, and any server→client request or non-JSON stdout line is fatal for the run.
// It deliberately does not enforce MCP's handshake: the real tunnel re-initializes, skips `initialized`,
// and sends tools/call to a freshly started child with no initialize at all.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { z } from "zod";
import { poll } from "./poll.ts";

const IdSchema = z.union([z.string(), z.number()]);
export type JsonRpcId = z.infer<typeof IdSchema>;

const ErrorObjectSchema = z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() });

const ResponseSchema = z.union([
  z.object({ jsonrpc: z.literal("2.0"), id: IdSchema.nullable(), result: z.unknown() }).strict(),
  z.object({ jsonrpc: z.literal("2.0"), id: IdSchema.nullable(), error: ErrorObjectSchema }).strict(),
]);
export type JsonRpcResponse = z.infer<typeof ResponseSchema>;

const NotificationSchema = z
  .object({ jsonrpc: z.literal("2.0"), method: z.string(), params: z.record(z.string(), z.unknown()).optional() })
  .strict();
export type JsonRpcNotification = z.infer<typeof NotificationSchema>;

const RequestSchema = z.object({ jsonrpc: z.literal("2.0"), id: IdSchema, method: z.string() }).passthrough();

export interface TunnelEmulatorOptions {
  /** Added to (or, when undefined, removed from) the inherited environment. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Round-trip deadline per request, counted from when it is queued. Default 120 000 (ChatGPT's). */
  deadlineMs?: number;
  /** After stop() closes stdin, how long to wait before SIGTERM. Default 2 000. */
  stopGraceMs?: number;
  /** After SIGTERM, how long stop() waits before giving up (never SIGKILL). Default 15 000, like tunnel-client. */
  termWaitMs?: number;
  /** Also copy the child's stderr to ours (it is always kept in `stderr`). Default false. */
  passStderr?: boolean;
}

export interface RequestOptions {
  /** Forwarded unchanged; defaults to a counter. Reusing ids is allowed, as in the real tunnel. */
  id?: JsonRpcId;
  deadlineMs?: number;
  /** Put into params._meta.progressToken. */
  progressToken?: string | number;
}

export interface InitializeOptions {
  /** Send notifications/initialized afterwards. Default true. */
  sendInitialized?: boolean;
  protocolVersion?: string;
  capabilities?: Record<string, unknown>;
}

/** What the emulator saw, in order, for assertions on ordering. */
export type TunnelEvent =
  | { seq: number; type: "write"; id: JsonRpcId | null; method: string }
  | { seq: number; type: "response"; id: JsonRpcId | null }
  | { seq: number; type: "notification"; method: string }
  | { seq: number; type: "retired"; id: JsonRpcId }
  | { seq: number; type: "dropped"; id: JsonRpcId }
  | { seq: number; type: "late-response"; id: JsonRpcId | null }
  | { seq: number; type: "fatal"; reason: string }
  | { seq: number; type: "exit"; code: number | null; signal: string | null };

type EventBody = TunnelEvent extends infer E ? (E extends TunnelEvent ? Omit<E, "seq"> : never) : never;

export interface FatalInfo {
  reason: string;
  /** The offending stdout line, when there was one. */
  line?: string;
}

export interface StopReport {
  exited: boolean;
  /** ms from closing stdin until the child exited, null when it did not. */
  exitMs: number | null;
  sentSigterm: boolean;
  code: number | null;
  signal: string | null;
}

export class TunnelDeadlineError extends Error {
  constructor(
    readonly id: JsonRpcId,
    readonly method: string,
    readonly whileQueued: boolean,
  ) {
    super(`${method} (id ${JSON.stringify(id)}) passed its deadline ${whileQueued ? "while queued" : "in flight"}`);
  }
}

export class TunnelFatalError extends Error {
  constructor(readonly fatal: FatalInfo) {
    super(`tunnel stopped: ${fatal.reason}`);
  }
}

interface Pending {
  id: JsonRpcId;
  method: string;
  message: Record<string, unknown>;
  /** Written instead of the JSON of `message` (a malformed or over-long line, or bytes that are not UTF-8; newline excluded). */
  raw?: string | Uint8Array;
  /** Notifications complete once written. */
  expectsResponse: boolean;
  resolve(res: JsonRpcResponse | null): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout> | null;
  settled: boolean;
}

export class TunnelEmulator {
  readonly notifications: JsonRpcNotification[] = [];
  /** Responses to ids retired at their deadline: the tunnel discards them. */
  readonly lateResponses: JsonRpcResponse[] = [];
  /** Responses to ids that were never in flight nor retired (also discarded). */
  readonly unexpectedResponses: JsonRpcResponse[] = [];
  readonly retiredIds: JsonRpcId[] = [];
  readonly events: TunnelEvent[] = [];
  /** Every message written to the child's stdin, in order. */
  readonly written: Record<string, unknown>[] = [];
  stderr = "";
  fatal: FatalInfo | null = null;
  exit: { code: number | null; signal: string | null } | null = null;
  readonly exited: Promise<{ code: number | null; signal: string | null }>;

  private readonly queue: Pending[] = [];
  private inFlight: Pending | null = null;
  private nextId = 1;
  private seq = 0;
  private stdoutBuffer = "";
  private stopping = false;
  private readonly deadlineMs: number;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly opts: TunnelEmulatorOptions,
  ) {
    this.deadlineMs = opts.deadlineMs ?? 120_000;
    this.exited = new Promise((resolve) => {
      child.on("exit", (code, signal) => {
        this.exit = { code, signal };
        this.record({ type: "exit", code, signal });
        if (!this.stopping) this.failFatal({ reason: `child exited (code ${code}, signal ${signal})` });
        resolve(this.exit);
      });
    });
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => this.onStdout(chunk));
    child.stdout.on("end", () => {
      if (!this.stopping) this.failFatal({ reason: "child closed stdout" });
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      this.stderr += chunk;
      if (opts.passStderr) process.stderr.write(chunk);
    });
    child.stdin.on("error", (err) => {
      if (!this.stopping) this.failFatal({ reason: `write to child stdin failed: ${err.message}` });
    });
  }

  /** Starts the one child for this run, like `tunnel-client run --mcp-command "cmd args…"`. */
  static async spawn(command: string, args: string[], opts: TunnelEmulatorOptions = {}): Promise<TunnelEmulator> {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...process.env, ...opts.env })) if (v !== undefined) env[k] = v;
    const child = spawn(command, args, { cwd: opts.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", (err) => reject(new Error(`could not start ${command}: ${err.message}`)));
    });
    return new TunnelEmulator(child, opts);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Sends initialize (answered or failed like any request), then notifications/initialized unless told not to. */
  async initialize(opts: InitializeOptions = {}): Promise<JsonRpcResponse> {
    const res = await this.request("initialize", {
      protocolVersion: opts.protocolVersion ?? "2025-06-18",
      capabilities: opts.capabilities ?? {},
      clientInfo: { name: "tunnel-emulator", version: "0.0.0" },
    });
    if (opts.sendInitialized ?? true) await this.notify("notifications/initialized");
    return res;
  }

  /** Queues a request; resolves with its response (result or error), rejects on deadline or fatal. */
  request(method: string, params?: Record<string, unknown>, opts: RequestOptions = {}): Promise<JsonRpcResponse> {
    const id = opts.id ?? this.nextId++;
    let finalParams = params;
    if (opts.progressToken !== undefined) {
      const meta = (params?._meta as Record<string, unknown> | undefined) ?? {};
      finalParams = { ...params, _meta: { ...meta, progressToken: opts.progressToken } };
    }
    const message: Record<string, unknown> = { jsonrpc: "2.0", id, method };
    if (finalParams !== undefined) message.params = finalParams;
    return this.enqueue(id, method, message, true, opts.deadlineMs ?? this.deadlineMs) as Promise<JsonRpcResponse>;
  }

  /** Queues a notification; it takes its turn like a request and completes once written. */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    const message: Record<string, unknown> = { jsonrpc: "2.0", method };
    if (params !== undefined) message.params = params;
    await this.enqueue(`notification-${this.nextId++}`, method, message, false, this.deadlineMs);
  }

  /**
   * Writes `text` plus a newline as one stdin line, unchecked (malformed JSON-RPC, an over-long line). With `id`, it
   * is a request awaiting the response with that id; without, it completes once written, like a notification.
   * `written` records `{ raw: <first 200 chars> }`. Bytes are written as they are (for lines that are not UTF-8).
   */
  writeRaw(text: string | Uint8Array, opts: { id?: JsonRpcId; deadlineMs?: number } = {}): Promise<JsonRpcResponse | null> {
    const expects = opts.id !== undefined;
    const id = opts.id ?? `raw-${this.nextId++}`;
    const shown = typeof text === "string" ? text.slice(0, 200) : Buffer.from(text.subarray(0, 200)).toString("latin1");
    return this.enqueue(id, "(raw)", { raw: shown }, expects, opts.deadlineMs ?? this.deadlineMs, text);
  }

  /** Resolves once the predicate holds (checked every 10 ms); rejects after timeoutMs, naming the predicate. */
  async waitFor(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
    await poll(predicate, { timeoutMs, interval: 10, what: `a condition on the emulator (${predicate.toString()})` });
  }

  /**
   * Like tunnel-client's shutdown: close stdin, wait stopGraceMs, SIGTERM, wait termWaitMs. Never SIGKILL:
   * a child that survives is reported (exited: false) and left for the caller to deal with by pid.
   */
  async stop(): Promise<StopReport> {
    this.stopping = true;
    const stopped = new TunnelFatalError({ reason: "tunnel stopped" });
    const current = this.inFlight;
    this.inFlight = null;
    if (current) this.settle(current, () => current.reject(stopped));
    this.failQueued(stopped);
    const started = Date.now();
    let sentSigterm = false;
    if (this.exit === null) {
      this.child.stdin.end();
      const graceful = await this.exitWithin(this.opts.stopGraceMs ?? 2_000);
      if (!graceful) {
        sentSigterm = true;
        this.child.kill("SIGTERM");
        await this.exitWithin(this.opts.termWaitMs ?? 15_000);
      }
    }
    const exited = this.exit !== null;
    return {
      exited,
      exitMs: exited ? Date.now() - started : null,
      sentSigterm,
      code: this.exit?.code ?? null,
      signal: this.exit?.signal ?? null,
    };
  }

  private async exitWithin(ms: number): Promise<boolean> {
    if (this.exit !== null) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const done = await Promise.race([this.exited.then(() => true as const), timedOut]);
    clearTimeout(timer);
    return done;
  }

  private record(event: EventBody): void {
    this.events.push({ ...event, seq: this.seq++ } as TunnelEvent);
  }

  private enqueue(
    id: JsonRpcId,
    method: string,
    message: Record<string, unknown>,
    expectsResponse: boolean,
    deadlineMs: number,
    raw?: string | Uint8Array,
  ): Promise<JsonRpcResponse | null> {
    if (this.fatal) return Promise.reject(new TunnelFatalError(this.fatal));
    if (this.stopping) return Promise.reject(new TunnelFatalError({ reason: "tunnel stopped" }));
    return new Promise((resolve, reject) => {
      const pending: Pending = { id, method, message, raw, expectsResponse, resolve, reject, timer: null, settled: false };
      // The deadline covers the whole round trip, queue time included; progress does not extend it.
      pending.timer = setTimeout(() => this.onDeadline(pending), deadlineMs);
      this.queue.push(pending);
      this.pump();
    });
  }

  private onDeadline(p: Pending): void {
    if (p.settled) return;
    if (this.inFlight === p) {
      this.retiredIds.push(p.id);
      this.record({ type: "retired", id: p.id });
      this.inFlight = null;
      this.settle(p, () => p.reject(new TunnelDeadlineError(p.id, p.method, false)));
      this.pump();
    } else {
      const i = this.queue.indexOf(p);
      if (i >= 0) this.queue.splice(i, 1);
      this.record({ type: "dropped", id: p.id });
      this.settle(p, () => p.reject(new TunnelDeadlineError(p.id, p.method, true)));
    }
  }

  private settle(p: Pending, action: () => void): void {
    if (p.settled) return;
    p.settled = true;
    if (p.timer) clearTimeout(p.timer);
    action();
  }

  private pump(): void {
    if (this.inFlight || this.fatal) return;
    const next = this.queue.shift();
    if (!next) return;
    this.inFlight = next;
    this.written.push(next.message);
    this.record({ type: "write", id: next.expectsResponse ? next.id : null, method: next.method });
    const line = next.raw instanceof Uint8Array ? Buffer.concat([next.raw, Buffer.from("\n")]) : `${next.raw ?? JSON.stringify(next.message)}\n`;
    this.child.stdin.write(line, (err) => {
      if (err) return; // the stdin 'error' handler makes it fatal
      if (!next.expectsResponse && this.inFlight === next) {
        this.inFlight = null;
        this.settle(next, () => next.resolve(null));
        this.pump();
      }
    });
  }

  private onStdout(chunk: string): void {
    if (this.fatal) return;
    this.stdoutBuffer += chunk;
    let nl: number;
    while ((nl = this.stdoutBuffer.indexOf("\n")) >= 0) {
      const line = this.stdoutBuffer.slice(0, nl);
      this.stdoutBuffer = this.stdoutBuffer.slice(nl + 1);
      this.onLine(line);
      if (this.fatal) return;
    }
  }

  private onLine(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.failFatal({ reason: "non-JSON line on stdout", line });
      return;
    }
    const request = RequestSchema.safeParse(parsed);
    if (request.success) {
      this.failFatal({ reason: `server sent a request: ${request.data.method}`, line });
      return;
    }
    const notification = NotificationSchema.safeParse(parsed);
    if (notification.success) {
      this.notifications.push(notification.data);
      this.record({ type: "notification", method: notification.data.method });
      return;
    }
    const response = ResponseSchema.safeParse(parsed);
    if (!response.success) {
      this.failFatal({ reason: "stdout line is not a JSON-RPC message", line });
      return;
    }
    const res = response.data;
    const current = this.inFlight;
    if (current && current.expectsResponse && res.id !== null && JSON.stringify(res.id) === JSON.stringify(current.id)) {
      this.record({ type: "response", id: res.id });
      this.inFlight = null;
      this.settle(current, () => current.resolve(res));
      this.pump();
      return;
    }
    // A response to a retired id, or to nothing at all: the tunnel discards it.
    const wasRetired = this.retiredIds.some((id) => JSON.stringify(id) === JSON.stringify(res.id));
    (wasRetired ? this.lateResponses : this.unexpectedResponses).push(res);
    this.record({ type: "late-response", id: res.id });
  }

  private failFatal(info: FatalInfo): void {
    if (this.fatal) return;
    this.fatal = info;
    this.record({ type: "fatal", reason: info.reason });
    const err = new TunnelFatalError(info);
    const current = this.inFlight;
    this.inFlight = null;
    if (current) this.settle(current, () => current.reject(err));
    this.failQueued(err);
    // The real tunnel closes the shared pipes and shuts itself down; the child sees EOF.
    if (!this.child.stdin.destroyed) this.child.stdin.end();
  }

  private failQueued(err: Error): void {
    for (const p of this.queue.splice(0)) this.settle(p, () => p.reject(err));
  }
}
