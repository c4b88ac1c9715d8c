// Test support: tool-call arguments generated from the live tools/list input schemas, valid or invalid on purpose
// (an unknown key, a missing or mistyped field, a string too long, a lone surrogate, a number out of range, a value
// outside an enum or a pattern), and malformed JSON-RPC lines, each with what the bridge owes it: an answer with the
// line's id, an answer with id null, or none (notifications and responses are never answered).
// A mutation is derived from the tool's own live schema and kept only when the schema (with unknown keys refused, as
// the bridge refuses them) rejects the result, so "invalid" never depends on a guess about a tool's inputs.
import { Ajv, type ValidateFunction } from "ajv";
import type { Random } from "./reliability.ts";

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  maxItems?: number;
}

export interface Tool {
  name: string;
  inputSchema: JsonSchema;
}

/** What the fuzzer knows of the bridge's state: ids that exist, so valid calls reach real code paths too. */
export interface FuzzContext {
  taskIds: string[];
  threadIds: string[];
}

export interface FuzzCall {
  tool: string;
  args: unknown;
  /** true when the arguments break the schema: the answer must be an error. */
  invalid: boolean;
  mutation: string;
  /** Holds a string of a MiB or more. */
  huge: boolean;
}

const WELL_FORMED_TEXT = ["plain words", "émigré façade", "日本語のテキスト", "emoji 😀👍🏽", "עברית مرحبا", "a\u0301 combining", "tab\tand\nnewline", "quote\" back\\slash", "NUL\u0000byte", "zero\u200bwidth", ""];
const hex = (r: Random, n: number) => Array.from({ length: n }, () => "0123456789abcdef"[r.int(0, 15)]).join("");

/** A string the schema accepts; patterns the bridge uses get a value of their shape. */
function validString(s: JsonSchema, r: Random, ctx: FuzzContext, key: string): string {
  const min = s.minLength ?? 0;
  const max = Math.min(s.maxLength ?? 60, 60);
  if (s.pattern?.includes("t_")) return r.chance(0.5) && ctx.taskIds.length ? r.pick(ctx.taskIds) : `t_${hex(r, 10)}`;
  if (s.pattern?.includes("r_")) return `r_${hex(r, 10)}`;
  if (s.pattern) return r.pick(["demo", "default", `x${hex(r, 6)}`]);
  if (key === "thread_id" && ctx.threadIds.length && r.chance(0.5)) return r.pick(ctx.threadIds);
  if (key === "project_id") return r.pick(["demo", "nope", `p${hex(r, 4)}`]);
  let text = r.pick(WELL_FORMED_TEXT);
  while (text.length < min) text += " more words";
  return text.slice(0, Math.max(max, min));
}

function validNumber(s: JsonSchema, r: Random, integer: boolean): number {
  const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
  const hi = Math.min(s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 1000), lo + 1000);
  return integer ? r.int(Math.ceil(lo), Math.floor(hi)) : lo + r.next() * (hi - lo);
}

function typeOf(s: JsonSchema): string | undefined {
  return Array.isArray(s.type) ? s.type[0] : s.type;
}

export function validValue(s: JsonSchema, r: Random, ctx: FuzzContext, key = ""): unknown {
  if (s.enum) return r.pick(s.enum);
  if (s.anyOf) return validValue(r.pick(s.anyOf), r, ctx, key);
  switch (typeOf(s)) {
    case "string":
      return validString(s, r, ctx, key);
    case "integer":
      return validNumber(s, r, true);
    case "number":
      return validNumber(s, r, false);
    case "boolean":
      return r.chance(0.5);
    case "array":
      return Array.from({ length: r.int(0, Math.min(3, s.maxItems ?? 3)) }, () => validValue(s.items ?? {}, r, ctx));
    case "object": {
      if (s.properties) return validObject(s, r, ctx);
      return Object.fromEntries(Array.from({ length: r.int(0, 3) }, () => [r.pick(["a", "answers", "content", "scope", "note"]), r.pick(WELL_FORMED_TEXT)]));
    }
    default:
      return r.pick(WELL_FORMED_TEXT);
  }
}

function validObject(s: JsonSchema, r: Random, ctx: FuzzContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    if ((s.required ?? []).includes(k) || r.chance(0.4)) out[k] = validValue(p, r, ctx, k);
  }
  return out;
}

/** A string that is `bytes` long (1 to 5 MiB for the huge cases). */
const big = (r: Random, bytes: number) => r.pick(["x", "ab", "é", "😀"]).repeat(Math.ceil(bytes / 2));

