// Safe path resolution inside a project: lexical checks, real-path containment, sensitive names, and an opened
// file descriptor checked again so a swap after the check cannot escape.
import { isInside } from "../containment.ts";
import { LONE_SURROGATE } from "../unicode.ts";
import fs from "node:fs";
import path from "node:path";
import { sensitiveMatcher } from "./sensitive.ts";
import { ArtifactPathError } from "./errors.ts";

export { ArtifactPathError };

export interface ResolveOptions {
  sensitive: readonly string[];
}

export interface ResolvedPath {
  /** Real absolute path inside the real project root. */
  abs: string;
  /** Normalized project-relative path with "/" separators ("" is the root). */
  rel: string;
}

const MAX_TOTAL_BYTES = 4096;
const MAX_SEGMENT_BYTES = 255;
const DEVICE_NAME = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$|clock\$)$/i;

function quote(p: string): string {
  const shown = p.length > 120 ? `${p.slice(0, 117)}...` : p;
  return JSON.stringify(shown);
}

interface Decoded {
  text: string;
  /** Some character was spelled in more bytes than UTF-8 allows (C0 AE for "."). */
  overlong: boolean;
}

/** Decodes percent escapes byte-wise, keeping bytes that are not valid UTF-8 visible as U+FFFD. */
function percentDecode(s: string): Decoded {
  if (!/%[0-9a-f]{2}/i.test(s)) return { text: s, overlong: false };
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < s.length; ) {
    if (s[i] === "%" && /^[0-9a-f]{2}$/i.test(s.slice(i + 1, i + 3))) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      const cp = s.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      bytes.push(...enc.encode(ch));
      i += ch.length;
    }
  }
  return decodeLenientUtf8(Uint8Array.from(bytes));
}

/**
 * UTF-8 decoding that also maps overlong forms (C0 AE, E0 80 AE, ...) to the character they spell, because
 * some decoders on the way to a file system did exactly that and turned them into dots and slashes.
 */
function decodeLenientUtf8(b: Uint8Array): Decoded {
  let out = "";
  let overlong = false;
  for (let i = 0; i < b.length; ) {
    const c = b[i];
    let n = 0;
    let cp = 0;
    if (c < 0x80) {
      out += String.fromCharCode(c);
      i++;
      continue;
    } else if ((c & 0xe0) === 0xc0) {
      n = 1;
      cp = c & 0x1f;
    } else if ((c & 0xf0) === 0xe0) {
      n = 2;
      cp = c & 0x0f;
    } else if ((c & 0xf8) === 0xf0) {
      n = 3;
      cp = c & 0x07;
    } else {
      out += "\ufffd";
      i++;
      continue;
    }
    let ok = true;
    for (let k = 1; ok && k <= n; k++) {
      const cc = b[i + k];
      if (cc === undefined || (cc & 0xc0) !== 0x80) ok = false;
      else cp = (cp << 6) | (cc & 0x3f);
    }
    if (!ok) {
      out += "\ufffd";
      i++;
      continue;
    }
    if (cp < [0, 0x80, 0x800, 0x10000][n]) overlong = true;
    out += cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? "\ufffd" : String.fromCodePoint(cp);
    i += n + 1;
  }
  return { text: out, overlong };
}

/**
 * Every reading of the input some layer could plausibly make: literal, URL-decoded (repeatedly), NFKC-folded;
 * and whether any decoding met an overlong UTF-8 form.
 */
function readings(input: string): { all: string[]; overlong: boolean } {
  const seen = new Set<string>([input]);
  let cur = input;
  let overlong = false;
  for (let i = 0; i < 4; i++) {
    const next = percentDecode(cur);
    overlong ||= next.overlong;
    if (next.text === cur) break;
    seen.add(next.text);
    cur = next.text;
  }
  for (const s of [...seen]) seen.add(s.normalize("NFKC"));
  return { all: [...seen], overlong };
}

