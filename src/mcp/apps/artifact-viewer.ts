// The MCP Apps view for codex_artifact: one self-contained page (no external scripts, no build step).
// It speaks the small MCP Apps postMessage JSON-RPC protocol by hand (view-rpc.ts: ui/initialize, tool-result
// notifications, tools/call for chunks, ui/download-file), which keeps it a few KB instead of bundling
// the ext-apps App class with zod.

import { VIEW_RPC_JS } from "./view-rpc.ts";

const css = `
:root{color-scheme:light dark;--fg:#1b1b1f;--bg:#fff;--muted:#666;--line:#d0d0d7;--accent:#2563eb}
[data-theme=dark]{--fg:#e8e8ee;--bg:#17171b;--muted:#a0a0aa;--line:#3a3a44;--accent:#60a5fa}
body{margin:0;font:14px/1.4 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
main{padding:12px;display:flex;flex-direction:column;gap:10px}
header{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
#name{font-weight:600;word-break:break-all}#meta{color:var(--muted);font-size:12px}
button{font:inherit;padding:4px 12px;border:1px solid var(--line);border-radius:6px;background:transparent;color:var(--fg);cursor:pointer}
button:disabled{opacity:.5;cursor:default}
#preview img,#preview video{max-width:100%;max-height:70vh;display:block}
#preview audio{width:100%}
#preview pre{margin:0;padding:8px;max-height:70vh;overflow:auto;border:1px solid var(--line);border-radius:6px;white-space:pre-wrap;word-break:break-word;font:12px/1.4 ui-monospace,monospace}
.card{padding:16px;border:1px dashed var(--line);border-radius:8px;color:var(--muted)}
progress{width:100%}
`;

