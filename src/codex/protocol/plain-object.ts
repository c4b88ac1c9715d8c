// What the hand-written parses of the hot app-server envelopes share: they accept only plain JSON objects (what
// JSON.parse builds) and build zod's output from them; anything stranger goes to the zod schema itself.

export type PlainObject = Record<string, unknown>;

/** An object JSON.parse could have built: Object.prototype as its prototype (so no array, no class, no null-prototype). */
export function isPlainObject(v: unknown): v is PlainObject {
  return typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

/**
 * A passthrough object's tail as zod builds it: every own key of `input` not in the shape, in input order, after the
 * shape's. False for an own `__proto__` key, whose assignment would not copy a key: that input is left to zod.
 */
export function copyUnknownKeys(input: PlainObject, out: PlainObject, shape: ReadonlySet<string>): boolean {
  for (const k of Object.keys(input)) {
    if (shape.has(k)) continue;
    if (k === "__proto__") return false;
    out[k] = input[k];
  }
  return true;
}
