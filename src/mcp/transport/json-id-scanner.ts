// Finds the top-level "id" of a JSON object fed to it in pieces, without keeping the text: an over-long stdin line is
// discarded as it streams, yet its error can still carry the request's id (the tunnel waits for exactly that id).
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import { validId } from "./jsonrpc-inbound.ts";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
/** Longer keys cannot be "id"; longer values cannot be an id anyone echoes usefully. */
const MAX_KEY_BYTES = 64;
const MAX_ID_BYTES = 4096;

const isWhitespace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/**
 * A byte-level scanner: it tracks strings and nesting only, so it never fails on malformed input (it just may not
 * find an id). Multi-byte UTF-8 never contains ASCII bytes, so scanning bytes is safe. The last top-level "id"
 * wins, as in JSON.parse.
 */
export class TopLevelIdScanner {
  private started = false;
  private done = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private expectKey = false;
  private keyIsId = false;
  private key: number[] | null = null;
  private value: number[] | null = null;
  private valueTooLong = false;
  private found: string | null = null;

  feed(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length && !this.done; i++) {
      const b = chunk[i]!;
      if (!this.started) {
        if (isWhitespace(b)) continue;
        this.started = true;
        if (b !== LBRACE) {
          this.done = true; // not an object: no id to find
          continue;
        }
        this.depth = 1;
        this.expectKey = true;
        continue;
      }
      if (this.inString) {
        // Fast path: inside a string nobody is capturing, skip ahead to the next quote or backslash.
        if (this.key === null && this.value === null && !this.escaped) {
          while (i < chunk.length && chunk[i] !== QUOTE && chunk[i] !== BACKSLASH) i++;
          if (i === chunk.length) return;
        }
        const c = chunk[i]!;
        this.record(c);
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (this.key !== null) this.finishKey();
        }
        continue;
      }
      if (this.depth === 1 && this.value !== null && (b === COMMA || b === RBRACE)) this.finishValue();
      switch (b) {
        case QUOTE:
          this.inString = true;
          if (this.depth === 1 && this.expectKey) {
            this.key = [b];
            this.expectKey = false;
          } else this.record(b);
          break;
        case LBRACE:
        case LBRACKET:
          this.record(b);
          this.depth++;
          break;
        case RBRACE:
        case RBRACKET:
          if (this.depth === 1) {
            this.done = true;
            break;
          }
          this.record(b);
          this.depth--;
          break;
        case COLON:
          if (this.depth === 1) {
            if (this.keyIsId) {
              this.value = [];
              this.valueTooLong = false;
            }
          } else this.record(b);
          break;
        case COMMA:
          if (this.depth === 1) {
            this.expectKey = true;
            this.keyIsId = false;
          } else this.record(b);
          break;
        default:
          this.record(b);
      }
    }
  }

  /** The id found so far, when it is a valid JSON-RPC id (string or integer). */
  id(): RequestId | null {
    if (this.found === null) return null;
    try {
      return validId(JSON.parse(this.found));
    } catch {
      return null;
    }
  }

  private record(b: number): void {
    if (this.key !== null) {
      if (this.key.length <= MAX_KEY_BYTES) this.key.push(b);
    } else if (this.value !== null && !this.valueTooLong) {
      if (this.value.length >= MAX_ID_BYTES) this.valueTooLong = true;
      else this.value.push(b);
    }
  }

  private finishKey(): void {
    const raw = this.key!;
    this.key = null;
    this.keyIsId = false;
    if (raw.length > MAX_KEY_BYTES) return;
    try {
      this.keyIsId = JSON.parse(Buffer.from(raw).toString("utf8")) === "id";
    } catch {
      // a malformed key is not "id"
    }
  }

  private finishValue(): void {
    const raw = this.value!;
    this.value = null;
    this.keyIsId = false;
    this.found = this.valueTooLong ? "null" : Buffer.from(raw).toString("utf8").trim();
  }
}