/**
 * A broken input, or null when the tool offers nothing to break that way. `schemaRule`: the schema itself forbids it
 * (checked before the call is made), else it breaks a rule of the bridge's own that no JSON Schema can say.
 */
type Mutation = (tool: Tool, base: Record<string, unknown>, r: Random, tools: Tool[]) => { args: unknown; name: string; huge?: boolean; schemaRule: boolean } | null;

const stringKeys = (t: Tool) => Object.entries(t.inputSchema.properties ?? {}).filter(([, p]) => typeOf(p) === "string" || p.anyOf?.some((a) => typeOf(a) === "string"));

/** Names another tool takes, and look-alikes of real names: plausible mistakes, none of them this tool's own. */
const STRANGE_KEYS = ["zz", "__proto__x", "Task_Id", "prompt ", "sandbox", "approval_policy"];

export function unknownKeys(tool: Tool, tools: Tool[]): string[] {
  const own = new Set(Object.keys(tool.inputSchema.properties ?? {}));
  const others = tools.flatMap((t) => Object.keys(t.inputSchema.properties ?? {}));
  return [...new Set([...others, ...STRANGE_KEYS])].filter((k) => !own.has(k));
}

const MUTATIONS: Mutation[] = [
  (t, base, r, tools) => ({ args: { ...base, [r.pick(unknownKeys(t, tools))]: r.pick(["/", "danger-full-access", 1, null]) }, name: "unknown key", schemaRule: true }),
  (t, base, r) => {
    const req = t.inputSchema.required ?? [];
    if (!req.length) return null;
    const { [r.pick(req)]: _dropped, ...rest } = base;
    return { args: rest, name: "missing required", schemaRule: true };
  },
  (t, base, r) => {
    const keys = Object.keys(t.inputSchema.properties ?? {});
    if (!keys.length) return null;
    const k = r.pick(keys);
    const wrong = r.pick([42, 1.5, true, null, [], {}, "a", [1, 2], { a: 1 }]);
    return { args: { ...base, [k]: wrong }, name: `wrong type (${k})`, schemaRule: true };
  },
  (t, base, r) => {
    const capped = stringKeys(t).filter(([, p]) => p.maxLength !== undefined);
    if (!capped.length) return null;
    const [k, p] = r.pick(capped);
    const huge = r.chance(0.1);
    const value = huge ? big(r, r.int(1, 5) * 1024 * 1024) : "y".repeat(p.maxLength! + r.int(1, 50));
    if (value.length <= p.maxLength!) return null;
    return { args: { ...base, [k]: value }, name: `over maxLength (${k})`, huge, schemaRule: !huge };
  },
  // The bridge's own rule, beyond JSON Schema: no string may hold a lone surrogate (it cannot become UTF-8).
  (t, base, r) => {
    const keys = stringKeys(t).filter(([, p]) => !p.enum);
    if (!keys.length) return null;
    const [k] = r.pick(keys);
    const lone = r.pick(["\ud800", "\udbff", "\udc00", "\udfff"]);
    return { args: { ...base, [k]: r.pick([`${lone}`, `start ${lone}`, `${lone} end`, `a${lone}😀`]) }, name: `lone surrogate (${k})`, schemaRule: false };
  },
  (t, base, r) => {
    const records = Object.entries(t.inputSchema.properties ?? {}).filter(([, p]) => typeOf(p) === "object" || p.anyOf?.some((a) => typeOf(a) === "object"));
    if (!records.length) return null;
    const [k] = r.pick(records);
    return { args: { ...base, [k]: { answers: { q1: [`ok`, `bad\ud83d`] } } }, name: `nested lone surrogate (${k})`, schemaRule: false };
  },
  (t, base, r) => {
    const enums = Object.entries(t.inputSchema.properties ?? {}).filter(([, p]) => p.enum);
    if (!enums.length) return null;
    const [k] = r.pick(enums);
    return { args: { ...base, [k]: r.pick(["", "DELETE", "list ", "auto\u0000", "😀"]) }, name: `not in enum (${k})`, schemaRule: true };
  },
  (t, base, r) => {
    const nums = Object.entries(t.inputSchema.properties ?? {}).filter(([, p]) => typeOf(p) === "integer" || typeOf(p) === "number");
    if (!nums.length) return null;
    const [k, p] = r.pick(nums);
    const candidates = [p.minimum !== undefined ? p.minimum - 1 : null, p.maximum !== undefined ? p.maximum + 1 : null, 1.5, -1e308, 2 ** 60];
    return { args: { ...base, [k]: r.pick(candidates.filter((v) => v !== null)) }, name: `out of range (${k})`, schemaRule: true };
  },
  (t, base, r) => {
    const patterned = stringKeys(t).filter(([, p]) => p.pattern);
    if (!patterned.length) return null;
    const [k] = r.pick(patterned);
    return { args: { ...base, [k]: r.pick(["t_ZZ", "../../etc", "t_0123456789 ", "", "r_x", "\u0000", "-lead"]) }, name: `pattern miss (${k})`, schemaRule: true };
  },
  (_t, _base, r) => ({ args: r.pick([[], "str", 7, true, [{}]]), name: "arguments not an object", schemaRule: true }),
];