function checkReading(input: string, r: string): void {
  if (r.includes("\0")) throw new ArtifactPathError("nul", `path ${quote(input.replace(/\0/g, "\\0"))}: NUL bytes are not allowed`);
  if (/^[\\/]{2}/.test(r)) throw new ArtifactPathError("unc", `path ${quote(input)}: UNC and network paths are not allowed; give a path relative to the project`);
  if (/^[a-z]:/i.test(r)) throw new ArtifactPathError("drive", `path ${quote(input)}: drive letters are not allowed; give a path relative to the project`);
  if (/^([\\/]|~([\\/]|$))/.test(r)) throw new ArtifactPathError("absolute", `path ${quote(input)}: absolute paths are not allowed; give a path relative to the project`);
  const segments = r.split(/[\\/]/);
  for (const seg of segments) {
    if (seg === "" || seg === ".") continue;
    // "..", "...", ". ." all reach the parent on some file system (Windows strips trailing dots and spaces).
    if (/^[.\s]+$/.test(seg)) throw new ArtifactPathError("traversal", `path ${quote(input)}: ".." and other parent references are not allowed`);
    if (seg.includes(":")) throw new ArtifactPathError("stream", `path ${quote(input)}: ":" is not allowed in names (alternate data streams, URLs)`);
    const stem = seg.split(".")[0].replace(/[\s.]+$/, "");
    if (DEVICE_NAME.test(stem)) throw new ArtifactPathError("device", `path ${quote(input)}: Windows device names (CON, NUL, COM1, ...) are not allowed`);
    if (/[\u0001-\u001f\u007f]/.test(seg)) throw new ArtifactPathError("invalid", `path ${quote(input)}: control characters are not allowed`);
  }
}

/**
 * The lexical half of containment: refuses every hostile form and returns the normalized relative path
 * ("" for the project root). Does not touch the file system.
 */
export function normalizeRelativePath(input: unknown, opts: ResolveOptions): string {
  if (typeof input !== "string") throw new ArtifactPathError("invalid", "path must be a string relative to the project");
  const bytes = Buffer.byteLength(input, "utf8");
  if (bytes > MAX_TOTAL_BYTES) throw new ArtifactPathError("too_long", `path is ${bytes} bytes long; the limit is ${MAX_TOTAL_BYTES}`);
  // A lone surrogate has no UTF-8 form: the file system would get U+FFFD, a different name than the one checked.
  if (LONE_SURROGATE.test(input)) {
    throw new ArtifactPathError("encoding", `path ${quote(input)}: holds an unpaired UTF-16 surrogate, which no file name can contain; send the name as valid Unicode`);
  }
  if (input.includes("\ufffd")) {
    throw new ArtifactPathError("encoding", `path ${quote(input)}: holds U+FFFD, the mark of bytes that were not valid UTF-8 on the way here; send the name as valid UTF-8`);
  }
  const read = readings(input);
  for (const r of read.all) checkReading(input, r);
  if (read.overlong) {
    throw new ArtifactPathError("encoding", `path ${quote(input)}: a percent escape spells a character in overlong UTF-8 (such as %C0%AE for "."); use the shortest form`);
  }
  const segments = input.split(/[\\/]/).filter((s) => s !== "" && s !== ".");
  for (const seg of segments) {
    const n = Buffer.byteLength(seg, "utf8");
    if (n > MAX_SEGMENT_BYTES) throw new ArtifactPathError("too_long", `path ${quote(input)}: a name is ${n} bytes long; the limit is ${MAX_SEGMENT_BYTES}`);
  }
  const rel = segments.join("/");
  // A name that only decodes to a sensitive one ("%2eenv") is refused too: some layer may decode it.
  for (const r of read.all) {
    const candidate = r.split(/[\\/]/).filter((s) => s !== "" && s !== ".").join("/");
    if (candidate !== "" && isSensitive(candidate, opts.sensitive)) {
      throw new ArtifactPathError("sensitive", `path ${quote(input)} matches sensitive_paths and is not readable through the bridge`);
    }
  }
  return rel;
}

function isSensitive(rel: string, globs: readonly string[]): boolean {
  return sensitiveMatcher(globs)(rel);
}

const realRoots = new Map<string, string>();

/** The project's real root; cached because the root does not move while the bridge runs. */
export function realRoot(root: string): string {
  const hit = realRoots.get(root);
  if (hit) return hit;
  let real: string;
  try {
    real = fs.realpathSync.native(root);
  } catch {
    throw new ArtifactPathError("not_found", "the project directory does not exist");
  }
  if (realRoots.size > 64) realRoots.clear();
  realRoots.set(root, real);
  return real;
}

function toRel(rootReal: string, abs: string): string {
  return path.relative(rootReal, abs).split(path.sep).join("/");
}

