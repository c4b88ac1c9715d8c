// The host page that renders the artifact viewer in an iframe, shared by the DOM test (happy-dom, part of npm test)
// and the real-browser test (headless Chromium, npm run test:browser), plus the tool results both feed it.
import fs from "node:fs";
import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ARTIFACT_VIEWER_URI } from "../../src/mcp/apps/uris.ts";
import { afterAll, beforeAll } from "vitest";
import { tempDir } from "../support/temp-dir.ts";
import { connect, makePng, type Harness } from "./fixtures.ts";
import { pageScript } from "../support/page-script.ts";

// The host side is the ext-apps package's own AppBridge, so the hand-written view protocol is checked against the
// reference implementation rather than against a copy of our own assumptions. The page waits until the view settles
// (a preview appears, or the status line shows an error), clicks Download when there is a preview, and writes what a
// user would see as JSON into <pre id="report">.
const HOST_ENTRY = `
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
const report = (o) => { document.getElementById("report").textContent = JSON.stringify(o); };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function main() {
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin");
  iframe.style.width = "600px"; iframe.style.height = "400px";
  // srcdoc before insertion: the view's first message can then only arrive after connect() below has started.
  iframe.srcdoc = window.VIEWER_HTML;
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
  // happy-dom 21 sets event.source of a message a child frame posts to its parent to the parent's own window, so
  // there the transport is given no source to check (this page has one frame only); browsers check the child's window.
  const source = window.UNCHECKED_SOURCE ? undefined : iframe.contentWindow;
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, source));
  for (let i = 0; i < 400; i++) {
    await sleep(50);
    const doc = iframe.contentDocument;
    if (!doc || !doc.getElementById("status")) continue;
    const status = doc.getElementById("status").textContent;
    const preview = doc.getElementById("preview").firstElementChild;
    const img = doc.querySelector("#preview img");
    const btn = doc.getElementById("download");
    const settled = (preview && (!img || img.complete) && !btn.disabled) || (status && !status.startsWith("Large file"));
    if (!settled) continue;
    const seen = {
      status, name: doc.getElementById("name").textContent, button: btn.textContent, buttonDisabled: btn.disabled,
      preview: preview ? preview.tagName.toLowerCase() : null, calls,
    };
    if (!img) { report({ ...seen, img: false, download: null }); return; }
    btn.click();
    for (let j = 0; j < 100 && downloads.length === 0; j++) await sleep(50);
    const c = downloads[0] && downloads[0].contents[0];
    report({
      ...seen, img: true, naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight, imgSrc: img.src, imgAlt: img.alt,
      download: c ? { type: c.type, mimeType: c.resource && c.resource.mimeType, blob: c.resource && c.resource.blob } : null,
    });
    return;
  }
  report({ timeout: true, body: iframe.contentDocument ? iframe.contentDocument.body.innerHTML.slice(0, 2000) : null });
}
main().catch((e) => report({ error: String(e && e.stack || e) }));
`;

export interface HarnessReport {
  error?: string;
  timeout?: boolean;
  body?: string | null;
  status: string;
  name: string;
  button: string;
  buttonDisabled: boolean;
  /** Tag name of the first element in #preview, or null when there is none. */
  preview: string | null;
  img: boolean;
  naturalWidth?: number;
  naturalHeight?: number;
  imgSrc?: string;
  imgAlt?: string;
  /** Arguments of every tools/call the view made to fetch chunks. */
  calls: { offset: number; length: number }[];
  download: { type: string; mimeType?: string; blob: string } | null;
}

/** The whole host page: the tool result, the chunk answers and the viewer HTML inlined, then the bundled AppBridge host. */
export async function harnessHtml(opts: {
  viewerHtml: string;
  result: CallToolResult;
  chunks: Record<string, CallToolResult>;
  /** Let the host accept messages whatever their event.source (for happy-dom; see HOST_ENTRY). */
  uncheckedSource?: boolean;
}): Promise<string> {
  const inline = (v: unknown) => JSON.stringify(v).replace(/</g, "\\u003c");
  const script = await pageScript(HOST_ENTRY);
  return `<!doctype html><html><head><meta charset="utf-8"></head><body><pre id="report">pending</pre>
<script>window.TOOL_RESULT = ${inline(opts.result)}; window.CHUNKS = ${inline(opts.chunks)}; window.VIEWER_HTML = ${inline(opts.viewerHtml)};
window.UNCHECKED_SOURCE = ${opts.uncheckedSource ? "true" : "false"};</script>
<script>${script}</script></body></html>`;
}

