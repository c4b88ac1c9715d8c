// Ad-hoc code signatures for the two darwin executables, written and checked without macOS. macOS kills an executable
// whose signature does not verify, and Bun's darwin-x64 cross-compile keeps the Bun runtime's own (now invalid)
// signature, so the build signs both itself and CI re-hashes every page. No well-kept npm package signs Mach-O files
// without Apple's codesign, hence this small module. Layout (Apple's cs_blobs.h): LC_CODE_SIGNATURE points at a
// SuperBlob at the end of __LINKEDIT holding a CodeDirectory (SHA-256 of every 4 KiB page up to the signature),
// an empty requirement set and an empty CMS wrapper, all big-endian; the Mach-O itself is little-endian.
import { createHash } from "node:crypto";

const MH_MAGIC_64 = 0xfeedfacf;
const MH_EXECUTE = 0x2;
const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;
const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CSMAGIC_REQUIREMENTS = 0xfade0c01;
const CSMAGIC_BLOBWRAPPER = 0xfade0b01;
const CSSLOT_CODEDIRECTORY = 0;
const CSSLOT_REQUIREMENTS = 2;
const CSSLOT_SIGNATURESLOT = 0x10000;
const CS_ADHOC = 0x2;
const CS_EXECSEG_MAIN_BINARY = 0x1;
const CD_VERSION = 0x20400;
const CD_HEADER = 88;
const HASH_SHA256 = 2;
const HASH_SIZE = 32;
const PAGE_SHIFT = 12;
const PAGE = 1 << PAGE_SHIFT;
const N_SPECIAL = 2;

interface Segment {
  name: string;
  /** Offset of the load command in the file. */
  at: number;
  vmsize: bigint;
  fileoff: number;
  filesize: number;
}

interface Layout {
  filetype: number;
  segments: Segment[];
  /** Offset of LC_CODE_SIGNATURE in the file, with the signature's place. */
  sig: { at: number; dataoff: number; datasize: number } | null;
}

function parse(buf: Buffer): Layout {
  if (buf.length < 32 || buf.readUInt32LE(0) !== MH_MAGIC_64) throw new Error("not a 64-bit little-endian Mach-O file");
  const ncmds = buf.readUInt32LE(16);
  let at = 32;
  const segments: Segment[] = [];
  let sig: Layout["sig"] = null;
  for (let i = 0; i < ncmds; i++) {
    const cmd = buf.readUInt32LE(at);
    const size = buf.readUInt32LE(at + 4);
    if (cmd === LC_SEGMENT_64) {
      const name = buf.toString("latin1", at + 8, at + 24).replace(/\0+$/, "");
      segments.push({ name, at, vmsize: buf.readBigUInt64LE(at + 32), fileoff: Number(buf.readBigUInt64LE(at + 40)), filesize: Number(buf.readBigUInt64LE(at + 48)) });
    } else if (cmd === LC_CODE_SIGNATURE) {
      sig = { at, dataoff: buf.readUInt32LE(at + 8), datasize: buf.readUInt32LE(at + 12) };
    }
    at += size;
  }
  return { filetype: buf.readUInt32LE(12), segments, sig };
}

const sha256 = (b: Buffer): Buffer => createHash("sha256").update(b).digest();

function blob(magic: number, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(magic, 0);
  head.writeUInt32BE(8 + body.length, 4);
  return Buffer.concat([head, body]);
}

