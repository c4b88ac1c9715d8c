// The benchmark's own minimal JSON-RPC-over-JSONL peer: how the raw side talks straight to `codex app-server` (or the
// fake), with nothing of the bridge in between, so the raw figures carry no cost of ours.
import { spawn, type ChildProcess } from "node:child_process";
import { nowMs } from "./stats.ts";

export interface Incoming {
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string };
}

type Listener = (m: Incoming, at: number) => void;

export class JsonlPeer {
  readonly child: ChildProcess;
  private buf = "";
  private nextId = 1;
  private readonly pending = new Map<number | string, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Set<Listener>();
  /**
   * Lines this accepts are counted by it and never parsed: the benchmark process hosts the mock model too, and
   * parsing thousands of delta lines would slow the raw side down by the benchmark's own cost.
   */
  skipLine: ((line: string) => boolean) | null = null;
  readonly exited: Promise<void>;
  stderr = "";

  constructor(command: string, args: string[], opts: { env: Record<string, string>; cwd?: string }) {
    this.child = spawn(command, args, { env: opts.env, cwd: opts.cwd, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout!.setEncoding("utf8").on("data", (chunk: string) => this.onData(chunk));
    this.child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-4000)));
    this.exited = new Promise((resolve) => this.child.on("exit", () => resolve()));
    void this.exited.then(() => {
      for (const p of this.pending.values()) p.reject(new Error(`peer exited: ${this.stderr.slice(-500)}`));
      this.pending.clear();
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  private onData(chunk: string): void {
    const at = nowMs();
    this.buf += chunk;
    let nl: number;
    while ((nl = this.buf.indexOf("\n")) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (!line.trim() || this.skipLine?.(line)) continue;
      const m = JSON.parse(line) as Incoming;
      if (m.id !== undefined && m.method === undefined) {
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (m.error) p?.reject(new Error(`${m.error.code}: ${m.error.message}`));
        else p?.resolve(m.result);
      }
      for (const l of this.listeners) l(m, at);
    }
  }

  write(message: Record<string, unknown>): void {
    this.child.stdin!.write(JSON.stringify(message) + "\n");
  }

  request<T = unknown>(method: string, params: unknown = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.write({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method: string, params?: unknown): void {
    this.write({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  /** Every incoming message (responses included) with the time it was read. */
  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the arrival time of the first message matching `test`. */
  next(test: (m: Incoming) => boolean, timeoutMs = 120_000): Promise<{ message: Incoming; at: number }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no matching message within ${timeoutMs} ms; stderr: ${this.stderr.slice(-500)}`));
      }, timeoutMs);
      const off = this.on((message, at) => {
        if (!test(message)) return;
        clearTimeout(timer);
        off();
        resolve({ message, at });
      });
    });
  }

  async close(): Promise<void> {
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 3000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** The app-server's own handshake, with the bridge's client info and capabilities. */
export async function initializeAppServer(peer: JsonlPeer): Promise<void> {
  await peer.request("initialize", { clientInfo: { name: "codex-bridge-bench", title: "codex-bridge-bench", version: "1" }, capabilities: { experimentalApi: true } });
  peer.notify("initialized");
}