const script = `
const $ = (id) => document.getElementById(id);
let current = null, objectUrl = null;
handlers["ui/notifications/tool-result"] = (p) => show(p).catch(fail);
function fail(e) { $("status").textContent = String(e && e.message || e); }
function b64ToBytes(s) {
  const bin = atob(s), out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
function bytesToB64(b) {
  let s = "";
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode.apply(null, b.subarray(i, i + 0x8000));
  return btoa(s);
}
const textLike = (t) => /^text\\//.test(t) || /[+\\/](json|xml|javascript|yaml|toml|x-sh|sql)/.test(t);
function bytesOf(result) {
  for (const c of result.content || []) {
    if ((c.type === "image" || c.type === "audio") && c.data) return b64ToBytes(c.data);
    if (c.type === "resource" && c.resource) {
      if (typeof c.resource.blob === "string") return b64ToBytes(c.resource.blob);
      if (typeof c.resource.text === "string") return new TextEncoder().encode(c.resource.text);
    }
  }
  return null;
}
function linkOf(result) { return (result.content || []).find((c) => c.type === "resource_link") || null; }
async function assemble(info) {
  if (!hostCaps.serverTools) throw new Error("This host cannot fetch the remaining chunks; use the download button.");
  const out = new Uint8Array(info.size), bar = $("progress");
  bar.hidden = false; bar.max = info.size;
  for (let off = 0; off < info.size; ) {
    const r = await request("tools/call", { name: "codex_artifact", arguments: { project_id: info.project_id, path: info.path, offset: off, length: info.chunk_bytes } });
    if (r.isError) throw new Error((r.content && r.content[0] && r.content[0].text) || "chunk read failed");
    const part = bytesOf(r);
    if (!part || part.length === 0) throw new Error("empty chunk at offset " + off);
    out.set(part, off); off += part.length; bar.value = off;
  }
  bar.hidden = true;
  if (crypto.subtle) {
    const d = new Uint8Array(await crypto.subtle.digest("SHA-256", out));
    const hex = Array.from(d, (x) => x.toString(16).padStart(2, "0")).join("");
    if (hex !== info.sha256) throw new Error("SHA-256 mismatch after reassembly; the file changed while it was read");
  }
  return out;
}
function card(text) { const d = document.createElement("div"); d.className = "card"; d.textContent = text; return d; }
function preview(bytes, info) {
  const box = $("preview"); box.replaceChildren();
  if (objectUrl) URL.revokeObjectURL(objectUrl);
  const type = info.mime || "application/octet-stream";
  objectUrl = URL.createObjectURL(new Blob([bytes], { type }));
  let el;
  if (/^image\\//.test(type)) { el = document.createElement("img"); el.alt = info.path; el.src = objectUrl; }
  else if (/^audio\\//.test(type)) { el = document.createElement("audio"); el.controls = true; el.src = objectUrl; }
  else if (/^video\\//.test(type)) { el = document.createElement("video"); el.controls = true; el.src = objectUrl; }
  else if (type === "application/pdf") el = card("PDF: the sandboxed view cannot display it. Download to view.");
  else if (textLike(type) || info.text) {
    el = document.createElement("pre");
    const limit = 1 << 20;
    el.textContent = new TextDecoder().decode(bytes.subarray(0, limit)) + (bytes.length > limit ? "\\n[preview truncated; download for the whole file]" : "");
  } else el = card("No preview for " + type + ". Download to open it.");
  box.append(el);
}
async function download() {
  if (!current) return;
  const { info, bytes, link } = current;
  const uri = info.uri || (link && link.uri);
  if (hostCaps.downloadFile) {
    const contents = bytes
      ? [{ type: "resource", resource: { uri, mimeType: info.mime, blob: bytesToB64(bytes) } }]
      : [link || { type: "resource_link", uri, name: info.path.split("/").pop(), mimeType: info.mime }];
    const r = await request("ui/download-file", { contents });
    $("status").textContent = r && r.isError ? "Download was not completed." : "Download requested.";
  } else if (bytes) {
    const a = document.createElement("a");
    a.href = objectUrl; a.download = info.path.split("/").pop(); a.click();
  } else $("status").textContent = "This host offers no downloads.";
}
async function show(result) {
  const info = Object.assign({}, result.structuredContent || {});
  const link = linkOf(result);
  if (!info.path && link) { info.path = link.name; info.mime = link.mimeType; info.uri = link.uri; }
  if (result.isError || !info.path) { fail((result.content && result.content[0] && result.content[0].text) || "No artifact in this result."); return; }
  $("name").textContent = info.path;
  $("meta").textContent = [info.mime, info.size + " bytes", info.sha256 ? "sha256 " + info.sha256.slice(0, 12) : ""].filter(Boolean).join(" · ");
  let bytes = info.complete ? bytesOf(result) : null;
  current = { info, bytes, link };
  $("download").disabled = false;
  if (bytes) { preview(bytes, info); $("status").textContent = ""; return; }
  $("status").textContent = "Large file: fetching " + info.size + " bytes in chunks...";
  bytes = await assemble(info);
  current.bytes = bytes;
  preview(bytes, info);
  $("status").textContent = "";
}
$("download").addEventListener("click", () => download().catch(fail));
new ResizeObserver(() => notify("ui/notifications/size-changed", { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight })).observe(document.body);
request("ui/initialize", { appInfo: { name: "codex-bridge-artifact-viewer", version: "1.0.0" }, appCapabilities: {}, protocolVersion: "2026-01-26" })
  .then((r) => { hostCaps = (r && r.hostCapabilities) || {}; theme(r && r.hostContext); notify("ui/notifications/initialized", {}); })
  .catch(fail);
`;

export const ARTIFACT_VIEWER_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Artifact viewer</title><style>${css}</style></head>
<body><main>
<header><span id="name">Waiting for an artifact...</span><span id="meta"></span><button id="download" type="button" disabled>Download</button></header>
<progress id="progress" hidden></progress>
<div id="status" role="status"></div>
<div id="preview"></div>
</main><script>${(VIEW_RPC_JS + script).replace(/<\/script/gi, "<\\/script")}</script></body></html>
`;
