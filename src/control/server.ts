// The running bridge's control endpoint for its owner: a Unix domain socket (0600, in a 0700 directory beside the state
// database) or, on Windows, a named pipe; never a network port. Each connection sends one request line and gets one
// reply line; a watch then gets a line per event until it closes. Everything goes through the PersonService.
import { chmodSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { EventLog } from "../log.ts";
import type { PersonService } from "../service/person.ts";
import { ensurePrivateDir, type ControlEndpoint } from "./endpoint.ts";
import { ControlRequest, describeIssues, MAX_REQUEST_BYTES, type ControlReply } from "./protocol.ts";

// A client that connects and says nothing is let go; a busy bridge serves this many people's terminals at once.
const REQUEST_WAIT_MS = 10_000;
const MAX_CONNECTIONS = 32;
const WATCH_BUFFER_BYTES = 4 * 1024 * 1024;

export interface ControlServer {
  readonly path: string;
  /** Tells every watcher the bridge stops, and closes the endpoint (removing the socket). */
  close(reason: string): Promise<void>;
}

export async function openControlServer(endpoint: ControlEndpoint, person: PersonService, log: EventLog): Promise<ControlServer> {
  if (endpoint.dir) {
    ensurePrivateDir(endpoint.dir);
    // This bridge holds the state database's lock, so a socket left there is a dead bridge's: take its place.
    rmSync(endpoint.path, { force: true });
  }
  const sockets = new Set<Socket>();
  const stops = new Set<() => void>();
  const server = createServer((socket) => {
    if (sockets.size >= MAX_CONNECTIONS) {
      socket.end(line({ ok: false, error: `the bridge already serves ${MAX_CONNECTIONS} control connections; close a watch and retry` }));
      return;
    }
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    serveConnection(socket, person, log, stops);
  });
  server.maxConnections = MAX_CONNECTIONS + 1;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(endpoint.path, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // The directory is owner-only already; the socket itself is too, for systems that check it rather than the path.
  if (endpoint.dir) chmodSync(endpoint.path, 0o600);
  server.on("error", (err) => log("warn", "control_error", { code: (err as NodeJS.ErrnoException).code ?? "unknown" }));
  log("info", "control_listening", { kind: endpoint.dir ? "unix_socket" : "named_pipe" });
  return {
    path: endpoint.path,
    close: (reason) => closeServer(server, endpoint, sockets, stops, reason),
  };
}

function closeServer(server: Server, endpoint: ControlEndpoint, sockets: Set<Socket>, stops: Set<() => void>, reason: string): Promise<void> {
  for (const stop of stops) stop();
  for (const s of sockets) s.end(line({ bye: reason }));
  return new Promise((resolve) => {
    server.close(() => resolve());
    // A watcher that does not read its last line is not waited for.
    setTimeout(() => {
      for (const s of sockets) s.destroy();
    }, 200).unref();
    if (endpoint.dir) rmSync(endpoint.path, { force: true });
  });
}

const line = (reply: ControlReply): string => `${JSON.stringify(reply)}\n`;

function serveConnection(socket: Socket, person: PersonService, log: EventLog, stops: Set<() => void>): void {
  let buffered = "";
  let handled = false;
  socket.setEncoding("utf8");
  const idle = setTimeout(() => socket.end(line({ ok: false, error: "no request within 10 s" })), REQUEST_WAIT_MS);
  socket.on("error", () => socket.destroy());
  socket.on("close", () => clearTimeout(idle));
  socket.on("data", (chunk: string) => {
    if (handled) return;
    buffered += chunk;
    const nl = buffered.indexOf("\n");
    if (nl < 0) {
      if (Buffer.byteLength(buffered) > MAX_REQUEST_BYTES) socket.end(line({ ok: false, error: `request line over ${MAX_REQUEST_BYTES} bytes` }));
      return;
    }
    handled = true;
    clearTimeout(idle);
    void handle(buffered.slice(0, nl), socket, person, log, stops);
  });
}

async function handle(text: string, socket: Socket, person: PersonService, log: EventLog, stops: Set<() => void>): Promise<void> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    socket.end(line({ ok: false, error: "the request is not one JSON object on one line" }));
    return;
  }
  const parsed = ControlRequest.safeParse(raw);
  if (!parsed.success) {
    socket.end(line({ ok: false, error: `invalid request: ${describeIssues(parsed.error)}` }));
    return;
  }
  const req = parsed.data;
  log("info", "control_request", { cmd: req.cmd });
  try {
    if (req.cmd === "watch") return watch(req.task_id, socket, person, stops);
    socket.end(line({ ok: true, result: await answer(req, person) }));
  } catch (err) {
    const field = (err as { field?: unknown }).field;
    socket.end(line({ ok: false, error: err instanceof Error ? err.message : String(err), ...(typeof field === "string" ? { field } : {}) }));
  }
}

function answer(req: Exclude<ControlRequest, { cmd: "watch" }>, person: PersonService): unknown {
  switch (req.cmd) {
    case "tasks":
      return person.tasks(req.all);
    case "pending":
      return person.pending();
    case "decide":
      return person.decide({ request_id: req.request_id, verdict: req.verdict, for_session: req.for_session });
    case "answer":
      return person.answerQuestions(req.request_id, { single: req.single, byId: req.by_id });
    case "cancel":
      return person.cancel(req.task_id);
  }
}

function watch(taskId: string | undefined, socket: Socket, person: PersonService, stops: Set<() => void>): void {
  const send = (lines: { task_id: string; seq: number; at: string; text: string }[]) => {
    // A watcher that stopped reading is let go rather than buffered for without end.
    if (socket.writableLength > WATCH_BUFFER_BYTES) {
      socket.destroy();
      return;
    }
    for (const l of lines) socket.write(line({ line: l }));
  };
  const following = person.follow(taskId, send);
  stops.add(following.stop);
  socket.on("close", () => {
    following.stop();
    stops.delete(following.stop);
  });
  socket.write(line({ ok: true, result: { watching: taskId ?? "all", live: following.live } }));
  send(following.initial);
}