/** The viewer as the server serves it (resources/read of its ui:// URI). */
export async function viewerHtmlFrom(h: Harness): Promise<string> {
  const viewer = await h.client.readResource({ uri: ARTIFACT_VIEWER_URI });
  return (viewer.contents[0] as { text: string }).text;
}

export interface ChunkedCase {
  bytes: Buffer;
  first: CallToolResult;
  chunks: Record<string, CallToolResult>;
  chunkBytes: number;
}

/**
 * A PNG above a 4 KiB inline threshold: the first codex_artifact answer (metadata only) and the ranged answers
 * the view will ask for, keyed by offset, all from the real tool.
 */
export async function chunkedCase(projectDir: string): Promise<ChunkedCase> {
  const bytes = makePng(200, 150);
  fs.writeFileSync(path.join(projectDir, "big.png"), bytes);
  const small = await connect({ projects: () => ({ demo: { cwd: projectDir } }), inlineArtifactBytes: 4096 });
  try {
    const first = (await small.client.callTool({ name: "codex_artifact", arguments: { project_id: "demo", path: "big.png" } })) as CallToolResult;
    const meta = first.structuredContent as { complete: boolean; chunk_bytes: number; size: number };
    if (meta.complete || meta.size <= 3 * meta.chunk_bytes) throw new Error(`expected a chunked answer, got ${JSON.stringify(meta)}`);
    const chunks: Record<string, CallToolResult> = {};
    for (let off = 0; off < meta.size; off += meta.chunk_bytes) {
      chunks[String(off)] = (await small.client.callTool({
        name: "codex_artifact",
        arguments: { project_id: "demo", path: "big.png", offset: off, length: meta.chunk_bytes },
      })) as CallToolResult;
    }
    return { bytes, first, chunks, chunkBytes: meta.chunk_bytes };
  } finally {
    await small.close();
  }
}

/** A copy of a chunk answer whose bytes have one bit flipped (what a file changed mid-read looks like). */
export function corruptChunk(chunk: CallToolResult): CallToolResult {
  const copy = JSON.parse(JSON.stringify(chunk)) as CallToolResult;
  for (const c of copy.content) {
    const flip = (b64: string): string => {
      const raw = Buffer.from(b64, "base64");
      raw[raw.length >> 1] ^= 0x01;
      return raw.toString("base64");
    };
    if (c.type === "resource" && "blob" in c.resource) {
      c.resource.blob = flip(c.resource.blob);
      return copy;
    }
    if (c.type === "image" || c.type === "audio") {
      c.data = flip(c.data);
      return copy;
    }
  }
  throw new Error(`chunk answer carries no bytes: ${JSON.stringify(chunk).slice(0, 300)}`);
}

export interface ViewerCase {
  dir: string;
  h: Harness;
  viewerHtml: string;
  big: ChunkedCase;
  png: Uint8Array;
}

/** Registers the shared setup of both viewer tests: a project with a PNG and a chunked file, served by the tools. */
export function viewerCase(prefix: string): () => ViewerCase {
  let c: ViewerCase | undefined;
  beforeAll(async () => {
    const dir = tempDir(prefix);
    const png = makePng(16, 8);
    fs.mkdirSync(path.join(dir, "project"));
    fs.writeFileSync(path.join(dir, "project", "chart.png"), png);
    const h = await connect({ projects: () => ({ demo: { cwd: path.join(dir, "project") } }) });
    c = { dir, h, png, viewerHtml: await viewerHtmlFrom(h), big: await chunkedCase(path.join(dir, "project")) };
  });
  afterAll(async () => {
    await c?.h.close();
  });
  return () => {
    if (!c) throw new Error("viewerCase used before its beforeAll ran");
    return c;
  };
}
