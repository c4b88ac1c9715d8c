// codex_files: lists or searches a project's files (metadata only), hiding sensitive paths and never leaving the root.
import fs from "node:fs";
import path from "node:path";
import mime from "mime";
import picomatch from "picomatch";
import { isInside } from "../containment.ts";
import { ArtifactPathError, normalizeRelativePath, realRoot, relativeTo, resolveProjectDir } from "./resolve.ts";
import { sensitiveMatcher } from "./sensitive.ts";
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from "./limits.ts";

export interface FileEntry {
  path: string;
  size: number;
  /** ISO 8601, second precision. */
  mtime: string;
  kind: "file" | "dir" | "symlink";
  mime?: string;
}

export interface ListOptions {
  path?: string;
  /** Defaults to true when a query is given, else false. */
  recursive?: boolean;
  /** A glob when it holds *, ?, [ or {; otherwise a case-insensitive substring of the relative path. */
  query?: string;
  offset?: number;
  limit?: number;
  sensitive: readonly string[];
  maxDepth?: number;
  /** Most directory entries examined in one listing, so a huge tree cannot stall the bridge. */
  maxVisited?: number;
  /**
   * Test seam: how the file system describes an entry. Windows junctions and mount points, and Wine's view of a
   * Unix symlink, come back as plain directories; a test gives the same view on Linux.
   */
  lstat?: (abs: string) => fs.Stats;
}

export interface ListResult {
  entries: FileEntry[];
  total: number;
  next_offset?: number;
  /** The walk stopped at its depth or count bound; narrow `path` or `query`. */
  truncated?: true;
}

const DEFAULT_MAX_DEPTH = 32;
const DEFAULT_MAX_VISITED = 50_000;

export function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}

function queryMatcher(query: string | undefined): ((rel: string) => boolean) | undefined {
  if (query === undefined || query === "") return undefined;
  if (/[*?[\]{}]/.test(query)) {
    const m = picomatch(query.replace(/\\/g, "/"), { nocase: true, dot: true, basename: true });
    return (rel) => m(rel);
  }
  const needle = query.toLowerCase();
  return (rel) => rel.toLowerCase().includes(needle);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Lists file metadata under a project directory; sensitive and escaping entries are left out silently. */
export function listFiles(root: string, opts: ListOptions): ListResult {
  const offset = opts.offset ?? 0;
  const limit = opts.limit ?? LIST_DEFAULT_LIMIT;
  if (!Number.isInteger(offset) || offset < 0) throw new RangeError("offset must be a non-negative integer");
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX_LIMIT) throw new RangeError(`limit must be an integer from 1 to ${LIST_MAX_LIMIT}`);
  const base = resolveProjectDir(root, opts.path ?? "", opts);
  const rootReal = realRoot(root);
  const isSensitive = sensitiveMatcher(opts.sensitive);
  const matches = queryMatcher(opts.query);
  const recursive = opts.recursive ?? matches !== undefined;
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxVisited = opts.maxVisited ?? DEFAULT_MAX_VISITED;

  const found: FileEntry[] = [];
  let visited = 0;
  let truncated = false;
  // What the project hides, it hides under every spelling: a link such as `alias -> .` re-enters the project, so
  // each entry is also judged by its real path. A .git directory reached through a link is hidden like .git itself,
  // unless the listing was asked for inside it.
  const baseInGit = relativeTo(rootReal, base.abs).split("/").includes(".git");
  const hiddenAt = (realRel: string): boolean =>
    realRel !== "" && (isSensitive(realRel) || (!baseInGit && realRel.split("/").includes(".git")));
  // Each directory is walked once, whatever mount or link leads to it again.
  const walked = new Set<string>();
  const firstWalk = (st: fs.Stats): boolean => {
    const id = `${st.dev}:${st.ino}`;
    if (walked.has(id)) return false;
    walked.add(id);
    return true;
  };
  try {
    firstWalk(fs.statSync(base.abs));
  } catch {
    // listed as empty below
  }
  // Directories are walked by their real location but reported by the path the caller used.
  const stack: { abs: string; rel: string; depth: number }[] = [{ abs: base.abs, rel: base.rel, depth: 0 }];
  while (stack.length) {
    const dir = stack.pop()!;
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(dir.abs, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const d of names) {
      if (++visited > maxVisited) {
        truncated = true;
        break;
      }
      if (d.name === ".git") continue;
      const rel = dir.rel === "" ? d.name : `${dir.rel}/${d.name}`;
      try {
        // The same lexical rules as reads, so nothing is listed that cannot then be opened.
        normalizeRelativePath(rel, opts);
      } catch (e) {
        if (e instanceof ArtifactPathError) continue;
        throw e;
      }
      const abs = path.join(dir.abs, d.name);
      const realRel = relativeTo(rootReal, abs);
      if (realRel !== rel && hiddenAt(realRel)) continue;
      let lst: fs.Stats;
      try {
        lst = (opts.lstat ?? fs.lstatSync)(abs);
      } catch {
        continue;
      }
      if (!lst.isFile() && !lst.isDirectory() && !lst.isSymbolicLink()) continue;
      const kind: FileEntry["kind"] = lst.isDirectory() ? "dir" : lst.isSymbolicLink() ? "symlink" : "file";
      // Every entry is judged by its real path, by the same check reads make, whatever lstat said: a Windows
      // junction or mount point (and Wine's view of a Unix symlink) looks like a plain directory, yet leads elsewhere.
      let real: string;
      let st: fs.Stats;
      try {
        real = fs.realpathSync.native(abs);
        if (!isInside(rootReal, real)) continue;
        if (real !== abs && hiddenAt(relativeTo(rootReal, real))) continue;
        st = real === abs ? lst : fs.statSync(real);
      } catch {
        continue;
      }
      if (!st.isFile() && !st.isDirectory()) continue;
      const entry: FileEntry = { path: rel, size: st.isDirectory() ? 0 : st.size, mtime: isoSeconds(st.mtime), kind };
      if (st.isFile()) {
        const type = mime.getType(d.name);
        if (type) entry.mime = type;
      }
      if (!matches || matches(rel)) found.push(entry);
      // Symlinked directories are not descended into: that is how loops and escapes would start. A directory that
      // only looks plain is entered by its real path (checked above), once.
      if (recursive && kind === "dir" && st.isDirectory() && firstWalk(st)) {
        if (dir.depth + 1 < maxDepth) stack.push({ abs: real, rel, depth: dir.depth + 1 });
        else truncated = true;
      }
    }
    if (truncated && visited > maxVisited) break;
  }
  found.sort((a, b) => compare(a.path, b.path));
  const page = found.slice(offset, offset + limit);
  const result: ListResult = { entries: page, total: found.length };
  if (offset + page.length < found.length) result.next_offset = offset + page.length;
  if (truncated) result.truncated = true;
  return result;
}
