// The task card's page script: it follows one task through the app-only codex_card tool (polling while the turn
// runs), draws it with DOM text nodes (Markdown alone goes through the escaping renderer), and sends the person's
// decisions through codex_card_respond. Nothing here makes the model call a tool.

export const CARD_JS = String.raw`
const $ = (id) => document.getElementById(id);
const POLL_MS = 1500;
let taskId = null, card = null, skew = 0, timer = null, sending = false;
// Each task's card key, which makes a decision the person's: it comes only in the _meta of tool results (hosts hand
// _meta to the view, never to the model). ChatGPT's own bridge exposes that _meta as window.openai.toolResponseMetadata.
const keys = {};
function learnKeys(meta) { const k = meta && meta["codex-bridge/card-keys"]; if (k && typeof k === "object") Object.assign(keys, k); }
function keyFor(id) {
  if (!keys[id]) { try { learnKeys(window.openai && window.openai.toolResponseMetadata); } catch (e) {} }
  return keys[id];
}
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined && k !== false) e.append(k);
  return e;
}
const say = (t) => { $("status").textContent = t || ""; };
function fill(id, ...kids) { const box = $(id); box.replaceChildren(...kids.flat().filter(Boolean)); box.closest("section").hidden = box.childNodes.length === 0; }
function duration(ms) {
  const s = Math.max(0, Math.floor(ms / 1000)), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
  return (h ? h + "h " : "") + (h || m ? m + "m " : "") + (s % 60) + "s";
}
function tick() {
  if (!card) return;
  const end = card.ended_at ? Date.parse(card.ended_at) : Date.now() - skew;
  $("elapsed").textContent = duration(end - Date.parse(card.started_at));
}
const LABELS = { accept: "Approve", acceptForSession: "Approve for this session", acceptWithExecpolicyAmendment: "Always allow", decline: "Decline", cancel: "Cancel the turn", answer: "Send answers" };
function exitClass(c) { return c.status === "inProgress" || c.status === "awaitingApproval" ? "exitrun" : c.exit_code === 0 && c.status === "completed" ? "exit0" : "exitbad"; }
function exitText(c) { return c.status === "inProgress" ? "running" : c.status === "awaitingApproval" ? "awaiting approval" : c.exit_code !== null && c.exit_code !== undefined ? "exit " + c.exit_code + (c.status === "completed" ? "" : " · " + c.status) : c.status; }
function fileLink(path) { return el("a", { "data-file": path, text: path, onclick: (ev) => { ev.preventDefault(); openFile(path).catch((e) => say(e.message)); } }); }
async function openFile(path) {
  if (hostCaps.message) {
    await request("ui/message", { role: "user", content: [{ type: "text", text: "Show me " + path + " of project " + card.project_id + " (codex_artifact)." }] });
    say("Asked the assistant to open " + path + " in the artifact viewer.");
    return;
  }
  const r = await callTool("codex_artifact", { project_id: card.project_id, path });
  const box = $("viewer");
  const item = (r.content || []).find((c) => c.type === "image" || c.type === "resource");
  let body = el("p", { class: "muted", text: textOf(r) });
  if (item && item.type === "image") body = el("img", { alt: path, src: "data:" + item.mimeType + ";base64," + item.data });
  else if (item && typeof item.resource.text === "string") body = el("pre", { text: item.resource.text.slice(0, 200000) });
  fill("viewer", el("div", { class: "row" }, el("strong", { class: "mono", text: path }), el("button", { type: "button", text: "Close", onclick: () => fill("viewer") })), body);
  if (box.scrollIntoView) box.scrollIntoView({ block: "nearest" });
}
function asks() {
  return card.requests.filter((r) => r.state === "pending").map((r) => {
    const canAnswer = card.approvals !== "supervisor";
    const inputs = [];
    const facts = [
      r.command && el("div", {}, "Command: ", el("code", { text: r.command })),
      r.cwd && el("div", { class: "muted" }, "in ", el("code", { text: r.cwd })),
      r.reason && el("div", { text: "Reason: " + r.reason }),
      r.message && el("div", { text: r.message }),
      r.paths && r.paths.length && el("div", {}, "Paths: ", ...r.paths.map((p) => el("code", { text: p }))),
    ];
    for (const q of r.questions || []) {
      const field = q.options && q.options.length
        ? el("select", { "data-question": q.id }, ...q.options.map((o) => el("option", { value: o, text: o })))
        : el("input", { "data-question": q.id, type: "text" });
      inputs.push(field);
      facts.push(el("label", {}, el("span", { text: q.question }), field));
    }
    const buttons = (r.decisions || []).map((d, n) => el("button", {
      type: "button", class: n === 0 ? "primary" : "", "data-action": d, "data-request": r.request_id, disabled: !canAnswer || sending,
      text: LABELS[d] || d, onclick: () => answer(r, d, inputs),
    }));
    const who = card.approvals === "supervisor" ? "The supervisor answers this (approvals = \"supervisor\")." : card.approvals === "person" ? "Your decision: Codex waits for you." : "You or the supervisor may answer.";
    return el("div", { class: "ask", "data-request": r.request_id },
      el("strong", { text: (r.kind === "command" ? "Run a command?" : r.kind === "fileChange" ? "Change files?" : r.kind === "permissions" ? "Grant permissions?" : r.kind === "userInput" ? "Codex asks" : "Codex asks (" + r.kind + ")") }),
      ...facts, el("div", { class: "row" }, ...buttons), el("div", { class: "who", text: who }));
  });
}
async function answer(r, action, inputs) {
  const args = { task_id: card.task_id, request_id: r.request_id, action };
  const key = keyFor(card.task_id);
  if (key) args.card_key = key;
  if (action === "answer") {
    const answers = {};
    for (const f of inputs) answers[f.dataset.question] = f.value;
    args.payload = { answers };
  }
  sending = true; render();
  try {
    const res = await callTool("codex_card_respond", args);
    say(""); $("note").textContent = textOf(res);
  } catch (e) { say(e.message); } finally { sending = false; }
  await refresh();
}
function diffView(text) {
  const files = [];
  for (const line of text.split("\n")) {
    const m = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
    if (m || !files.length) files.push({ path: m ? m[2] : "diff", lines: [] });
    if (!m) files[files.length - 1].lines.push(line);
  }
  return files.map((f, n) => {
    const pre = el("pre", { class: "diff" }, ...f.lines.map((l) => el("span", { class: /^\+(?!\+\+ )/.test(l) ? "a" : /^-(?!-- )/.test(l) ? "d" : /^(@@|\+\+\+ |--- |index |new file|deleted file)/.test(l) ? "h" : "", text: l || " " })));
    return el("details", { open: n < 3 }, el("summary", {}, el("span", { class: "mono", text: f.path })), pre);
  });
}
function render() {
  if (!card) return;
  const c = card;
  $("state").textContent = c.state.replace(/_/g, " ");
  $("state").className = "badge " + c.state;
  $("title").textContent = c.task_id + " · " + c.project_id;
  // Codex's words put commands in backticks: shown as code, never as markup.
  $("doing").replaceChildren(...c.doing.split("\x60").map((part, n) => (n % 2 ? el("code", { text: part }) : part)));
  $("prompt").textContent = c.prompt;
  tick();
  $("said").textContent = !c.final_message && c.last_message ? c.last_message : "";
  if (c.settled) $("note").textContent = "";
  fill("asks", asks());
  fill("plan", (c.plan || []).map((s) => el("li", { class: s.status, text: (s.status === "completed" ? "✓ " : s.status === "pending" ? "○ " : "▸ ") + s.step })));
  fill("commands", c.commands.map((x) => el("details", { "data-command": x.command },
    el("summary", {}, el("code", { text: "$ " + x.command }), " ", el("span", { class: exitClass(x), text: exitText(x) })),
    el("pre", { text: x.output ? x.output + (x.output_chars ? "\n[" + x.output_chars + " characters in all]" : "") : "(no output)" }))),
    c.commands_omitted ? el("p", { class: "muted", text: c.commands_omitted + " earlier commands not shown" }) : null);
  fill("files", c.files.length ? el("ul", { class: "plain" }, ...c.files.map((f) => el("li", {}, el("span", { class: "muted", text: f.kind + " " }), fileLink(f.path)))) : null,
    c.diff ? diffView(c.diff) : null, c.diff_chars ? el("p", { class: "muted", text: "Diff shortened; " + c.diff_chars + " characters in all." }) : null);
  fill("tools", c.tool_requests.map((t) => el("li", {}, el("code", { text: t.request_id }), " " + t.capability + (t.operation ? " (" + t.operation + ")" : "") + ": " + t.request + " · " + t.state + (t.status ? " · " + t.status : ""))));
  fill("answered", c.requests.filter((r) => r.state !== "pending").map((r) => el("li", {},
    el("code", { text: r.request_id }), " " + r.kind + (r.command ? " " : ""), r.command ? el("code", { text: r.command }) : null,
    " → " + (r.answer || r.state) + (r.answered_by ? " by the " + r.answered_by : "") + " · " + r.state)));
  const fin = $("final");
  if (c.final_message) {
    fin.innerHTML = renderMarkdown(c.final_message);
    for (const a of fin.querySelectorAll("a[data-file]")) a.addEventListener("click", (ev) => { ev.preventDefault(); openFile(a.dataset.file).catch((e) => say(e.message)); });
    for (const a of fin.querySelectorAll("a[data-url]")) a.addEventListener("click", (ev) => { ev.preventDefault(); request("ui/open-link", { url: a.dataset.url }).catch((e) => say(e.message)); });
  } else fin.replaceChildren();
  fin.closest("section").hidden = !c.final_message;
  $("error").textContent = c.error || "";
  $("error").hidden = !c.error;
}
async function refresh() {
  if (!taskId) return;
  clearTimeout(timer);
  try {
    const r = await callTool("codex_card", { task_id: taskId, ...(card && card.task_id === taskId ? { since: card.version } : {}) });
    learnKeys(r._meta);
    const s = r.structuredContent || {};
    if (!s.unchanged) {
      if (!s.task_id) throw new Error(textOf(r) || "the card data did not arrive");
      card = s; skew = Date.now() - Date.parse(s.now); render();
    }
    say("");
  } catch (e) { say(e.message); }
  if (!card || !card.settled) timer = setTimeout(refresh, POLL_MS);
}
function follow(id) {
  if (!id || id === taskId) return;
  taskId = id; card = null; refresh();
}
handlers["ui/notifications/tool-input"] = (p) => follow(p.arguments && p.arguments.task_id);
handlers["ui/notifications/tool-result"] = (p) => { learnKeys(p._meta); if (!p.isError) follow(taskIdOf(p)); else if (!taskId) say(textOf(p)); };
setInterval(tick, 1000);
initialize(() => refresh()).catch((e) => say(String(e && e.message || e)));
`;
