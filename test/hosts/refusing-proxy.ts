// Test support: an HTTP(S) proxy on loopback that refuses every connection and records where it was asked to go.
// Pointing HTTP_PROXY/HTTPS_PROXY at it proves a host talks to nothing but its loopback mock (NO_PROXY covers those).
import { createServer, type Server, type Socket } from "node:net";

export interface RefusingProxy {
  url: string;
  /** Every target asked for: "CONNECT host:port" or "GET http://…". */
  attempts: string[];
  close(): Promise<void>;
}

export async function startRefusingProxy(): Promise<RefusingProxy> {
  const attempts: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let head = "";
    socket.on("data", (d) => {
      head += d.toString("latin1");
      const nl = head.indexOf("\r\n");
      if (nl === -1 && head.length < 8192) return;
      attempts.push(head.slice(0, nl === -1 ? 200 : nl).split(" ").slice(0, 2).join(" "));
      socket.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    attempts,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The environment that sends every non-loopback connection to the proxy. */
export function proxyEnv(proxy: RefusingProxy): Record<string, string> {
  return {
    HTTP_PROXY: proxy.url,
    HTTPS_PROXY: proxy.url,
    http_proxy: proxy.url,
    https_proxy: proxy.url,
    ALL_PROXY: proxy.url,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
  };
}
