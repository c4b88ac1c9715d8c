// Test support for Codex's shared background app-server (`codex app-server daemon`): start and stop it in an isolated
// CODEX_HOME (killing the updater loop `daemon stop` leaves behind), and a raw JSON-RPC client on its control socket,
// standing in for "the person's own Codex" as a second client.
import { spawn } from "node:child_process";
import { readFileSync, readlinkSync, rmSync } from "node:fs";
import { join } from "node:path";
import { connectSocketWebSocket } from "../../platform/socket-ws.ts";
import type { ChildHandle } from "../../platform/types.ts";

export interface DaemonStatus {
  status: string;
  pid?: number;
  socketPath?: string;
  appServerVersion?: string;
  [k: string]: unknown;
}

/** Runs `codex app-server daemon <verb>` and parses the one JSON object it prints. */
export async function daemonCommand(codexBin: string, env: Record<string, string>, verb: "start" | "stop" | "version" | "restart"): Promise<DaemonStatus> {
  const child = spawn(codexBin, ["app-server", "daemon", verb], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((r) => child.on("close", r));
  const line = out.trim().split("\n").pop() ?? "";
  try {
    return JSON.parse(line) as DaemonStatus;
  } catch {
    throw new Error(`codex app-server daemon ${verb} exited ${code} without JSON: ${out} ${err.slice(-2000)}`);
  }
}

function pidFrom(file: string): number | null {
  try {
    const pid = (JSON.parse(readFileSync(file, "utf8")) as { pid?: unknown }).pid;
    return typeof pid === "number" ? pid : null;
  } catch {
    return null;
  }
}

export function daemonPid(codexHome: string): number | null {
  return pidFrom(join(codexHome, "app-server-daemon", "daemon.pid"));
}

export function updaterPid(codexHome: string): number | null {
  return pidFrom(join(codexHome, "app-server-daemon", "daemon-updater.pid"));
}

export function alive(pid: number | null): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

/**
 * `daemon stop`, then SIGKILL whatever it left: the updater loop always, the server if the stop did not take; then
 * the socket files both leave in the per-user temp dir their symlinks in the home point to (never removed by Codex).
 */
export async function stopDaemonCompletely(codexBin: string, env: Record<string, string>, codexHome: string): Promise<void> {
  const server = daemonPid(codexHome);
  const updater = updaterPid(codexHome);
  await daemonCommand(codexBin, env, "stop").catch(() => undefined);
  for (const pid of [updater, server]) {
    if (alive(pid)) {
      try {
        process.kill(pid!, "SIGKILL");
      } catch {
        /* gone */
      }
    }
  }
  for (const link of [join(codexHome, "app-server-control", "app-server-control.sock"), join(codexHome, "app-server-daemon", "daemon-updater.sock")]) {
    try {
      const target = readlinkSync(link);
      rmSync(target, { force: true });
      rmSync(`${target}.lock`, { force: true });
    } catch {
      /* no socket */
    }
  }
}

export interface RpcMessage {
  id?: number | string;
  method?: string;
  params?: Record<string, unknown> & { threadId?: string };
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** A bare client of the shared server, like another Codex front end: it records everything it receives. */
export class RawSocketClient {
  readonly log: RpcMessage[] = [];
  closed = false;
  private nextId = 1;
  private buf = "";
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly handle: ChildHandle) {
    handle.onStdout((chunk) => {
      this.buf += chunk;
      for (let i = this.buf.indexOf("\n"); i >= 0; i = this.buf.indexOf("\n")) {
        const line = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 1);
        this.log.push(JSON.parse(line) as RpcMessage);
      }
      for (const w of this.waiters) w();
    });
    handle.onExit(() => {
      this.closed = true;
      for (const w of this.waiters) w();
    });
  }

  static async connect(socketPath: string, name: string): Promise<RawSocketClient> {
    const c = new RawSocketClient(await connectSocketWebSocket(socketPath));
    await c.request("initialize", { clientInfo: { name, title: name, version: "0.0.0" }, capabilities: { experimentalApi: true } });
    await c.send({ method: "initialized" });
    return c;
  }

  send(msg: RpcMessage): Promise<void> {
    return this.handle.write(JSON.stringify(msg) + "\n");
  }

  async request(method: string, params: unknown = {}, timeoutMs = 30_000): Promise<RpcMessage> {
    const id = this.nextId++;
    await this.send({ id, method, params: params as RpcMessage["params"] });
    return this.waitFor((m) => m.id === id && m.method === undefined, timeoutMs, `answer to ${method}`);
  }

  respond(id: number | string, result: unknown): Promise<void> {
    return this.send({ id, result: result as Record<string, unknown> });
  }

  /** The first message (already received or still to come) that matches. */
  waitFor(match: (m: RpcMessage) => boolean, timeoutMs = 30_000, what = "a message"): Promise<RpcMessage> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const hit = this.log.find(match);
        if (hit) {
          done();
          resolve(hit);
        } else if (this.closed) {
          done();
          reject(new Error(`connection closed while waiting for ${what}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  methods(threadId?: string): string[] {
    return this.log.filter((m) => m.method && (!threadId || m.params?.threadId === threadId)).map((m) => (m.id !== undefined ? `request:${m.method}` : m.method!));
  }

  close(): void {
    this.handle.endStdin();
  }
}