const ajv = new Ajv({ allErrors: false, strict: false });
const validators = new WeakMap<Tool, ValidateFunction>();

/** Whether the tool's live schema, with unknown keys refused as the bridge refuses them, rejects these arguments. */
export function schemaRejects(tool: Tool, args: unknown): boolean {
  let validate = validators.get(tool);
  if (!validate) {
    validate = ajv.compile({ ...tool.inputSchema, additionalProperties: false });
    validators.set(tool, validate);
  }
  return !validate(args);
}

/**
 * One fuzzed call. `allowValid` lets the caller keep costly valid calls (a real task start, a runtime restart) rare.
 * Valid waits are kept short: a fuzzer must not hold the pipe for 25 s at a time.
 */
export function fuzzCall(tools: Tool[], r: Random, ctx: FuzzContext, allowValid: (tool: string) => boolean): FuzzCall {
  const tool = r.pick(tools);
  const base = validObject(tool.inputSchema, r, ctx);
  if ("timeout_seconds" in (tool.inputSchema.properties ?? {})) base.timeout_seconds = r.int(0, 1);
  if (r.chance(0.3) && allowValid(tool.name)) return { tool: tool.name, args: base, invalid: false, mutation: "valid", huge: false };
  for (let i = 0; i < 20; i++) {
    const m = r.pick(MUTATIONS)(tool, base, r, tools);
    if (m && (!m.schemaRule || schemaRejects(tool, m.args))) return { tool: tool.name, args: m.args, invalid: true, mutation: m.name, huge: m.huge ?? false };
  }
  return { tool: tool.name, args: [], invalid: true, mutation: "arguments not an object", huge: false };
}

/** What the bridge owes a raw line: an error with the line's id, an error with id null, or nothing at all. */
export type Owed = { answer: "id"; id: string | number; error: boolean } | { answer: "null" } | { answer: "none" };

export interface RawLine {
  line: string | Uint8Array;
  owed: Owed;
  kind: string;
}