/**
 * Resolves a caller-supplied path inside a project: lexical checks, then the real path (symlinks and
 * junctions followed) must stay inside the real root and must not be sensitive under its real name either.
 */
export function resolveProjectPath(root: string, relPath: string, opts: ResolveOptions): ResolvedPath {
  const rel = normalizeRelativePath(relPath, opts);
  const rootReal = realRoot(root);
  const joined = rel === "" ? rootReal : path.join(rootReal, ...rel.split("/"));
  let real: string;
  try {
    real = fs.realpathSync.native(joined);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new ArtifactPathError("outside", `path ${quote(relPath)} is a symlink loop`);
    throw new ArtifactPathError("not_found", `path ${quote(relPath)} does not exist in the project; list files with codex_files`);
  }
  if (!isInside(rootReal, real)) {
    throw new ArtifactPathError("outside", `path ${quote(relPath)} resolves outside the project (a symlink or junction); only files inside the project are readable`);
  }
  const realRel = toRel(rootReal, real);
  if (realRel !== "" && isSensitive(realRel, opts.sensitive)) {
    throw new ArtifactPathError("sensitive", `path ${quote(relPath)} points to a file matching sensitive_paths and is not readable through the bridge`);
  }
  return { abs: real, rel };
}

export interface OpenedFile {
  fd: number;
  abs: string;
  rel: string;
  stat: fs.Stats;
}

export interface OpenOptions extends ResolveOptions {
  /** Serve regular files that have more than one name (the project's allow_hard_links). Default false. */
  allowHardLinks?: boolean;
  /** Test seam: runs between the containment check and the open, where a racing swap would happen. */
  beforeOpen?: (abs: string) => void;
}

const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/**
 * Opens a regular file inside the project for reading. The check is repeated on the descriptor: the opened
 * file must be the very inode that passed the check (same device and inode), so a symlink or directory
 * swapped in after the check is refused instead of read. A file with several names (hard links) is refused
 * unless allowed: its other name may lie outside the project, and no path check can see it.
 */
export function openProjectFile(root: string, relPath: string, opts: OpenOptions): OpenedFile {
  const { abs, rel } = resolveProjectPath(root, relPath, opts);
  let checked: fs.Stats;
  try {
    checked = fs.statSync(abs);
  } catch {
    throw new ArtifactPathError("not_found", `path ${quote(relPath)} does not exist in the project`);
  }
  if (checked.isDirectory()) throw new ArtifactPathError("not_file", `path ${quote(relPath)} is a directory; list it with codex_files`);
  if (!checked.isFile()) throw new ArtifactPathError("not_file", `path ${quote(relPath)} is not a regular file`);
  opts.beforeOpen?.(abs);
  let fd: number;
  try {
    // O_NONBLOCK keeps a FIFO swapped in from blocking the open; O_NOFOLLOW refuses a final-component symlink.
    fd = fs.openSync(abs, fs.constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "EMLINK") {
      throw new ArtifactPathError("changed", `path ${quote(relPath)} changed into a symlink while it was being opened; refused`);
    }
    throw new ArtifactPathError("not_found", `path ${quote(relPath)} could not be opened`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.dev !== checked.dev || st.ino !== checked.ino) {
      throw new ArtifactPathError("changed", `path ${quote(relPath)} changed while it was being opened; refused`);
    }
    if (st.nlink > 1 && !opts.allowHardLinks) {
      throw new ArtifactPathError(
        "hard_link",
        `path ${quote(relPath)} is a hard link (the file has ${st.nlink} names) and is not served: another name may lie outside ` +
          `the project. If this project's hard links are trusted (a pnpm store, a deduplicated checkout), set ` +
          `allow_hard_links = true in its [projects.<id>] table of the config.`,
      );
    }
    return { fd, abs, rel, stat: st };
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
}

/** Resolves a directory inside the project (for listings). */
export function resolveProjectDir(root: string, relPath: string, opts: ResolveOptions): ResolvedPath {
  const r = resolveProjectPath(root, relPath, opts);
  if (!fs.statSync(r.abs).isDirectory()) {
    throw new ArtifactPathError("not_dir", `path ${quote(relPath)} is a file, not a directory; read it with codex_artifact`);
  }
  return r;
}

export { isSensitive, toRel as relativeTo };
