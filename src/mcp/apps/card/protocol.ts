// The task card's use of the MCP Apps postMessage protocol, as page script on top of the shared view-rpc.ts: tool
// calls through the host, the ui/initialize handshake, size reports, and where the task id comes from. Written by
// hand rather than bundling ext-apps' App class with zod, which keeps the card a few tens of KB.

export const PROTOCOL_JS = String.raw`
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
function initialize(onReady) {
  // The content's own height, not the document's: that one follows the frame and would only ever grow.
  const main = document.querySelector("main");
  new ResizeObserver(() => notify("ui/notifications/size-changed", { width: document.documentElement.scrollWidth, height: Math.ceil(main.getBoundingClientRect().height) })).observe(main);
  return request("ui/initialize", { appInfo: { name: "codex-bridge-task-card", version: "1.0.0" }, appCapabilities: {}, protocolVersion: "2026-01-26" })
    .then((r) => { hostCaps = (r && r.hostCapabilities) || {}; theme(r && r.hostContext); notify("ui/notifications/initialized", {}); onReady(); });
}
`;
