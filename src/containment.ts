// The one containment check: is a path the root itself or below it? Used by config (allowed roots), the approval
// policy (shell paths, always POSIX) and artifacts (real paths), so all three agree on what "inside" means.
import path from "node:path";

export interface ContainOptions {
  /** Compare case-insensitively (Windows and macOS file systems). */
  foldCase?: boolean;
  /** Treat both paths as POSIX whatever the host (shell command words). */
  posix?: boolean;
}

export function isInside(root: string, candidate: string, opts: ContainOptions = {}): boolean {
  const p = opts.posix ? path.posix : path;
  const fold = (s: string) => (opts.foldCase ? s.toLowerCase() : s);
  const rel = p.relative(fold(root), fold(candidate));
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${p.sep}`) && !p.isAbsolute(rel));
}