function codeDirectory(file: Buffer, codeLimit: number, identifier: string, text: Segment | undefined, execute: boolean, requirements: Buffer): Buffer {
  const ident = Buffer.from(`${identifier}\0`, "utf8");
  const nCode = Math.ceil(codeLimit / PAGE);
  const hashOffset = CD_HEADER + ident.length + N_SPECIAL * HASH_SIZE;
  const cd = Buffer.alloc(hashOffset + nCode * HASH_SIZE);
  cd.writeUInt32BE(CSMAGIC_CODEDIRECTORY, 0);
  cd.writeUInt32BE(cd.length, 4);
  cd.writeUInt32BE(CD_VERSION, 8);
  cd.writeUInt32BE(CS_ADHOC, 12);
  cd.writeUInt32BE(hashOffset, 16);
  cd.writeUInt32BE(CD_HEADER, 20); // identOffset
  cd.writeUInt32BE(N_SPECIAL, 24);
  cd.writeUInt32BE(nCode, 28);
  cd.writeUInt32BE(codeLimit, 32);
  cd.writeUInt8(HASH_SIZE, 36);
  cd.writeUInt8(HASH_SHA256, 37);
  cd.writeUInt8(0, 38); // platform
  cd.writeUInt8(PAGE_SHIFT, 39);
  // 40 spare2, 44 scatterOffset, 48 teamOffset, 52 spare3, 56 codeLimit64: all zero.
  cd.writeBigUInt64BE(BigInt(text?.fileoff ?? 0), 64); // execSegBase
  cd.writeBigUInt64BE(BigInt(text?.filesize ?? 0), 72); // execSegLimit
  cd.writeBigUInt64BE(BigInt(execute ? CS_EXECSEG_MAIN_BINARY : 0), 80); // execSegFlags
  ident.copy(cd, CD_HEADER);
  // Special slots sit just before hashOffset, slot -1 (Info.plist, none: zeros) last; slot -2 is the requirements.
  sha256(requirements).copy(cd, hashOffset - CSSLOT_REQUIREMENTS * HASH_SIZE);
  for (let i = 0; i < nCode; i++) {
    sha256(file.subarray(i * PAGE, Math.min(codeLimit, (i + 1) * PAGE))).copy(cd, hashOffset + i * HASH_SIZE);
  }
  return cd;
}

function superBlob(entries: [number, Buffer][]): Buffer {
  const headLen = 12 + entries.length * 8;
  const head = Buffer.alloc(headLen);
  head.writeUInt32BE(CSMAGIC_EMBEDDED_SIGNATURE, 0);
  head.writeUInt32BE(entries.length, 8);
  let off = headLen;
  entries.forEach(([type, b], i) => {
    head.writeUInt32BE(type, 12 + i * 8);
    head.writeUInt32BE(off, 16 + i * 8);
    off += b.length;
  });
  head.writeUInt32BE(off, 4);
  return Buffer.concat([head, ...entries.map(([, b]) => b)]);
}

const align = (n: number, a: number): number => Math.ceil(n / a) * a;

/**
 * The file signed ad hoc under `identifier`: whatever signature it had is replaced (the signature must be the last
 * thing in the file, at the end of __LINKEDIT, as the linker leaves it), and __LINKEDIT grows or shrinks to fit.
 */
export function adhocSign(input: Buffer, identifier: string): Buffer {
  const layout = parse(input);
  if (!layout.sig) throw new Error("no LC_CODE_SIGNATURE load command: there is no room reserved for a signature");
  const linkedit = layout.segments.find((s) => s.name === "__LINKEDIT");
  if (!linkedit) throw new Error("no __LINKEDIT segment");
  const codeLimit = layout.sig.dataoff;
  if (codeLimit % 16 !== 0) throw new Error(`the signature offset ${codeLimit} is not 16-byte aligned`);
  if (linkedit.fileoff + linkedit.filesize < codeLimit) throw new Error("the signature lies outside __LINKEDIT");
  for (const s of layout.segments) {
    if (s !== linkedit && s.filesize > 0 && s.fileoff + s.filesize > codeLimit) throw new Error(`segment ${s.name} reaches past the signature`);
  }
  const requirements = blob(CSMAGIC_REQUIREMENTS, Buffer.alloc(4)); // an empty requirement set: count 0
  const cms = blob(CSMAGIC_BLOBWRAPPER, Buffer.alloc(0));
  // The CodeDirectory's size depends only on the page count, so the signature's size is known before hashing.
  const nCode = Math.ceil(codeLimit / PAGE);
  const cdSize = CD_HEADER + Buffer.byteLength(`${identifier}\0`) + (N_SPECIAL + nCode) * HASH_SIZE;
  const sigSize = align(12 + 3 * 8 + cdSize + requirements.length + cms.length, 16);
  const out = Buffer.alloc(codeLimit + sigSize);
  input.copy(out, 0, 0, codeLimit);
  // Load commands first (they are inside the hashed pages): the signature's size and __LINKEDIT's extent.
  out.writeUInt32LE(sigSize, layout.sig.at + 12);
  const linkeditSize = codeLimit + sigSize - linkedit.fileoff;
  out.writeBigUInt64LE(BigInt(linkeditSize), linkedit.at + 48);
  out.writeBigUInt64LE(BigInt(align(linkeditSize, 0x1000)), linkedit.at + 32);
  const text = layout.segments.find((s) => s.name === "__TEXT");
  const cd = codeDirectory(out, codeLimit, identifier, text, layout.filetype === MH_EXECUTE, requirements);
  superBlob([
    [CSSLOT_CODEDIRECTORY, cd],
    [CSSLOT_REQUIREMENTS, requirements],
    [CSSLOT_SIGNATURESLOT, cms],
  ]).copy(out, codeLimit);
  return out;
}

