// Decides whether a project-relative path is sensitive (never listed or served) under a list of globs.
import picomatch from "picomatch";

export { DEFAULT_SENSITIVE_PATHS } from "./sensitive-paths.ts";

export type SensitiveMatcher = (rel: string) => boolean;

const cache = new Map<string, SensitiveMatcher>();

/**
 * A matcher over project-relative paths ("a/b/c"). A path is sensitive when the path itself or any of its
 * ancestors matches, so a file inside `.ssh/` is as sensitive as `.ssh`. A glob without a slash matches a
 * single name anywhere; a glob with a slash matches that path at the root or below any directory, and a
 * leading "/" anchors it at the root. Matching ignores case because macOS and Windows file systems do.
 */
export function sensitiveMatcher(globs: readonly string[]): SensitiveMatcher {
  const key = JSON.stringify(globs);
  const hit = cache.get(key);
  if (hit) return hit;
  const cleaned = globs.map((g) => g.trim().replace(/\\/g, "/").replace(/^\.\/+/, "").replace(/\/+$/, "")).filter((g) => g !== "" && g !== "/");
  const names: string[] = [];
  const paths: string[] = [];
  for (const g of cleaned) {
    if (g.startsWith("/")) paths.push(g.replace(/^\/+/, ""));
    else if (!g.includes("/")) names.push(g);
    else paths.push(g, g.startsWith("**/") ? g : `**/${g}`);
  }
  const opts = { nocase: true, dot: true };
  const nameMatch = names.length ? picomatch(names, opts) : () => false;
  const pathMatch = paths.length ? picomatch(paths, opts) : () => false;
  const matcher: SensitiveMatcher = (rel) => {
    const segments = rel.split("/").filter((s) => s !== "" && s !== ".");
    // Windows drops trailing dots and spaces from names, so ".env." opens ".env" there.
    const trimmed = segments.map((s) => s.replace(/[. ]+$/, "") || s);
    for (let i = 1; i <= segments.length; i++) {
      if (nameMatch(segments[i - 1]) || nameMatch(trimmed[i - 1])) return true;
      if (pathMatch(segments.slice(0, i).join("/")) || pathMatch(trimmed.slice(0, i).join("/"))) return true;
    }
    return false;
  };
  if (cache.size > 32) cache.clear();
  cache.set(key, matcher);
  return matcher;
}
