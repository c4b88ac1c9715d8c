// The command-line side of the control endpoint: finds the running bridge's endpoint from the same state database
// the bridge uses, sends one request line, and reads reply lines. Nothing waits forever: connecting and every reply
// have a deadline, and a bridge that is not running is said so plainly.
import { existsSync, realpathSync } from "node:fs";
import { connect, type Socket } from "node:net";
import type { Platform } from "../../../platform/types.ts";
import { controlEndpoint } from "../../control/endpoint.ts";
import { ControlReply, PROTOCOL_VERSION, type ControlRequest } from "../../control/protocol.ts";
import { MEMORY_PATH, resolveStatePath } from "../../store/location.ts";

const CONNECT_MS = 3_000;
// A cancel waits up to 10 s for Codex to confirm the interrupt; everything else answers at once.
export const REPLY_MS = 20_000;

export class ControlUnavailable extends Error {}

export interface Located {
  database: string;
  endpoint: string;
}

/** The state database of the bridge this command talks to (CODEX_BRIDGE_STATE or the default) and its endpoint. */
export function locate(platform: Platform, env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Located {
  const state = resolveStatePath({ env, dataDir: platform.dirs().data, cwd, mkdir: () => {} });
  if (state.path === MEMORY_PATH) throw new ControlUnavailable("CODEX_BRIDGE_STATE is :memory:, and a bridge on a throwaway state has no control endpoint");
  if (!existsSync(state.path)) {
    throw new ControlUnavailable(`no codex-bridge has used the state database ${state.path} yet, so none is running on it (set CODEX_BRIDGE_STATE to the file your bridge uses)`);
  }
  const database = realpathSync(state.path);
  return { database, endpoint: controlEndpoint(database).path };
}

type Body = ControlRequest extends infer R ? (R extends unknown ? Omit<R, "v"> : never) : never;

export interface Connection {
  /** The next reply line, or null when the bridge closed the connection; rejects after `ms` (0: no deadline). */
  next(ms?: number): Promise<ControlReply | null>;
  close(): void;
}

/** Connects and sends one request. */
export function open(where: Located, body: Body): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = connect(where.endpoint);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new ControlUnavailable(`the bridge's control endpoint ${where.endpoint} did not accept a connection within ${CONNECT_MS / 1000} s`));
    }, CONNECT_MS);
    socket.once("error", (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new ControlUnavailable(unreachable(where, err)));
    });
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.write(`${JSON.stringify({ v: PROTOCOL_VERSION, ...body })}\n`);
      resolve(readLines(socket));
    });
  });
}

function unreachable(where: Located, err: NodeJS.ErrnoException): string {
  if (err.code === "ENOENT" || err.code === "ECONNREFUSED") {
    return `no codex-bridge is running on the state database ${where.database} (nothing listens at ${where.endpoint}). It runs while an MCP client or tunnel-client has it started (codex-bridge serve); or set CODEX_BRIDGE_STATE to the state file of the bridge you mean`;
  }
  if (err.code === "EACCES" || err.code === "EPERM") return `permission denied on ${where.endpoint}: the control endpoint is its owner's only`;
  return `cannot reach the bridge's control endpoint ${where.endpoint}: ${err.code ?? err.message}`;
}

function readLines(socket: Socket): Connection {
  const queue: (ControlReply | null)[] = [];
  let wake: (() => void) | null = null;
  let buffered = "";
  let ended = false;
  socket.setEncoding("utf8");
  const push = (v: ControlReply | null) => {
    queue.push(v);
    wake?.();
  };
  socket.on("data", (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const text = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      let parsed: ControlReply | null = null;
      try {
        const r = ControlReply.safeParse(JSON.parse(text));
        parsed = r.success ? r.data : { ok: false, error: "the bridge sent a reply this command does not understand (a different codex-bridge version?)" };
      } catch {
        parsed = { ok: false, error: "the bridge sent a line that is not JSON" };
      }
      push(parsed);
    }
  });
  const finish = () => {
    if (ended) return;
    ended = true;
    push(null);
  };
  socket.on("end", finish);
  socket.on("close", finish);
  socket.on("error", finish);
  return {
    async next(ms = REPLY_MS) {
      while (queue.length === 0) {
        const waited = await new Promise<boolean>((resolve) => {
          const t = ms > 0 ? setTimeout(() => resolve(false), ms) : undefined;
          wake = () => {
            if (t) clearTimeout(t);
            resolve(true);
          };
        });
        wake = null;
        if (!waited) throw new ControlUnavailable(`the bridge did not answer within ${ms / 1000} s`);
      }
      return queue.shift()!;
    },
    close: () => socket.destroy(),
  };
}