export interface SignatureCheck {
  ok: boolean;
  identifier: string | null;
  adhoc: boolean;
  pages: number;
  badPages: number;
  /** Bytes of the file before the signature that no page hash covers. */
  unsigned: number;
  problems: string[];
}

/** Re-hashes every page against the embedded SHA-256 CodeDirectory and checks that it covers the whole file. */
export function verifySignature(buf: Buffer): SignatureCheck {
  const problems: string[] = [];
  const res: SignatureCheck = { ok: false, identifier: null, adhoc: false, pages: 0, badPages: 0, unsigned: 0, problems };
  const layout = parse(buf);
  if (!layout.sig) {
    problems.push("no LC_CODE_SIGNATURE");
    return res;
  }
  const { dataoff, datasize } = layout.sig;
  if (dataoff + datasize > buf.length) problems.push("the signature runs past the end of the file");
  const sb = buf.subarray(dataoff, dataoff + datasize);
  if (sb.length < 12 || sb.readUInt32BE(0) !== CSMAGIC_EMBEDDED_SIGNATURE) {
    problems.push("no embedded-signature SuperBlob at the signature offset");
    return res;
  }
  const count = sb.readUInt32BE(8);
  const slots = new Map<number, Buffer>();
  for (let i = 0; i < count; i++) {
    const type = sb.readUInt32BE(12 + i * 8);
    const off = sb.readUInt32BE(16 + i * 8);
    slots.set(type, sb.subarray(off, off + sb.readUInt32BE(off + 4)));
  }
  // Prefer the primary CodeDirectory; a SHA-1 primary with a SHA-256 alternate (slot 0x1000) is checked by the latter.
  const cds = [slots.get(CSSLOT_CODEDIRECTORY), slots.get(0x1000), slots.get(0x1001)].filter((b): b is Buffer => !!b && b.readUInt32BE(0) === CSMAGIC_CODEDIRECTORY);
  const cd = cds.find((b) => b.readUInt8(37) === HASH_SHA256);
  if (!cd) {
    problems.push("no SHA-256 CodeDirectory");
    return res;
  }
  res.adhoc = (cd.readUInt32BE(12) & CS_ADHOC) !== 0;
  const identOffset = cd.readUInt32BE(20);
  res.identifier = cd.toString("utf8", identOffset, cd.indexOf(0, identOffset));
  const hashOffset = cd.readUInt32BE(16);
  const nSpecial = cd.readUInt32BE(24);
  const nCode = cd.readUInt32BE(28);
  const codeLimit = cd.readUInt32BE(32);
  const pageShift = cd.readUInt8(39);
  const page = pageShift === 0 ? codeLimit : 1 << pageShift;
  res.pages = nCode;
  if (codeLimit !== dataoff) {
    res.unsigned = Math.max(0, dataoff - codeLimit);
    problems.push(`the signed range ends at ${codeLimit}, the signature starts at ${dataoff}`);
  }
  if (nCode !== Math.ceil(codeLimit / page)) problems.push(`${nCode} page hashes for a code limit of ${codeLimit}`);
  for (let i = 0; i < nCode; i++) {
    const want = cd.subarray(hashOffset + i * HASH_SIZE, hashOffset + (i + 1) * HASH_SIZE);
    if (!sha256(buf.subarray(i * page, Math.min(codeLimit, (i + 1) * page))).equals(want)) res.badPages++;
  }
  if (res.badPages) problems.push(`${res.badPages} of ${nCode} page hashes do not match`);
  const req = slots.get(CSSLOT_REQUIREMENTS);
  if (req && nSpecial >= CSSLOT_REQUIREMENTS) {
    const want = cd.subarray(hashOffset - CSSLOT_REQUIREMENTS * HASH_SIZE, hashOffset - (CSSLOT_REQUIREMENTS - 1) * HASH_SIZE);
    if (!sha256(req).equals(want)) problems.push("the requirements hash does not match");
  }
  res.ok = problems.length === 0;
  return res;
}
