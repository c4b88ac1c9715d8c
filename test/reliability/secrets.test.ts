// Reliability: the secret corpus over every channel of the real bridge process (as the tunnel drives it), then a grep
// of every tool result, of the bridge's own stderr, and of the raw bytes of the database and its WAL: zero hits.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { prepareBridge, toolAnswer } from "../support/bridge-process.ts";
import { bundledCodexBin } from "../support/real-codex.ts";
import { holdForPhase, recordFigures, Responsiveness } from "../support/reliability.ts";
import { pushSecretsThroughEveryChannel, secretProjectFiles, writeStderrWrapper } from "../support/secret-channels.ts";
import { leakProbes } from "../support/secret-corpus.ts";

const held = holdForPhase();
const dir = mkdtempSync(join(tmpdir(), "codex-bridge-secrets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("reliability: secrets", () => {
  it("the corpus through every channel of the bridge process: no hit in any result, its stderr, the database or the WAL", async () => {
    const setup = (held.setup = await prepareBridge({ approvalPolicy: "on-request", files: secretProjectFiles() }));
    const t = await setup.spawn({ deadlineMs: 60_000, stopGraceMs: 10_000, env: { CODEX_BIN: writeStderrWrapper(dir, bundledCodexBin()) } });
    held.tunnel = t;
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
