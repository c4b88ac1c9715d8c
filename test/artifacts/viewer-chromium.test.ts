// The artifact viewer (MCP Apps view) in headless Chromium, hosted by the ext-apps reference AppBridge: image preview,
// download through ui/download-file, and a large file assembled from ranged codex_artifact calls.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.ts";
import { connect, makePng, sha256, type Harness } from "./fixtures.ts";

const CHROMIUM_CANDIDATES = ["chromium", "chromium-browser", "google-chrome"];

function findChromium(): string | undefined {
  for (const name of CHROMIUM_CANDIDATES) {
    const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return undefined;
}

// The host side is the ext-apps package's own AppBridge, so the hand-written view protocol is checked
// against the reference implementation rather than against a copy of our own assumptions.
const HOST_ENTRY = `
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
const report = (o) => { document.getElementById("report").textContent = JSON.stringify(o); };
async function main() {
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin");
  iframe.style.width = "600px"; iframe.style.height = "400px";
  document.body.append(iframe);
  const downloads = [];
  const bridge = new AppBridge(null, { name: "harness", version: "1.0.0" }, { downloadFile: {}, serverTools: {} });
  bridge.ondownloadfile = async (params) => { downloads.push(params); return {}; };
  const calls = [];
  bridge.oncalltool = async (p) => {
    calls.push(p.arguments);
    const chunk = p.name === "codex_artifact" && window.CHUNKS[String(p.arguments.offset)];
    return chunk || { content: [{ type: "text", text: "no such chunk" }], isError: true };
  };
  bridge.oninitialized = () => { bridge.sendToolResult(window.TOOL_RESULT); };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = window.VIEWER_HTML;
  for (let i = 0; i < 200; i++) {
    await new Promise((r) => setTimeout(r, 50));
    const doc = iframe.contentDocument;
    const img = doc && doc.querySelector("#preview img");
    const btn = doc && doc.getElementById("download");
    if (img && img.complete && btn && !btn.disabled) {
      btn.click();
      for (let j = 0; j < 100 && downloads.length === 0; j++) await new Promise((r) => setTimeout(r, 50));
      const c = downloads[0] && downloads[0].contents[0];
      report({
        img: true, naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight, imgSrcScheme: img.src.split(":")[0],
        button: btn.textContent, calls, name: doc.getElementById("name").textContent,
        download: c ? { type: c.type, mimeType: c.resource && c.resource.mimeType, blob: c.resource && c.resource.blob } : null,
      });
      return;
    }
  }
  report({ img: false, body: iframe.contentDocument ? iframe.contentDocument.body.innerHTML.slice(0, 2000) : null });
}
main().catch((e) => report({ error: String(e && e.stack || e) }));
`;

interface HarnessReport {
  error?: string;
  img: boolean;
  naturalWidth?: number;
  naturalHeight?: number;
  imgSrcScheme?: string;
  button?: string;
  name?: string;
  calls: unknown[];
  download: { type: string; mimeType?: string; blob: string } | null;
}

let dir: string;
let h: Harness;
const png = makePng(16, 8);

beforeAll(async () => {
  dir = tempDir("cb-viewer-");
  fs.mkdirSync(path.join(dir, "project"));
  fs.writeFileSync(path.join(dir, "project", "chart.png"), png);
  h = await connect({ projects: () => ({ demo: { cwd: path.join(dir, "project") } }) });
});

afterAll(async () => {
  await h.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function runHarness(result: CallToolResult, chunks: Record<string, CallToolResult>, tag: string): Promise<HarnessReport> {
  const chromium = findChromium();
  if (!chromium) {
    throw new Error("Chromium is required for the viewer test: install it with `apt-get update && apt-get install -y chromium` (CI installs it).");
  }
  const viewer = await h.client.readResource({ uri: "ui://codex-bridge/artifact-viewer.html" });
  const viewerHtml = (viewer.contents[0] as { text: string }).text;

  const bundle = await build({
    stdin: { contents: HOST_ENTRY, resolveDir: process.cwd(), loader: "js" },
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2022",
    logLevel: "silent",
  });
  const inline = (v: unknown) => JSON.stringify(v).replace(/</g, "\\u003c");
  const harness = `<!doctype html><html><head><meta charset="utf-8"></head><body><pre id="report">pending</pre>
<script>window.TOOL_RESULT = ${inline(result)}; window.CHUNKS = ${inline(chunks)}; window.VIEWER_HTML = ${inline(viewerHtml)};</script>
<script>${bundle.outputFiles[0].text.replace(/<\/script/gi, "<\\/script")}</script></body></html>`;
  const harnessPath = path.join(dir, `harness-${tag}.html`);
  fs.writeFileSync(harnessPath, harness);

  const profile = path.join(dir, `profile-${tag}`);
  const run = spawnSync(
    chromium,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
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
  expect(m, `chromium produced no report (status ${run.status}): ${(run.stderr ?? "").slice(-2000)}`).toBeTruthy();
  const text = m![1].replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  return JSON.parse(text);
}

describe("artifact viewer in headless Chromium", () => {
  it("previews a PNG tool result as an <img> and downloads it through ui/download-file", async () => {
    const result = (await h.client.callTool({ name: "codex_artifact", arguments: { project_id: "demo", path: "chart.png" } })) as CallToolResult;
    const report = await runHarness(result, {}, "small");
    expect(report.error).toBeUndefined();
    expect(report.img).toBe(true);
    expect(report.naturalWidth).toBe(16);
    expect(report.naturalHeight).toBe(8);
    expect(report.imgSrcScheme).toBe("blob");
    expect(report.name).toBe("chart.png");
    expect(report.button).toBe("Download");
    expect(report.download?.type).toBe("resource");
    expect(report.download?.mimeType).toBe("image/png");
    expect(sha256(Buffer.from(report.download!.blob, "base64"))).toBe(sha256(png));
    expect(report.calls).toEqual([]);
  }, 120_000);

  it("assembles a file above the inline threshold from ranged codex_artifact calls, then previews it", async () => {
    const big = makePng(200, 150);
    fs.writeFileSync(path.join(dir, "project", "big.png"), big);
    const small = await connect({ projects: () => ({ demo: { cwd: path.join(dir, "project") } }), inlineArtifactBytes: 4096 });
    try {
      const first = (await small.client.callTool({ name: "codex_artifact", arguments: { project_id: "demo", path: "big.png" } })) as CallToolResult;
      const meta = first.structuredContent as { complete: boolean; chunk_bytes: number; size: number };
      expect(meta.complete).toBe(false);
      expect(meta.size).toBeGreaterThan(3 * meta.chunk_bytes);
      const chunks: Record<string, CallToolResult> = {};
      for (let off = 0; off < meta.size; off += meta.chunk_bytes) {
        chunks[String(off)] = (await small.client.callTool({
          name: "codex_artifact",
          arguments: { project_id: "demo", path: "big.png", offset: off, length: meta.chunk_bytes },
        })) as CallToolResult;
      }
      const report = await runHarness(first, chunks, "chunked");
      expect(report.error).toBeUndefined();
      expect(report.img).toBe(true);
      expect(report.naturalWidth).toBe(200);
      expect(report.calls.length).toBe(Object.keys(chunks).length);
      expect(sha256(Buffer.from(report.download!.blob, "base64"))).toBe(sha256(big));
    } finally {
      await small.close();
    }
  }, 120_000);
});
