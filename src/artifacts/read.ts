// codex_artifact: reads one project file through the safe opener, with MIME detection, inline limits and byte ranges.
import crypto from "node:crypto";
import fs from "node:fs";
import mime from "mime";
import { fileTypeFromBuffer } from "file-type";
import { leaseChunkBuffer } from "./chunk-buffer.ts";
import { isoSeconds } from "./list.ts";
import { openProjectFile, type OpenOptions } from "./resolve.ts";
import { ArtifactRangeError, ArtifactTooLargeError } from "./errors.ts";

export interface ReadOptions extends OpenOptions {
  maxBytes: number;
  /** Largest encoded payload one response may carry (text as is, binary as base64). */
  inlineBytes: number;
  offset?: number;
  length?: number;
}

export interface ArtifactRead {
  path: string;
  size: number;
  mime: string;
  /** The whole file is UTF-8 text without NUL bytes (judged on its first 64 KiB when not read whole). */
  text: boolean;
  sha256: string;
  mtime: string;
  /** Largest `length` one ranged read may ask for. */
  chunkBytes: number;
  /** Present when the whole file fits inline (no range asked) or for the requested range. */
  data?: Uint8Array;
  /** The byte range `data` holds; absent when `data` is the whole file or absent. */
  range?: { offset: number; length: number };
  /** Call once `data` is encoded: a ranged read's bytes may live in a buffer the next chunk reuses. */
  release(): void;
}

const SNIFF_BYTES = 64 * 1024;
const HASH_CHUNK = 1024 * 1024;

/** Raw bytes per ranged read so that its base64 form stays within the inline limit. */
export function chunkBytesFor(inlineBytes: number): number {
  return Math.max(3, Math.floor(inlineBytes / 4) * 3);
}

function base64Length(n: number): number {
  return Math.ceil(n / 3) * 4;
}

