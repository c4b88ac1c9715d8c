// A 32 MiB project file read through codex_artifact in chunks, the way a client downloads it: the time for all
// chunks, the bridge's peak memory meanwhile, and the SHA-256 of what arrived against the file's.
import { createHash, randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cpuMs, peakRssMiB, resetPeakRss, rssMiB } from "./procfs.ts";
import { nowMs } from "./stats.ts";
import { spawnBridge, structured, type World } from "./world.ts";

export const ARTIFACT_BYTES = 32 * 1024 * 1024;

export interface ArtifactFigures {
  bytes: number;
  chunks: number;
  ms: number[];
  /** The bridge's CPU time per transfer (all threads): its share of the time, the rest being the client's and the pipe's. */
  bridgeCpuMs: number[];
  rssBeforeMiB: number | null;
  /** Peak RSS during the transfers; null when the kernel did not let the window be reset. */
  peakRssMiB: number | null;
  sha256Matches: boolean;
}

export async function measureArtifact(world: World, binary: string, runs: number): Promise<ArtifactFigures> {
  const data = randomBytes(ARTIFACT_BYTES);
  const want = createHash("sha256").update(data).digest("hex");
  const file = join(world.projectDir, "artifact.bin");
  writeFileSync(file, data);
  const b = await spawnBridge(binary, world.bridgeEnv("artifact"), world.projectDir);
  try {
    const out: ArtifactFigures = { bytes: ARTIFACT_BYTES, chunks: 0, ms: [], bridgeCpuMs: [], rssBeforeMiB: rssMiB(b.pid), peakRssMiB: null, sha256Matches: true };
    const windowed = resetPeakRss(b.pid);
    for (let r = 0; r < runs; r++) {
      const t0 = nowMs();
      const cpu0 = cpuMs(b.pid);
      const hash = createHash("sha256");
      let offset = 0;
      let chunks = 0;
      for (;;) {
        const res = await b.call("codex_artifact", { project_id: "demo", path: "artifact.bin", offset });
        const s = structured(res);
        const block = res.content.find((c) => c.type === "resource");
        const blob = block && "blob" in block.resource ? String(block.resource.blob) : "";
        hash.update(Buffer.from(blob, "base64"));
        chunks++;
        if (typeof s.next_offset !== "number") break;
        offset = s.next_offset;
      }
      out.ms.push(nowMs() - t0);
      const cpu1 = cpuMs(b.pid);
      if (cpu0 !== null && cpu1 !== null) out.bridgeCpuMs.push(cpu1 - cpu0);
      out.chunks = chunks;
      if (hash.digest("hex") !== want) out.sha256Matches = false;
    }
    out.peakRssMiB = windowed ? peakRssMiB(b.pid) : null;
    return out;
  } finally {
    await b.close();
    rmSync(file, { force: true });
  }
}
