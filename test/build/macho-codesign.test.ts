// The ad-hoc Mach-O signer and verifier the build uses for the darwin executables, on a small Mach-O made here with
// the same layout the linker leaves (LC_CODE_SIGNATURE at the end of __LINKEDIT). CI also verifies the real two.
import { describe, expect, it } from "vitest";
import { adhocSign, verifySignature } from "../../scripts/macho-codesign.ts";

const PAGE = 4096;

/** A 64-bit MH_EXECUTE file of `pages` pages of code and __LINKEDIT, with a signature slot of `sigSize` bytes. */
function machO(pages: number, sigSize = 0): Buffer {
  const codeEnd = pages * PAGE;
  const buf = Buffer.alloc(codeEnd + sigSize);
  for (let i = 32 + 72 * 2 + 16; i < codeEnd; i++) buf[i] = (i * 31) & 0xff;
  buf.writeUInt32LE(0xfeedfacf, 0);
  buf.writeUInt32LE(0x01000007, 4); // x86_64
  buf.writeUInt32LE(2, 12); // MH_EXECUTE
  buf.writeUInt32LE(3, 16); // ncmds
  buf.writeUInt32LE(72 * 2 + 16, 20);
  const segment = (at: number, name: string, fileoff: number, filesize: number) => {
    buf.fill(0, at, at + 72);
    buf.writeUInt32LE(0x19, at);
    buf.writeUInt32LE(72, at + 4);
    buf.write(name, at + 8, "latin1");
    buf.writeBigUInt64LE(BigInt(filesize), at + 32);
    buf.writeBigUInt64LE(BigInt(fileoff), at + 40);
    buf.writeBigUInt64LE(BigInt(filesize), at + 48);
  };
  segment(32, "__TEXT", 0, 2 * PAGE);
  segment(104, "__LINKEDIT", 2 * PAGE, codeEnd + sigSize - 2 * PAGE);
  buf.writeUInt32LE(0x1d, 176);
  buf.writeUInt32LE(16, 180);
  buf.writeUInt32LE(codeEnd, 184);
  buf.writeUInt32LE(sigSize, 188);
  return buf;
}

describe("ad-hoc Mach-O code signatures", () => {
  it("a signed file verifies: every page hashed, the signed range reaching the signature, ad hoc, named", () => {
    const signed = adhocSign(machO(5), "codex-bridge-darwin-x64");
    const check = verifySignature(signed);
    expect(check).toMatchObject({ ok: true, adhoc: true, identifier: "codex-bridge-darwin-x64", pages: 5, badPages: 0, problems: [] });
    // __LINKEDIT ends exactly where the file does, as macOS requires.
    expect(Number(signed.readBigUInt64LE(104 + 40) + signed.readBigUInt64LE(104 + 48))).toBe(signed.length);
  });

  it("one changed byte anywhere before the signature is found, load commands included", () => {
    for (const at of [20, PAGE + 7, 5 * PAGE - 1]) {
      const signed = adhocSign(machO(5), "x");
      signed[at] ^= 1;
      const check = verifySignature(signed);
      expect(check.ok, String(at)).toBe(false);
      expect(check.badPages).toBe(1);
    }
  });

  it("a signature that covers less than the file (Bun's darwin-x64 defect) is refused, and re-signing fixes it", () => {
    const stale = adhocSign(machO(3), "x");
    // The same file grown by two pages after signing: the old CodeDirectory stops short.
    const grown = machO(5, stale.length - 3 * PAGE);
    stale.subarray(3 * PAGE).copy(grown, 5 * PAGE);
    const check = verifySignature(grown);
    expect(check.ok).toBe(false);
    expect(check.problems.join("; ")).toMatch(/signed range ends at 12288, the signature starts at 20480/);
    expect(verifySignature(adhocSign(grown, "x")).ok).toBe(true);
  });

  it("signing is deterministic, so the release checksums are reproducible", () => {
    expect(adhocSign(machO(4), "x").equals(adhocSign(machO(4), "x"))).toBe(true);
  });
});
