// Ranged reads share one resident buffer between chunks: a chunk still held (not yet encoded) must keep its own bytes
// whatever is read meanwhile, and chunks read one after another must each hold the file's bytes.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { leaseChunkBuffer } from "../../src/artifacts/chunk-buffer.ts";
import { readArtifact } from "../../src/artifacts/read.ts";
import { DEFAULT_SENSITIVE_PATHS } from "../../src/artifacts/sensitive.ts";
import { tempDir } from "../support/temp-dir.ts";

const MiB = 1024 * 1024;
const opts = { sensitive: DEFAULT_SENSITIVE_PATHS, maxBytes: 64 * MiB, inlineBytes: 4 * MiB };

function project(): { root: string; bytes: Buffer } {
  const root = tempDir();
  const bytes = crypto.randomBytes(10 * MiB);
  fs.writeFileSync(path.join(root, "big.bin"), bytes);
  return { root, bytes };
}

describe("ranged reads through the resident chunk buffer", () => {
  it("a chunk not yet released keeps its bytes while the next chunks are read", async () => {
    const { root, bytes } = project();
    const first = await readArtifact(root, "big.bin", { ...opts, offset: 0 });
    const second = await readArtifact(root, "big.bin", { ...opts, offset: first.chunkBytes });
    const third = await readArtifact(root, "big.bin", { ...opts, offset: 2 * first.chunkBytes });
    expect(Buffer.from(first.data!).equals(bytes.subarray(0, first.chunkBytes))).toBe(true);
    expect(Buffer.from(second.data!).equals(bytes.subarray(first.chunkBytes, 2 * first.chunkBytes))).toBe(true);
    expect(Buffer.from(third.data!).equals(bytes.subarray(2 * first.chunkBytes, 3 * first.chunkBytes))).toBe(true);
    for (const r of [first, second, third]) r.release();
  });

  it("chunks read and released in turn reassemble the file", async () => {
    const { root, bytes } = project();
    const parts: Buffer[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const r = await readArtifact(root, "big.bin", { ...opts, offset });
      parts.push(Buffer.from(r.data!));
      r.release();
      const end: number = r.range!.offset + r.range!.length;
      offset = end < r.size ? end : undefined;
    }
    expect(parts.length).toBe(4);
    expect(Buffer.concat(parts).equals(bytes)).toBe(true);
  });

  it("a second lease while the first is held gets memory of its own", () => {
    const a = leaseChunkBuffer(MiB);
    const b = leaseChunkBuffer(MiB);
    a.bytes.fill(1);
    b.bytes.fill(2);
    expect(a.bytes.every((x) => x === 1)).toBe(true);
    a.release();
    a.release();
    const c = leaseChunkBuffer(MiB);
    expect(c.bytes.buffer).toBe(a.bytes.buffer);
    b.release();
    c.release();
  });

  it("is let go once reads stop, so an idle bridge does not hold it", () => {
    vi.useFakeTimers();
    try {
      const a = leaseChunkBuffer(MiB);
      a.release();
      const b = leaseChunkBuffer(MiB);
      expect(b.bytes.buffer).toBe(a.bytes.buffer);
      b.release();
      vi.advanceTimersByTime(60_000);
      const c = leaseChunkBuffer(MiB);
      expect(c.bytes.buffer).not.toBe(a.bytes.buffer);
      c.release();
    } finally {
      vi.useRealTimers();
    }
  });
});
