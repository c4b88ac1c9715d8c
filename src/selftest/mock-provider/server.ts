// A loopback-only, scriptable stand-in for the OpenAI Responses API (`POST /v1/responses`, SSE),
// good enough for the real codex app-server to run whole turns offline.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { completedEvent, IdSource, itemEvents, openingEvents, sseFrame, type SseEvent } from "./sse.ts";
import {
  ResponsesRequestBodySchema,
  type MockProvider,
  type MockProviderOptions,
  type MockResponse,
  type RecordedRequest,
  type Responder,
  type ResponsesRequestBody,
} from "./types.ts";

const RESPONSES_PATH = "/v1/responses";

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function parseBody(raw: string): { body: ResponsesRequestBody; error?: string } {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    return { body: { input: [] }, error: `body is not JSON: ${(e as Error).message}` };
  }
  const parsed = ResponsesRequestBodySchema.safeParse(json);
  if (!parsed.success) return { body: { input: [] }, error: `body is not a Responses request: ${parsed.error.message}` };
  return { body: parsed.data };
}

function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

interface Waiter {
  ready: () => boolean;
  resolve: () => void;
}

export async function startMockProvider(opts: MockProviderOptions = {}): Promise<MockProvider> {
  const defaultText = opts.defaultText ?? "ok";
  const requests: RecordedRequest[] = [];
  const queue: MockResponse[] = [];
  const openStreams = new Map<RecordedRequest, ServerResponse>();
  const sockets = new Set<Socket>();
  const waiters = new Set<Waiter>();
  const ids = new IdSource();
  let responder: Responder | undefined;
  let closing = false;

  function notify(): void {
    for (const w of [...waiters]) {
      if (w.ready()) {
        waiters.delete(w);
        w.resolve();
      }
    }
  }

  function waitFor(ready: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        ready,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`mock provider: timed out after ${timeoutMs} ms: ${describe()}`));
      }, timeoutMs);
      waiters.add(waiter);
    });
  }

  function choose(record: RecordedRequest): MockResponse {
    const queued = queue.shift();
    if (queued) return queued;
    try {
      const fromResponder = responder?.(record, record.index);
      if (fromResponder) return fromResponder;
    } catch (e) {
      return { kind: "http_error", status: 500, message: `mock responder threw: ${(e as Error).message}` };
    }
    return { kind: "output", items: [{ type: "message", text: defaultText }] };
  }

  function startStream(record: RecordedRequest, res: ServerResponse): void {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    openStreams.set(record, res);
    res.on("finish", () => (record.finishedAt = performance.timeOrigin + performance.now()));
    res.on("close", () => {
      openStreams.delete(record);
      if (!res.writableFinished && record.outcome === "streaming") {
        record.outcome = closing ? "closed_by_server" : "client_aborted";
        record.clientAborted = !closing;
      }
      notify();
    });
  }

  function writeEvents(res: ServerResponse, events: SseEvent[]): void {
    for (const event of events) res.write(sseFrame(event));
  }

  function respond(record: RecordedRequest, res: ServerResponse, response: MockResponse): void {
    record.response = response;
    const responseId = ids.take("resp");
    switch (response.kind) {
      case "http_error":
        record.outcome = "http_error";
        sendJson(res, response.status, { error: { message: response.message, type: "server_error", code: response.code ?? null } });
        return;
      case "output": {
        if (response.delayMs && response.delayMs > 0) {
          const { delayMs: _d, ...now } = response;
          const timer = setTimeout(() => respond(record, res, now), response.delayMs);
          res.on("close", () => clearTimeout(timer));
          return;
        }
        startStream(record, res);
        const { events, output } = openingEvents(responseId, response.items, ids);
        writeEvents(res, [...events, completedEvent(responseId, output)]);
        record.outcome = "completed";
        res.end();
        return;
      }
      case "disconnect": {
        startStream(record, res);
        writeEvents(res, openingEvents(responseId, response.items ?? [], ids).events);
        record.outcome = "disconnected";
        res.end();
        return;
      }
      case "hang": {
        startStream(record, res);
        const events = openingEvents(responseId, [], ids).events;
        if (response.partialText !== undefined) {
          // The opening of a message whose end never comes: added, content part and the deltas, no `done`.
          const started = itemEvents({ type: "message", text: response.partialText }, 0, ids).events;
          events.push(...started.filter((e) => e.type !== "response.output_item.done"));
        }
        writeEvents(res, events);
        return;
      }
    }
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0];
      if (req.method !== "POST" || path !== RESPONSES_PATH) {
        sendJson(res, 404, { error: { message: `mock provider serves only POST ${RESPONSES_PATH}`, type: "not_found" } });
        return;
      }
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const { body, error } = parseBody(rawBody);
      const record: RecordedRequest = {
        index: requests.length,
        method: req.method,
        path,
        headers: flattenHeaders(req),
        body,
        rawBody,
        receivedAt: Date.now(),
        outcome: "streaming",
        clientAborted: false,
      };
      if (error !== undefined) record.parseError = error;
      requests.push(record);
      if (error !== undefined) {
        record.outcome = "bad_request";
        sendJson(res, 400, { error: { message: error, type: "invalid_request_error" } });
      } else {
        respond(record, res, choose(record));
      }
      notify();
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("mock provider: no TCP address after listen");
  const port = address.port;

  let closed: Promise<void> | undefined;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    enqueue(...responses) {
      queue.push(...responses);
    },
    setResponder(fn) {
      responder = fn;
    },
    async waitForRequests(n, timeoutMs) {
      await waitFor(() => requests.length >= n, timeoutMs, () => `wanted ${n} request(s), got ${requests.length}`);
      return requests;
    },
    async waitForClientAbort(index, timeoutMs) {
      await waitFor(
        () => requests[index]?.clientAborted === true,
        timeoutMs,
        () => `request #${index} was not aborted by the client (outcome: ${requests[index]?.outcome ?? "not received"})`,
      );
      return requests[index];
    },
    close() {
      if (closed) return closed;
      closing = true;
      closed = new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const res of openStreams.values()) res.destroy();
        for (const socket of sockets) socket.destroy();
      });
      return closed;
    },
  };
}
