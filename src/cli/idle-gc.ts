// Collects the heap when the MCP side pauses, and after large answers. The runtime's own collector lets the heap (and
// the memory it holds on to) grow until a threshold: a collection in a pause keeps a long-running bridge near its size
// after the first turns, and collections after multi-megabyte answers (artifact chunks) keep a chunked download from
// piling up the garbage of every chunk. None lands in the middle of a burst of small requests.
import type { Readable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Platform } from "../../platform/types.ts";

/** Quiet time before the one collection; a new message or answer re-arms it. */
export const IDLE_COLLECT_MS = 1000;
/** Characters of content in one answer above which the answer's garbage is collected at once. */
export const LARGE_ANSWER_CHARS = 1024 * 1024;
/**
 * After a large answer a quick collection of recent allocations is cheap but leaves much behind; a full one is done
 * when the process has grown this much since the last full one, which bounds a download's peak at about this much
 * above the bridge's settled size plus one chunk's worth.
 */
export const FULL_COLLECT_GROWTH_BYTES = 32 * 1024 * 1024;

type Loose = Record<string, unknown>;
const isLoose = (v: unknown): v is Loose => typeof v === "object" && v !== null;
const chars = (v: unknown) => (typeof v === "string" ? v.length : 0);

/** The bulk an answer carries: text, image and blob content of a tool result or a resource read. */
export function contentChars(message: unknown): number {
  const result = isLoose(message) && isLoose(message.result) ? message.result : undefined;
  if (!result) return 0;
  let n = 0;
  for (const list of [result.content, result.contents]) {
    if (!Array.isArray(list)) continue;
    for (const block of list) {
      if (!isLoose(block)) continue;
      n += chars(block.text) + chars(block.data) + chars(block.blob);
      if (isLoose(block.resource)) n += chars(block.resource.text) + chars(block.resource.blob);
    }
  }
  return n;
}

/**
 * Arms a collection after every stdin chunk and every message sent (the timer never keeps the process alive), and
 * collects right after a large answer was handed over. Call it once the transport reads stdin: an earlier 'data'
 * listener would start the stream before the transport listens.
 */
export function collectWhenIdle(platform: Platform, stdin: Readable, transport: Transport, quietMs = IDLE_COLLECT_MS, rss: () => number = () => process.memoryUsage.rss()): void {
  const gc = platform.collectGarbage;
  if (!gc) return;
  let settled = rss();
  const full = () => {
    gc(true);
    settled = rss();
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const touch = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      full();
    }, quietMs);
    timer.unref?.();
  };
  stdin.on("data", touch);
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    touch();
    await send(message, options);
    if (contentChars(message) <= LARGE_ANSWER_CHARS) return;
    if (rss() - settled > FULL_COLLECT_GROWTH_BYTES) full();
    else gc(false);
  };
}
