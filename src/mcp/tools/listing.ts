// Tool schemas as tools/list shows them. A model reads the whole listing at the start of every conversation, so the
// listing carries what helps it call the tools and nothing else.
import type { RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { refuseLoneSurrogates, unknownKeysMessage } from "./input-boundary.ts";

// The SDK prints `"$schema": "http://json-schema.org/draft-07/schema#"` into every input and output schema (about
// 1,500 characters for the surface) and it tells a model nothing. Without it a client reads the schema as MCP's
// default dialect (2020-12); the keywords used here (type, properties, required, enum, pattern, bounds, anyOf,
// single-schema items, additionalProperties) mean the same in both. An undefined meta value removes the key.
const NO_DIALECT_LINE = { $schema: undefined } as unknown as z.core.GlobalMeta;

// `"additionalProperties": false` on all 16 inputs would cost the listing ~460 characters it does not have (the budget
// is 12,000). Every input refuses unknown keys whatever the listing says; it is printed where a model is likeliest to
// invent one (codex_start's cwd or sandbox, codex_send's overrides) and left out elsewhere.
const NOT_LISTED_STRICT = { $schema: undefined, additionalProperties: undefined } as unknown as z.core.GlobalMeta;

/**
 * An input schema: every field keeps its validation, an unknown key is an error naming the keys the tool takes, and no
 * string anywhere in the input may hold a lone surrogate. `listStrict` prints `"additionalProperties": false` too.
 */
export function inputOf<S extends z.ZodRawShape>(shape: S, opts: { listStrict?: boolean } = {}) {
  const accepted = Object.keys(shape);
  return z
    .strictObject(shape, { error: (issue) => (issue.code === "unrecognized_keys" ? unknownKeysMessage(issue.keys, accepted) : undefined) })
    .superRefine(refuseLoneSurrogates)
    .meta(opts.listStrict ? NO_DIALECT_LINE : NOT_LISTED_STRICT);
}

// A loose object is printed with `"additionalProperties": {}`, which admits what JSON Schema admits anyway when the
// keyword is absent; the listing leaves it out.
const OPEN_OBJECT = { $schema: undefined, additionalProperties: undefined } as unknown as z.core.GlobalMeta;

/** An output schema: the few keys a reader acts on, every other key admitted (clients validate structuredContent). */
export function outputOf<S extends z.ZodRawShape>(shape: S) {
  return z.looseObject(shape).meta(OPEN_OBJECT);
}

/**
 * registerTool stamps every tool `execution: {"taskSupport": "forbidden"}`, which is what MCP assumes when the field
 * is absent; none of these tools is task-augmented, so the listing leaves it out (about 600 characters).
 */
export function listed(tool: RegisteredTool): RegisteredTool {
  delete tool.execution;
  return tool;
}

/** The shapes of the ids the bridge hands out (task and request ids), checked the same way by every tool. */
export const TASK_ID = /^t_[0-9a-f]{10}$/;
export const REQUEST_ID = /^r_[0-9a-f]{10}$/;

// Listing economy for fields whose full rule only the bridge needs to enforce (every one is still validated, and an
// error names the field): an id shape the model copies from a result anyway, a bound nobody reaches.
const LEAN = (keys: string[]) => Object.fromEntries(keys.map((k) => [k, undefined])) as unknown as z.core.GlobalMeta;

/** A string of an id's shape (TASK_ID, REQUEST_ID): refused with `what` when it does not match; listed without `pattern`. */
export const idString = (shape: RegExp, what: string) => z.string().refine((s) => shape.test(s), what);

/** Any JSON object, listed as `{"type":"object"}` (not `propertyNames`/`additionalProperties: {}`). */
export const anyObject = () => z.record(z.string(), z.unknown()).meta(LEAN(["propertyNames", "additionalProperties"]));

/** A whole number from 0 up, listed without the 2^53-1 maximum the SDK would print. */
export const countFromZero = () => z.number().int().min(0).meta(LEAN(["maximum"]));
