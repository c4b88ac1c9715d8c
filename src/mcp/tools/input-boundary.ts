// What every tool input must be before a handler sees it: an object with only the keys the tool declares, and text
// the app-server can parse. A supervisor that sends `cwd` learns it cannot; a lone surrogate never reaches Codex
// (its JSON parser drops the line and the call would hang until it times out).
import type { z } from "zod";
import { firstLoneSurrogate } from "../../unicode.ts";

const SHOWN_KEY_CHARS = 60;

/** The error for keys a tool does not take: names them and every key it does take. */
export function unknownKeysMessage(keys: readonly string[], accepted: readonly string[]): string {
  const shown = keys.slice(0, 5).map((k) => JSON.stringify(k.length > SHOWN_KEY_CHARS ? `${k.slice(0, SHOWN_KEY_CHARS)}…` : k));
  const more = keys.length > 5 ? ` and ${keys.length - 5} more` : "";
  const takes = accepted.length ? `it takes only: ${accepted.join(", ")}` : "it takes no arguments (call it with {})";
  return `${shown.join(", ")}${more} ${keys.length === 1 ? "is not an input" : "are not inputs"} of this tool and would be ignored; ${takes}`;
}

const fieldPath = (path: (string | number)[]) =>
  path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("") || "arguments";

/**
 * Adds one issue for the first string (value or key) anywhere in the input that holds a lone UTF-16 surrogate.
 * Iterative, so a deeply nested payload cannot exhaust the stack.
 */
export function refuseLoneSurrogates(input: unknown, ctx: z.RefinementCtx): void {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: input, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === "string") {
      const bad = firstLoneSurrogate(value);
      if (bad) {
        ctx.addIssue({ code: "custom", path: [], message: `${fieldPath(path)}: holds a lone UTF-16 surrogate (${bad.unit} at character ${bad.index}), which has no UTF-8 form and which Codex cannot read; send well-formed Unicode text` });
        return;
      }
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: [...path, i] });
    } else if (value !== null && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) {
        if (firstLoneSurrogate(k)) {
          ctx.addIssue({ code: "custom", path: [], message: `${fieldPath(path)}: a key holds a lone UTF-16 surrogate, which Codex cannot read; send well-formed Unicode text` });
          return;
        }
        stack.push({ value: v, path: [...path, k] });
      }
    }
  }
}