/** Whether the whole file may travel in one response. */
export function fitsInline(size: number, text: boolean, inlineBytes: number): boolean {
  return (text ? size : base64Length(size)) <= inlineBytes;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** UTF-8 without NUL; `partial` tolerates a character cut at the end of a prefix. */
export function looksLikeText(bytes: Uint8Array, partial: boolean): boolean {
  if (bytes.includes(0)) return false;
  let view = bytes;
  if (partial) {
    // Drop up to 3 trailing bytes of a multi-byte sequence that the prefix cut short.
    let cut = 0;
    for (let i = bytes.length - 1; i >= 0 && i >= bytes.length - 3; i--) {
      const b = bytes[i];
      if ((b & 0xc0) === 0x80) continue;
      if (b >= 0xc0) cut = bytes.length - i;
      break;
    }
    view = bytes.subarray(0, bytes.length - cut);
  }
  try {
    utf8.decode(view);
    return true;
  } catch {
    return false;
  }
}

function isTextLike(type: string): boolean {
  return (
    type.startsWith("text/") ||
    /^application\/(json|xml|javascript|x-sh|x-yaml|yaml|toml|sql|x-httpd-php|ld\+json)/.test(type) ||
    type.endsWith("+xml") ||
    type.endsWith("+json")
  );
}

function topLevel(type: string): string {
  return type.split("/")[0];
}

/**
 * The extension names the type unless the bytes say otherwise: a sniffed binary signature wins over a
 * text or media extension (a PNG named .txt is a PNG), and no extension falls back to the sniff or the
 * text check.
 */
export async function detectMime(name: string, head: Uint8Array, headIsWhole: boolean): Promise<{ mime: string; text: boolean }> {
  const byName = mime.getType(name) ?? undefined;
  const sniffed = (await fileTypeFromBuffer(head).catch(() => undefined))?.mime;
  const text = !sniffed && looksLikeText(head, !headIsWhole);
  let type: string;
  if (!byName) type = sniffed ?? (text ? "text/plain" : "application/octet-stream");
  else if (sniffed && sniffed !== byName) {
    const mediaName = ["image", "audio", "video"].includes(topLevel(byName));
    const mediaSniff = ["image", "audio", "video"].includes(topLevel(sniffed));
    type = isTextLike(byName) || mediaName || mediaSniff ? sniffed : byName;
  } else if (!sniffed && isTextLike(byName) && !text) type = "application/octet-stream";
  else type = byName;
  return { mime: type, text: text && (isTextLike(type) || type === "image/svg+xml") };
}

interface HashKey {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}
const hashCache = new Map<string, string>();

function hashKey(k: HashKey): string {
  return `${k.dev}:${k.ino}:${k.size}:${k.mtimeMs}`;
}

function readFully(fd: number, buf: Uint8Array, position: number): number {
  let done = 0;
  while (done < buf.length) {
    const n = fs.readSync(fd, buf, done, buf.length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/** SHA-256 of the whole file through one reusable buffer; memoized per inode, size and mtime so chunked reads hash once. */
function hashFile(fd: number, st: fs.Stats): string {
  const key = hashKey(st);
  const hit = hashCache.get(key);
  if (hit) return hit;
  const h = crypto.createHash("sha256");
  const buf = new Uint8Array(Math.min(HASH_CHUNK, Math.max(1, st.size)));
  for (let pos = 0; pos < st.size; ) {
    const n = fs.readSync(fd, buf, 0, Math.min(buf.length, st.size - pos), pos);
    if (n === 0) break;
    h.update(buf.subarray(0, n));
    pos += n;
  }
  const digest = h.digest("hex");
  if (hashCache.size > 256) hashCache.clear();
  hashCache.set(key, digest);
  return digest;
}

/**
 * Reads one file of a project: refuses before reading when it exceeds `maxBytes`, returns the whole file
 * when it fits inline, a requested range when `offset`/`length` are given, and otherwise only metadata.
 */
export async function readArtifact(root: string, rel: string, opts: ReadOptions): Promise<ArtifactRead> {
  const opened = openProjectFile(root, rel, opts);
  try {
    const st = opened.stat;
    const size = st.size;
    if (size > opts.maxBytes) throw new ArtifactTooLargeError(opened.rel, size, opts.maxBytes);
    const chunkBytes = chunkBytesFor(opts.inlineBytes);
    const ranged = opts.offset !== undefined || opts.length !== undefined;
    let offset = 0;
    let length = 0;
    if (ranged) {
      offset = opts.offset ?? 0;
      if (!Number.isInteger(offset) || offset < 0 || offset > size) {
        throw new ArtifactRangeError("offset", `offset must be an integer from 0 to the file size (${size})`);
      }
      length = opts.length ?? Math.min(chunkBytes, size - offset);
      if (!Number.isInteger(length) || length < 0 || length > chunkBytes) {
        throw new ArtifactRangeError("length", `length must be an integer from 0 to ${chunkBytes} (bytes per chunk); continue with a larger offset`);
      }
      length = Math.min(length, size - offset);
    }

    const headLen = Math.min(size, SNIFF_BYTES);
    let whole: Uint8Array | undefined;
    let head: Uint8Array;
    if (!ranged && size <= opts.inlineBytes) {
      whole = new Uint8Array(size);
      const n = readFully(opened.fd, whole, 0);
      if (n !== size) whole = whole.subarray(0, n);
      head = whole.subarray(0, headLen);
    } else {
      head = new Uint8Array(headLen);
      head = head.subarray(0, readFully(opened.fd, head, 0));
    }
    const detected = await detectMime(opened.rel, head, head.length === size);
    const text = whole ? detected.text && looksLikeText(whole, false) : detected.text;
    const sha256 = whole ? crypto.createHash("sha256").update(whole).digest("hex") : hashFile(opened.fd, st);
    const result: ArtifactRead = { path: opened.rel, size, mime: detected.mime, text, sha256, mtime: isoSeconds(st.mtime), chunkBytes, release: () => {} };
    if (whole && fitsInline(size, text, opts.inlineBytes)) {
      result.data = whole;
    } else if (ranged) {
      const buf = leaseChunkBuffer(length);
      try {
        result.data = buf.bytes.subarray(0, readFully(opened.fd, buf.bytes, offset));
      } catch (e) {
        buf.release();
        throw e;
      }
      result.range = { offset, length: result.data.length };
      result.release = buf.release;
    }
    return result;
  } finally {
    fs.closeSync(opened.fd);
  }
}
