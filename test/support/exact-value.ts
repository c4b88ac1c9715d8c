// A description of a value that two results share only if they are the same object graph in every visible way: keys
// and their order, undefined-valued keys, prototypes and leaf values (an ordinary deep equality ignores the first three).
export function exactShape(v: unknown): unknown {
  if (v === null || typeof v !== "object") return typeof v === "number" && Number.isNaN(v) ? "NaN" : v === undefined ? "<undefined>" : v;
  const proto = Object.getPrototypeOf(v);
  const kind = Array.isArray(v) ? "array" : proto === Object.prototype ? "object" : proto === null ? "null-proto" : `proto:${JSON.stringify(exactShape(proto))}`;
  return [kind, Reflect.ownKeys(v).map((k) => [String(k), exactShape((v as Record<PropertyKey, unknown>)[k])])];
}