/** ≥ 1,000 different malformed lines come out of these shapes and the random parts in them. */
export function malformedLine(r: Random, n: number, huge: boolean): RawLine {
  const id = `m-${n}`;
  const req = (extra: Record<string, unknown>) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping", ...extra });
  const shapes: (() => RawLine)[] = [
    () => ({ line: r.pick(["not json", "{", "}", "[", "{\"jsonrpc\":", "nul", "\"str", "{'single': 1}", "{\"a\":1}}", "\u00ff\u00fe"]) + hex(r, r.int(0, 8)), owed: { answer: "null" }, kind: "unparseable" }),
    () => ({ line: req({}).slice(0, r.int(1, 30)), owed: { answer: "null" }, kind: "truncated" }),
    () => ({ line: `${req({})} ${req({})}`, owed: { answer: "null" }, kind: "two messages on one line" }),
    () => ({ line: `\ufeff${req({})}`, owed: { answer: "null" }, kind: "byte order mark" }),
    () => ({ line: r.pick(["1", "-3.5", "\"text\"", "null", "true", "[]", "[1,2]", "{}"]), owed: { answer: "null" }, kind: "not a request object" }),
    () => ({ line: JSON.stringify([{ jsonrpc: "2.0", id, method: "ping" }, { jsonrpc: "2.0", id: `${id}b`, method: "ping" }]), owed: { answer: "null" }, kind: "batch" }),
    () => ({ line: JSON.stringify({ jsonrpc: r.pick(["1.0", "3.0", 2, null, ""]), id, method: "ping" }), owed: { answer: "id", id, error: true }, kind: "wrong jsonrpc" }),
    () => ({ line: JSON.stringify({ id, method: "ping" }), owed: { answer: "id", id, error: true }, kind: "no jsonrpc" }),
    () => ({ line: JSON.stringify({ jsonrpc: "2.0", id: r.pick([true, {}, [], false]), method: "ping" }), owed: { answer: "null" }, kind: "unusable id" }),
    () => ({ line: JSON.stringify({ jsonrpc: "2.0", id: null, method: "ping" }), owed: { answer: "null" }, kind: "null id" }),
    // MCP's RequestId is a string or any number: a fraction is an id like another, answered with itself.
    () => {
      const n = r.pick([1.5, -0.25, 1e-7, 2 ** 53 + 2]);
      return { line: JSON.stringify({ jsonrpc: "2.0", id: n, method: "ping" }), owed: { answer: "id", id: n, error: false }, kind: "fractional id" };
    },
    () => ({ line: JSON.stringify({ jsonrpc: "2.0", id, method: r.pick([7, null, "", [], {}]) }), owed: { answer: "id", id, error: true }, kind: "method not a name" }),
    () => ({ line: JSON.stringify({ jsonrpc: "2.0", id }), owed: { answer: "id", id, error: true }, kind: "no method" }),
    () => ({ line: JSON.stringify({ jsonrpc: "2.0", id, method: r.pick(["no/such", "rpc.discover", "tools/cal", "TOOLS/LIST"]) }), owed: { answer: "id", id, error: true }, kind: "unknown method" }),
    () => ({ line: JSON.stringify({ jsonrpc: "2.0", id, method: r.pick(["tools/list", "tools/call", "ping", "resources/read"]), params: r.pick(["str", 5, [1], true]) }), owed: { answer: "id", id, error: true }, kind: "params not an object" }),
    () => ({ line: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: r.pick([{}, { name: 5 }, { name: "codex_status", arguments: "x" }, { name: "no_such_tool" }, { name: "codex_status", arguments: [] }]) }), owed: { answer: "id", id, error: true }, kind: "tools/call params" }),
    () => ({ line: JSON.stringify({ jsonrpc: "2.0", id, method: "resources/read", params: { uri: r.pick(["", "codex-artifact://demo/../../etc/passwd", "file:///etc/passwd", "codex-artifact://nope/x", 5]) } }), owed: { answer: "id", id, error: true }, kind: "resources/read" }),
    () => ({ line: JSON.stringify({ jsonrpc: "2.0", method: r.pick(["notifications/initialized", "notifications/cancelled", "no/such"]), params: r.pick(["str", 5, {}, { requestId: "zzz" }]) }), owed: { answer: "none" }, kind: "odd notification" }),
    () => ({ line: JSON.stringify({ jsonrpc: "2.0", id: r.int(1, 1e6), result: r.pick([{}, null, "x"]) }), owed: { answer: "none" }, kind: "response from the client" }),
    () => {
      const long = `${id}-${hex(r, r.int(1_000, 100_000))}`;
      return { line: JSON.stringify({ jsonrpc: "2.0", id: long, method: "ping", params: "x" }), owed: { answer: "id", id: long, error: true }, kind: "long id" };
    },
    () => {
      const depth = r.pick([1_000, 10_000, 100_000]);
      return { line: `${"[".repeat(depth)}${"]".repeat(depth)}`, owed: { answer: "null" }, kind: "deep nesting" };
    },
    () => ({ line: `{"jsonrpc":"2.0","id":"${id}","method":"ping","params":${"{\"a\":".repeat(5_000)}1${"}".repeat(5_000)}}`, owed: { answer: "id", id, error: false }, kind: "deep params" }),
    () => ({ line: Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":"${id}","method":"ping","params":{"x":"`), Buffer.from([0xc0, 0xae, 0xff, 0xfe, 0xed, 0xa0, 0x80]), Buffer.from(`"}}`)]), owed: { answer: "id", id, error: false }, kind: "invalid UTF-8 in a string" }),
    () => ({ line: Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x80, 0x81, 0xc3]), owed: { answer: "null" }, kind: "invalid UTF-8 bytes" }),
    () => ({ line: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "codex_status", arguments: { task_id: `t_${"\ud800".repeat(r.int(1, 3))}` } } }), owed: { answer: "id", id, error: true }, kind: "lone surrogate escape" }),
  ];
  if (huge) return { line: `{"jsonrpc":"2.0","id":"${id}","method":"ping","params":{"pad":"${"z".repeat(17 * 1024 * 1024)}"}}`, owed: { answer: "id", id, error: true }, kind: "over the line limit" };
  return r.pick(shapes)();
}
