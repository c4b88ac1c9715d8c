// The HTTP half of answering a numeric id the SDK cannot carry (jsonrpc-inbound.ts IdAlias): the SDK writes the
// answer straight into the HTTP response, sometimes with a Content-Length it computed, so the surrogate it sees has
// exactly the byte length of the client's id as JSON, and the response bytes get the original back in its place.
import { randomInt } from "node:crypto";
import type { ServerResponse } from "node:http";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
/** A string id no client uses: it starts with DEL (0x7f), which JSON writes as one raw byte. */
const MARK = "\x7f";

/** A string id whose JSON form is as long as `original`'s (at least 3 bytes: any fraction or unsafe integer). */
export function sameLengthSurrogate(original: number): string {
  const inner = JSON.stringify(original).length - 2;
  let s = MARK;
  while (s.length < inner) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

/** Rewrites every write of this response so the surrogate id reads as the client's own again. */
export function restoreIdInResponse(res: ServerResponse, surrogate: string, original: number): void {
  const from = Buffer.from(JSON.stringify(surrogate), "utf8");
  const to = Buffer.from(JSON.stringify(original), "utf8");
  const swap = (chunk: unknown): unknown => {
    if (typeof chunk !== "string" && !(chunk instanceof Uint8Array)) return chunk;
    const buf = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk);
    const at = buf.indexOf(from);
    if (at === -1) return chunk;
    const out = Buffer.from(buf);
    to.copy(out, at);
    return out;
  };
  const write = res.write.bind(res) as (...a: unknown[]) => boolean;
  const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
  res.write = ((chunk: unknown, ...rest: unknown[]) => write(swap(chunk), ...rest)) as ServerResponse["write"];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => (typeof chunk === "function" || chunk === undefined ? end(chunk, ...rest) : end(swap(chunk), ...rest))) as ServerResponse["end"];
}
