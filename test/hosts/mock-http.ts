// Test support: a minimal loopback HTTP server for a host's model API mock; it records every request (method, path,
// parsed JSON body) and answers with what the test's handler returns.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export interface MockRequest {
  method: string;
  path: string;
  body: unknown;
}

export interface MockHttp {
  baseUrl: string;
  requests: MockRequest[];
  close(): Promise<void>;
}

export async function startMockHttp(handle: (req: MockRequest, res: ServerResponse, raw: IncomingMessage) => void): Promise<MockHttp> {
  const requests: MockRequest[] = [];
  const server = createServer((raw, res) => {
    let text = "";
    raw.setEncoding("utf8").on("data", (d: string) => (text += d));
    raw.on("end", () => {
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = text;
      }
      const req = { method: raw.method ?? "", path: raw.url ?? "", body };
      requests.push(req);
      try {
        handle(req, res, raw);
      } catch (err) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: String(err) }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Server-sent events: `event:` (when given) and `data:` per event. */
export function sse(res: ServerResponse, events: { event?: string; data: unknown }[]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ""}data: ${JSON.stringify(e.data)}\n\n`);
  res.end();
}
