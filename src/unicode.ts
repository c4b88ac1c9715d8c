// Well-formed Unicode, checked where outside text comes in (tool inputs, artifact paths): a lone UTF-16 surrogate has
// no UTF-8 form, so a file system, SQLite and the app-server's JSON parser would each read something else, or nothing.
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The first lone surrogate of `s` as its index and code unit, or null when `s` is well-formed. */
export function firstLoneSurrogate(s: string): { index: number; unit: string } | null {
  const m = LONE_SURROGATE.exec(s);
  return m ? { index: m.index, unit: `U+${s.charCodeAt(m.index).toString(16).toUpperCase()}` } : null;
}
