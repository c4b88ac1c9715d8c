// The hand-written parses of the hot app-server envelopes (items, deltas) give exactly what their zod schemas give, on
// every real 0.171.0 sample and on the malformed, ambiguous and hostile shapes only a broken peer would send.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DeltaEnvelope, ItemEnvelope, parseDeltaEnvelope, parseItemEnvelope } from "../../src/codex/protocol/item.ts";
import { exactShape } from "../support/exact-value.ts";

const samples = JSON.parse(readFileSync(join(process.cwd(), "test", "fixtures", "codex", "protocol-samples-0.171.0.json"), "utf8")) as Record<string, { msg: { params?: unknown } }>;
const sampleParams = Object.entries(samples)
  .filter(([, v]) => v.msg.params !== undefined)
  .map(([k, v]) => [`sample: ${k}`, v.msg.params] as [string, unknown]);
const itemSample = samples["server notification item/completed (commandExecution:completed)"]!.msg.params as Record<string, unknown>;
const item = itemSample.item as Record<string, unknown>;

class Boxed {
  item = { type: "x", id: "i" };
  itemId = "i";
  delta = "d";
}

const EDGES: [string, unknown][] = [
  ["the item sample with turnId undefined", { ...itemSample, turnId: undefined }],
  ["the item sample without turnId", { item }],
  ["the item sample with a numeric turnId", { ...itemSample, turnId: 7 }],
  ["the item sample with a null turnId", { ...itemSample, turnId: null }],
  ["an item with keys in another order", { turnId: "t", extra: [1], item: { z: 1, id: "i", type: "x", y: undefined } }],
  ["an item without an id", { item: { type: "x" } }],
  ["an item with a numeric id", { item: { type: "x", id: 1 } }],
  ["an item with a null type", { item: { type: null, id: "i" } }],
  ["an array as item", { item: [{ type: "x", id: "i" }] }],
  ["a null item", { item: null }],
  ["an item with a prototype of its own", { item: Object.assign(Object.create({ inherited: 1 }), { type: "x", id: "i" }) }],
  ["a class instance as envelope", new Boxed()],
  ["a null-prototype envelope", Object.assign(Object.create(null), { item: { type: "x", id: "i" }, itemId: "i", delta: "d" })],
  ["an own __proto__ key in the item", JSON.parse('{"item":{"type":"x","id":"i","__proto__":{"polluted":1}}}')],
  ["an own __proto__ key in the envelope", JSON.parse('{"item":{"type":"x","id":"i"},"itemId":"i","delta":"d","__proto__":{"turnId":"t"}}')],
  ["a delta", { itemId: "i", delta: "text", turnId: "t", threadId: "th" }],
  ["a delta with turnId undefined", { delta: "text", itemId: "i", turnId: undefined }],
  ["a delta without turnId", { itemId: "i", delta: "" }],
  ["a delta with a numeric delta", { itemId: "i", delta: 5 }],
  ["a delta with a bad turnId", { itemId: "i", delta: "d", turnId: false }],
  ["an empty object", {}],
  ["an array", [{ itemId: "i", delta: "d" }]],
  ["a string", "text"],
  ["null", null],
  ["undefined", undefined],
];

function same(quick: { success: boolean; data?: unknown; error?: unknown }, full: { success: boolean; data?: unknown; error?: { issues: unknown[] } }): void {
  expect(quick.success).toBe(full.success);
  expect(Object.keys(quick)).toEqual(Object.keys(full));
  if (full.success) expect(exactShape(quick.data)).toEqual(exactShape(full.data));
  else expect((quick.error as { issues: unknown[] }).issues).toEqual(full.error!.issues);
}

describe("the quick parse of item and delta envelopes", () => {
  for (const [what, value] of [...sampleParams, ...EDGES]) {
    it(`parses ${what} as ItemEnvelope does`, () => {
      same(parseItemEnvelope(structuredCloneLoose(value)), ItemEnvelope.safeParse(structuredCloneLoose(value)));
    });
    it(`parses ${what} as DeltaEnvelope does`, () => {
      same(parseDeltaEnvelope(structuredCloneLoose(value)), DeltaEnvelope.safeParse(structuredCloneLoose(value)));
    });
  }

  it("keeps the item's own values (no copy of nested data)", () => {
    const r = parseItemEnvelope(itemSample);
    expect(r.success && r.data.item.commandActions).toBe(item.commandActions);
  });
});

/** A copy for each side (a parse must not see what the other did), keeping prototypes and __proto__ keys as they were. */
function structuredCloneLoose(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  if (Object.getPrototypeOf(v) !== Object.prototype || Object.hasOwn(v, "__proto__")) return v;
  return structuredClone(v);
}
