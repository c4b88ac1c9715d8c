// Collects the heap once the MCP side has been quiet for a while. The runtime's own collector lets the heap (and the
// memory it holds on to) grow with every turn until a threshold; a collection in a pause keeps a long-running bridge
// near its size after the first turns, and never lands in the middle of a burst of requests.
import type { Readable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Platform } from "../../platform/types.ts";

/** Quiet time before the one collection; a new message or answer re-arms it. */
export const IDLE_COLLECT_MS = 1000;

/**
 * Arms a collection after every stdin chunk and every message sent; the timer never keeps the process alive. Call it
 * once the transport reads stdin: an earlier 'data' listener would start the stream before the transport listens.
 */
export function collectWhenIdle(platform: Platform, stdin: Readable, transport: Transport, quietMs = IDLE_COLLECT_MS): void {
  const collect = platform.collectGarbage;
  if (!collect) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const touch = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      collect();
    }, quietMs);
    timer.unref?.();
  };
  stdin.on("data", touch);
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    touch();
    return send(message, options);
  };
}
