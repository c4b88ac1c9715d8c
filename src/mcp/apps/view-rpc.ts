// The page side of the MCP Apps postMessage JSON-RPC, as script text shared by the bridge's views (the artifact
// viewer and the task card): requests to the host, notifications, and a handler table for what the host sends.

export const VIEW_RPC_JS = String.raw`
"use strict";
let nextId = 1, hostCaps = {};
const waiting = new Map();
/** Host notifications and requests this view handles, by method. */
const handlers = {};
const post = (m) => window.parent.postMessage(m, "*");
function request(method, params) {
  const id = nextId++;
  post({ jsonrpc: "2.0", id, method, params });
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}
const notify = (method, params) => post({ jsonrpc: "2.0", method, params });
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
function theme(ctx) { if (ctx && ctx.theme) document.documentElement.dataset.theme = ctx.theme; }
handlers["ui/notifications/host-context-changed"] = theme;
`;
