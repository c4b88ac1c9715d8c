// The artifact viewer in real headless Chromium (npm run test:browser, not part of npm test): the same host page as
// the happy-dom test, so real image decoding, blob: URLs and the browser's postMessage are checked too.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256 } from "../artifacts/fixtures.ts";
import { corruptChunk, harnessHtml, viewerCase, type HarnessReport, type ViewerCase } from "../artifacts/viewer-harness.ts";
import { requireChromium } from "./cdp.ts";

const shared = viewerCase("viewer");
let { dir, h, viewerHtml, big, png } = {} as ViewerCase;
beforeAll(() => void ({ dir, h, viewerHtml, big, png } = shared()));

async function runHarness(result: CallToolResult, chunks: Record<string, CallToolResult>, tag: string): Promise<HarnessReport> {
  const chromium = requireChromium();
  const harnessPath = path.join(dir, `harness-${tag}.html`);
  fs.writeFileSync(harnessPath, await harnessHtml({ viewerHtml, result, chunks }));

  const profile = path.join(dir, `profile-${tag}`);
  const run = spawnSync(
    chromium,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      `--user-data-dir=${profile}`,
      "--virtual-time-budget=20000",
      "--dump-dom",
      `file://${harnessPath}`,
    ],
    { encoding: "utf8", timeout: 110_000, maxBuffer: 64 * 1024 * 1024 },
  );
  const m = /<pre id="report">([\s\S]*?)<\/pre>/.exec(run.stdout ?? "");
  expect(m, `chromium (${chromium}) produced no report (status ${run.status}, ${run.error ?? ""}): ${(run.stderr ?? "").slice(-2000)}`).toBeTruthy();
  const text = m![1].replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  expect(text, "the harness page never reported (did its script run?)").not.toBe("pending");
  const report = JSON.parse(text) as HarnessReport;
  expect(report.error, "the host page threw").toBeUndefined();
  expect(report.timeout, `the view did not settle: ${report.body ?? ""}`).toBeUndefined();
  return report;
}

describe("artifact viewer in headless Chromium", () => {
  it("previews a PNG tool result as an <img> and downloads it through ui/download-file", async () => {
    const result = (await h.client.callTool({ name: "codex_artifact", arguments: { project_id: "demo", path: "chart.png" } })) as CallToolResult;
    const report = await runHarness(result, {}, "small");
    expect(report.img).toBe(true);
    expect(report.naturalWidth).toBe(16);
    expect(report.naturalHeight).toBe(8);
    expect(report.imgSrc?.split(":")[0]).toBe("blob");
    expect(report.name).toBe("chart.png");
    expect(report.status).toBe("");
    expect(report.button).toBe("Download");
    expect(report.download?.type).toBe("resource");
    expect(report.download?.mimeType).toBe("image/png");
    expect(sha256(Buffer.from(report.download!.blob, "base64"))).toBe(sha256(png));
    expect(report.calls).toEqual([]);
  }, 120_000);

  it("assembles a file above the inline threshold from ranged codex_artifact calls, then previews it", async () => {
    const report = await runHarness(big.first, big.chunks, "chunked");
    expect(report.img).toBe(true);
    expect(report.naturalWidth).toBe(200);
    expect(report.naturalHeight).toBe(150);
    expect(report.status).toBe("");
    expect(report.calls.length).toBe(Object.keys(big.chunks).length);
    expect(sha256(Buffer.from(report.download!.blob, "base64"))).toBe(sha256(big.bytes));
  }, 120_000);

  it("reports a SHA-256 mismatch when a chunk's bytes are broken", async () => {
    const offsets = Object.keys(big.chunks);
    const report = await runHarness(big.first, { ...big.chunks, [offsets[1]]: corruptChunk(big.chunks[offsets[1]]) }, "broken");
    expect(report.status).toMatch(/SHA-256 mismatch/);
    expect(report.img).toBe(false);
    expect(report.preview).toBeNull();
  }, 120_000);
});
