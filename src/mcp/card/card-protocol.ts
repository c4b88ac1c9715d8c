// The task card's side of the MCP Apps postMessage protocol, as page script: JSON-RPC requests to the host
// (ui/initialize, tools/call, ui/message, ui/open-link), its notifications, and where the task id comes from.
// Written by hand rather than bundling ext-apps' App class with zod, which keeps the card a few tens of KB.

export const PROTOCOL_JS = String.raw`
"use strict";
let nextId = 1, hostCaps = {};
const waiting = new Map();
const post = (m) => window.parent.postMessage(m, "*");
function request(method, params) {
  const id = nextId++;
  post({ jsonrpc: "2.0", id, method, params });
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}
const notify = (method, params) => post({ jsonrpc: "2.0", method, params });
const handlers = {};
window.addEventListener("message", (ev) => {
  if (ev.source !== window.parent) return;
  const m = ev.data;
  if (!m || m.jsonrpc !== "2.0") return;
  if (m.method === undefined && m.id !== undefined) {
    const p = waiting.get(m.id);
    if (!p) return;
    waiting.delete(m.id);
    if (m.error) p.reject(new Error(m.error.message || "request failed")); else p.resolve(m.result);
    return;
  }
  const h = handlers[m.method];
  if (h) h(m.params || {});
  else if (m.id !== undefined) {
    if (m.method === "ui/resource-teardown" || m.method === "ping") post({ jsonrpc: "2.0", id: m.id, result: {} });
    else post({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
  }
});
/** A tool call through the host; a tool error becomes a thrown Error carrying the tool's own sentence. */
async function callTool(name, args) {
  const r = await request("tools/call", { name, arguments: args });
  if (r && r.isError) throw new Error(textOf(r) || name + " failed");
  return r || {};
}
const textOf = (r) => ((r && r.content) || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
/**
 * The task a tool result is about. Hosts differ in what they hand the view (some strip structuredContent), so
 * the text is read too: every task tool's text names its task id.
 */
function taskIdOf(result) {
  const s = (result && result.structuredContent) || {};
  if (typeof s.task_id === "string") return s.task_id;
  if (typeof s.next_cursor === "string") return s.next_cursor.split(":")[0];
  if (Array.isArray(s.tasks) && s.tasks[0] && s.tasks[0].task_id) return s.tasks[0].task_id;
  const m = /\bt_[0-9a-f]{10}\b/.exec(textOf(result));
  return m ? m[0] : null;
}
function theme(ctx) { if (ctx && ctx.theme) document.documentElement.dataset.theme = ctx.theme; }
function initialize(onReady) {
  new ResizeObserver(() => notify("ui/notifications/size-changed", { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight })).observe(document.body);
  return request("ui/initialize", { appInfo: { name: "codex-bridge-task-card", version: "1.0.0" }, appCapabilities: {}, protocolVersion: "2026-01-26" })
    .then((r) => { hostCaps = (r && r.hostCapabilities) || {}; theme(r && r.hostContext); notify("ui/notifications/initialized", {}); onReady(); });
}
`;
