// The artifact viewer's logic in happy-dom (no browser needed): ext-apps' AppBridge hosts it in an iframe and feeds
// it real codex_artifact answers; the checks are what a user sees. The same page in real Chromium: test/browser/.
import { resolveObjectURL } from "node:buffer";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Window } from "happy-dom";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256 } from "./fixtures.ts";
import { corruptChunk, harnessHtml, viewerCase, type HarnessReport, type ViewerCase } from "./viewer-harness.ts";

const shared = viewerCase("viewer-dom");
let { dir, h, viewerHtml, big, png } = {} as ViewerCase;
beforeAll(() => void ({ dir, h, viewerHtml, big, png } = shared()));

interface DomRun {
  report: HarnessReport;
  /** The bytes behind the preview's blob: URL (happy-dom keeps them in Node's Blob registry). */
  previewBytes: Buffer | null;
}

async function runInDom(result: CallToolResult, chunks: Record<string, CallToolResult>): Promise<DomRun> {
  const html = await harnessHtml({ viewerHtml, result, chunks, uncheckedSource: true });
  const win = new Window({
    url: "http://127.0.0.1/",
    settings: {
      enableJavaScriptEvaluation: true,
      suppressInsecureJavaScriptEnvironmentWarning: true,
      disableJavaScriptFileLoading: true,
      disableCSSFileLoading: true,
    },
  });
  try {
    win.document.write(html);
    const reportEl = win.document.getElementById("report")!;
    for (let i = 0; i < 600 && reportEl.textContent === "pending"; i++) await new Promise((r) => setTimeout(r, 50));
    const text = reportEl.textContent ?? "";
    expect(text, `no report; page console:\n${win.happyDOM.virtualConsolePrinter.readAsString().slice(-3000)}`).not.toBe("pending");
    const report = JSON.parse(text) as HarnessReport;
    if (report.error || report.timeout) {
      throw new Error(`the view did not settle: ${text.slice(0, 2000)}\npage console:\n${win.happyDOM.virtualConsolePrinter.readAsString().slice(-3000)}`);
    }
    let previewBytes: Buffer | null = null;
    if (report.imgSrc?.startsWith("blob:")) {
      const blob = resolveObjectURL(report.imgSrc);
      if (blob) previewBytes = Buffer.from(await blob.arrayBuffer());
    }
    return { report, previewBytes };
  } finally {
    await win.happyDOM.close();
  }
}

describe("artifact viewer in happy-dom, hosted by ext-apps' AppBridge", () => {
  it("previews an inline PNG as an image and downloads exactly its bytes", async () => {
    const result = (await h.client.callTool({ name: "codex_artifact", arguments: { project_id: "demo", path: "chart.png" } })) as CallToolResult;
    const { report, previewBytes } = await runInDom(result, {});
    expect(report.error).toBeUndefined();
    expect(report.timeout).toBeUndefined();
    expect(report.name).toBe("chart.png");
    expect(report.status).toBe("");
    expect(report.preview).toBe("img");
    expect(report.imgAlt).toBe("chart.png");
    expect(report.imgSrc).toMatch(/^blob:/);
    expect(previewBytes && sha256(previewBytes)).toBe(sha256(png));
    expect(report.button).toBe("Download");
    expect(report.buttonDisabled).toBe(false);
    expect(report.download?.type).toBe("resource");
    expect(report.download?.mimeType).toBe("image/png");
    expect(sha256(Buffer.from(report.download!.blob, "base64"))).toBe(sha256(png));
    expect(report.calls).toEqual([]);
  });

  it("assembles a large file from ranged codex_artifact calls, checks its SHA-256, previews and downloads it", async () => {
    const { report, previewBytes } = await runInDom(big.first, big.chunks);
    expect(report.error).toBeUndefined();
    expect(report.timeout).toBeUndefined();
    expect(report.status).toBe("");
    expect(report.preview).toBe("img");
    expect(report.calls.map((c) => c.offset)).toEqual(Object.keys(big.chunks).map(Number));
    expect(report.calls.every((c) => c.length === big.chunkBytes)).toBe(true);
    expect(previewBytes && sha256(previewBytes)).toBe(sha256(big.bytes));
    expect(report.download?.mimeType).toBe("image/png");
    expect(sha256(Buffer.from(report.download!.blob, "base64"))).toBe(sha256(big.bytes));
  });

  it("reports a SHA-256 mismatch when a chunk's bytes are broken, and shows no preview", async () => {
    const offsets = Object.keys(big.chunks);
    const broken = { ...big.chunks, [offsets[1]]: corruptChunk(big.chunks[offsets[1]]) };
    const { report } = await runInDom(big.first, broken);
    expect(report.error).toBeUndefined();
    expect(report.timeout).toBeUndefined();
    expect(report.status).toMatch(/SHA-256 mismatch/);
    expect(report.preview).toBeNull();
    expect(report.calls.length).toBe(offsets.length);
  });

  it("reports a chunk the server refused, and stops asking for more", async () => {
    const offsets = Object.keys(big.chunks);
    const missing = { ...big.chunks };
    delete missing[offsets[2]];
    const { report } = await runInDom(big.first, missing);
    expect(report.error).toBeUndefined();
    expect(report.status).toBe("no such chunk");
    expect(report.preview).toBeNull();
    expect(report.calls.map((c) => c.offset)).toEqual(offsets.slice(0, 3).map(Number));
  });
});
