// Every line the app-server can send is classified by the quick parse exactly as by the full union it stands in for:
// each real 0.171.0 sample, and the malformed and ambiguous shapes only a broken peer would send.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { IncomingMessage, parseIncoming } from "../../src/codex/rpc-messages.ts";
import { exactShape } from "../support/exact-value.ts";

const samples = JSON.parse(readFileSync(join(process.cwd(), "test", "fixtures", "codex", "protocol-samples-0.171.0.json"), "utf8")) as Record<string, { msg: unknown }>;

const EDGES: [string, unknown][] = [
  ["a request with a string id", { id: "a", method: "m", params: { x: 1 } }],
  ["a request with a null id (a notification to the union)", { id: null, method: "m" }],
  ["a request with a fractional id", { id: 1.5, method: "m" }],
  ["a non-string method", { id: 1, method: 5 }],
  ["a notification without params", { method: "m" }],
  ["a notification with params undefined", { method: "m", params: undefined, jsonrpc: "2.0" }],
  ["a notification with an own __proto__ key", JSON.parse('{"method":"m","__proto__":{"params":5}}')],
  ["a notification with a prototype of its own", Object.assign(Object.create({ params: 1 }), { method: "m" })],
  ["a null-prototype notification", Object.assign(Object.create(null), { method: "m", params: [1] })],
  ["a result with a null result", { id: 3, result: null }],
  ["a bare id (a result to the union)", { id: 3 }],
  ["an error response", { id: 4, error: { code: -1, message: "no" } }],
  ["an error with a bad body and a result", { id: 4, error: { code: "x" }, result: 1 }],
  ["an error with a bad body only", { id: 4, error: "boom" }],
  ["an id-less error", { error: { code: -1, message: "no" } }],
  ["method and result together", { id: 9, method: "m", result: 1 }],
  ["an empty object", {}],
  ["an array", [{ method: "m" }]],
  ["a string", "text"],
  ["null", null],
  ["a number", 3],
];

describe("the quick parse of app-server lines", () => {
  const cases: [string, unknown][] = [...Object.entries(samples).map(([k, v]) => [`sample: ${k}`, v.msg] as [string, unknown]), ...EDGES];
  for (const [what, value] of cases) {
    it(`classifies ${what} as the union does`, () => {
      const quick = parseIncoming(copy(value));
      const full = IncomingMessage.safeParse(copy(value));
      expect(quick.success).toBe(full.success);
      expect(Object.keys(quick)).toEqual(Object.keys(full));
      if (full.success) expect(exactShape(quick.data)).toEqual(exactShape(full.data));
      else expect(quick.error!.issues).toEqual(full.error.issues);
    });
  }
});

/** A copy for each side, keeping prototypes and __proto__ keys as they were (structuredClone would drop them). */
function copy(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  if (!Array.isArray(v) && (Object.getPrototypeOf(v) !== Object.prototype || Object.hasOwn(v, "__proto__"))) return v;
  return structuredClone(v);
}
