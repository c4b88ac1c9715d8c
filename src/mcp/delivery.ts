// Knows when an MCP answer was really written to the transport, so the automatic wait cursor moves only then.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/**
 * Work that may only happen once a response has really been written: an automatic wait cursor must not move past
 * events the supervisor never received (a response dropped by a dead pipe or a retired tunnel request).
 */
export class DeliveryHooks {
  private readonly pending = new Map<string, () => void>();

  onDelivered(requestId: string | number, fn: () => void): void {
    this.pending.set(String(requestId), fn);
  }

  /** Wraps the transport's send so hooks run after the matching response was handed over successfully. */
  attach(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      await send(message, options);
      if ("id" in message && ("result" in message || "error" in message)) {
        const key = String(message.id);
        const fn = this.pending.get(key);
        this.pending.delete(key);
        fn?.();
      }
    };
  }
}

const hooks = new WeakMap<McpServer, DeliveryHooks>();

export function deliveryHooksFor(server: McpServer): DeliveryHooks {
  let h = hooks.get(server);
  if (!h) hooks.set(server, (h = new DeliveryHooks()));
  return h;
}

/** Connects a server so that delivery hooks see its responses. Use instead of server.connect. */
export async function connectMcp(server: McpServer, transport: Transport): Promise<void> {
  deliveryHooksFor(server).attach(transport);
  await server.connect(transport);
}

export function isAttached(server: McpServer): boolean {
  return hooks.has(server);
}
