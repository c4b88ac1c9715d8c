// Reliability: the secret corpus over every channel of the real bridge process (as the tunnel drives it), then a grep
// of every tool result, of the bridge's own stderr, and of the raw bytes of the database and its WAL: zero hits.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { prepareBridge, toolAnswer, type BridgeSetup } from "../support/bridge-process.ts";
import { bundledCodexBin } from "../support/real-codex.ts";
import { killQuietly, recordFigures, Responsiveness } from "../support/reliability.ts";
import { pushSecretsThroughEveryChannel, secretProjectFiles, writeStderrWrapper } from "../support/secret-channels.ts";
import { leakProbes } from "../support/secret-corpus.ts";
import type { TunnelEmulator } from "../support/tunnel-emulator.ts";

let setup: BridgeSetup | null = null;
let tunnel: TunnelEmulator | null = null;
const dir = mkdtempSync(join(tmpdir(), "codex-bridge-secrets-"));
afterAll(async () => {
  if (tunnel?.exit === null) killQuietly(tunnel.pid);
  await setup?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe("reliability: secrets", () => {
  it("the corpus through every channel of the bridge process: no hit in any result, its stderr, the database or the WAL", async () => {
    setup = await prepareBridge({ approvalPolicy: "on-request", files: secretProjectFiles() });
    const t = await setup.spawn({ deadlineMs: 60_000, stopGraceMs: 10_000, env: { CODEX_BIN: writeStderrWrapper(dir, bundledCodexBin()) } });
    tunnel = t;
    const live = new Responsiveness();
    await t.initialize();
    const report = await pushSecretsThroughEveryChannel({
      provider: setup.provider,
      statePath: setup.statePath,
      async call(name, args) {
        const res = await t.request("tools/call", { name, arguments: args });
        const a = toolAnswer(res);
        return { isError: a.isError, structured: a.structured, raw: JSON.stringify(res) };
      },
    });
    await live.ping(t);
    await live.stop(t);
    const stderrLeaks = leakProbes().filter((p) => t.stderr.includes(p.secret)).map((p) => `${p.name} in the bridge's stderr`);
    const leaks = [...report.leaks, ...stderrLeaks];
    recordFigures("secrets", {
      "secret placements": report.placements,
      formats: report.formats,
      channels: report.channels.length,
      "tool results read": report.resultsRead,
      "database bytes read": report.bytesRead,
      "unproven channels": report.unproven.length,
      leaks: leaks.length,
      ...live.figures(),
    });
    console.info(`[secrets] channels: ${report.channels.join(", ")}; unproven: ${report.unproven.join(", ") || "none"}; leaks: ${JSON.stringify(leaks.slice(0, 10))}`);
    expect(report.unproven).toEqual([]);
    expect(leaks).toEqual([]);
    expect(live.hangs).toBe(0);
  });
});
