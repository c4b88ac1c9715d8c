// A 32 MiB project file read through codex_artifact in chunks, the way a client downloads it: the time for all
// chunks, the bridge's peak memory meanwhile, and the SHA-256 of what arrived against the file's. The same transfer
// is also read by a bare JSON-RPC line reader, so the table separates the bridge and the pipe from the SDK client.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
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
  /** Of that, the kernel's part (page faults, pipe writes), in 10 ms ticks. */
  bridgeSysMs: number[];
  /** The bridge's minor page faults per transfer: fresh memory touched, steadier than any time on a busy machine. */
  bridgePageFaults: number[];
  /** The benchmark process's CPU time per transfer: the MCP SDK client reading, parsing and validating each result. */
  clientCpuMs: number[];
  /** The same transfer read by a bare JSON-RPC line reader (no SDK client): the bridge and the pipe. */
  lineMs: number[];
  lineBridgeCpuMs: number[];
  rssBeforeMiB: number | null;
  /** Peak RSS during the transfers; null when the kernel did not let the window be reset. */
  peakRssMiB: number | null;
  sha256Matches: boolean;
}

const ARGS = { project_id: "demo", path: "artifact.bin" };

/** Kernel CPU time (ms, 10 ms ticks) and minor page faults of a process so far; null off Linux. */
function kernelShare(pid: number): { sysMs: number; faults: number } | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return { sysMs: Number(fields[12]) * 10, faults: Number(fields[7]) };
  } catch {
    return null;
  }
}

const processCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The bridge over stdio with nothing between: one request at a time, each answer one line, parsed with JSON.parse. */
function lineBridge(binary: string, env: Record<string, string>, cwd: string) {
  const child = spawn(binary, ["serve"], { env, cwd, stdio: ["pipe", "pipe", "ignore"] });
  let parts: Buffer[] = [];
  let waiting: ((line: Buffer) => void) | undefined;
  child.stdout.on("data", (chunk: Buffer) => {
    // Only the new chunk is scanned for the newline; a line's parts are joined once.
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10)) {
      parts.push(chunk.subarray(0, nl));
      const line = Buffer.concat(parts);
      parts = [];
      const w = waiting;
      waiting = undefined;
      w?.(line);
      chunk = chunk.subarray(nl + 1);
    }
    if (chunk.length) parts.push(chunk);
  });
  let id = 0;
  const request = (method: string, params: unknown) =>
    new Promise<{ result?: { content?: { type: string; resource?: { blob?: string } }[]; structuredContent?: { next_offset?: number } } }>((resolve) => {
      waiting = (line) => resolve(JSON.parse(line.toString("utf8")));
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params })}\n`);
    });
  return {
    pid: child.pid ?? -1,
    request,
    async open() {
      await request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "codex-bridge-bench", version: "1" } });
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    },
    close: () => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once("exit", () => resolve()), child.stdin.end()))),
  };
}

async function lineTransfer(bridge: ReturnType<typeof lineBridge>): Promise<{ ms: number; cpu: number | null; sha256: string }> {
  const t0 = nowMs();
  const cpu0 = cpuMs(bridge.pid);
  const hash = createHash("sha256");
  let offset: number | undefined = 0;
  while (offset !== undefined) {
    const m = await bridge.request("tools/call", { name: "codex_artifact", arguments: { ...ARGS, offset } });
    const blob = m.result?.content?.find((c) => c.type === "resource")?.resource?.blob ?? "";
    hash.update(Buffer.from(blob, "base64"));
    offset = m.result?.structuredContent?.next_offset;
  }
  const ms = nowMs() - t0;
  const cpu1 = cpuMs(bridge.pid);
  return { ms, cpu: cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null, sha256: hash.digest("hex") };
}

export async function measureArtifact(world: World, binary: string, runs: number): Promise<ArtifactFigures> {
  const data = randomBytes(ARTIFACT_BYTES);
  const want = createHash("sha256").update(data).digest("hex");
  const file = join(world.projectDir, "artifact.bin");
  writeFileSync(file, data);
  const b = await spawnBridge(binary, world.bridgeEnv("artifact"), world.projectDir);
  const line = lineBridge(binary, world.bridgeEnv("artifact-line"), world.projectDir);
  try {
    await line.open();
    const out: ArtifactFigures = {
      bytes: ARTIFACT_BYTES,
      chunks: 0,
      ms: [],
      bridgeCpuMs: [],
      bridgeSysMs: [],
      bridgePageFaults: [],
      clientCpuMs: [],
      lineMs: [],
      lineBridgeCpuMs: [],
      rssBeforeMiB: rssMiB(b.pid),
      peakRssMiB: null,
      sha256Matches: true,
    };
    const windowed = resetPeakRss(b.pid);
    for (let r = 0; r < runs; r++) {
      const t0 = nowMs();
      const cpu0 = cpuMs(b.pid);
      const k0 = kernelShare(b.pid);
      const client0 = processCpuMs();
      const hash = createHash("sha256");
      let offset = 0;
      let chunks = 0;
      for (;;) {
        const res = await b.call("codex_artifact", { ...ARGS, offset });
        const s = structured(res);
        const block = res.content.find((c) => c.type === "resource");
        const blob = block && "blob" in block.resource ? String(block.resource.blob) : "";
        hash.update(Buffer.from(blob, "base64"));
        chunks++;
        if (typeof s.next_offset !== "number") break;
        offset = s.next_offset;
      }
      out.ms.push(nowMs() - t0);
      out.clientCpuMs.push(processCpuMs() - client0);
      const cpu1 = cpuMs(b.pid);
      const k1 = kernelShare(b.pid);
      if (cpu0 !== null && cpu1 !== null) out.bridgeCpuMs.push(cpu1 - cpu0);
      if (k0 !== null && k1 !== null) {
        out.bridgeSysMs.push(k1.sysMs - k0.sysMs);
        out.bridgePageFaults.push(k1.faults - k0.faults);
      }
      out.chunks = chunks;
      if (hash.digest("hex") !== want) out.sha256Matches = false;
      // Back to back with the SDK transfer, on its own bridge so the peak RSS above stays the SDK transfer's.
      const bare = await lineTransfer(line);
      out.lineMs.push(bare.ms);
      if (bare.cpu !== null) out.lineBridgeCpuMs.push(bare.cpu);
      if (bare.sha256 !== want) out.sha256Matches = false;
    }
    out.peakRssMiB = windowed ? peakRssMiB(b.pid) : null;
    return out;
  } finally {
    await b.close();
    await line.close();
    rmSync(file, { force: true });
  }
}
