// The task card: one self-contained MCP Apps page (no external script, no frame, no build step) declared by the
// task tools, and the _meta that declares it. Its parts live beside it: styles, protocol, Markdown, drawing.
import { VIEW_RPC_JS } from "../view-rpc.ts";
import { CARD_CSS } from "./css.ts";
import { MARKDOWN_JS } from "./markdown.ts";
import { PROTOCOL_JS } from "./protocol.ts";
import { CARD_JS } from "./script.ts";

export const TASK_CARD_URI = "ui://codex-bridge/task.html";

/** What a task tool declares so MCP Apps hosts show the card beside its result (the flat key is for older hosts). */
export const TASK_CARD_META = { ui: { resourceUri: TASK_CARD_URI }, "ui/resourceUri": TASK_CARD_URI };

const BODY = `<main>
<header><span id="state" class="badge">waiting</span><span id="title" class="id">Waiting for a task…</span><span class="muted">for <span id="elapsed">–</span></span></header>
<div><span class="muted">Now: </span><span id="doing">–</span></div>
<div id="said" class="muted"></div>
<div id="status" role="status"></div>
<div id="note" class="muted" role="status"></div>
<section hidden><h2>Needs a decision</h2><div id="asks"></div></section>
<section hidden><h2>Final answer</h2><div id="final" class="md"></div></section>
<div id="error" class="exitbad" hidden></div>
<section hidden><h2>Plan</h2><ul id="plan" class="plain plan"></ul></section>
<section hidden><h2>Commands</h2><div id="commands"></div></section>
<section hidden><h2>Changed files</h2><div id="files"></div></section>
<section hidden><h2>File</h2><div id="viewer"></div></section>
<section hidden><h2>Web-tool requests</h2><ul id="tools" class="plain"></ul></section>
<section hidden><h2>Answered requests</h2><ul id="answered" class="plain"></ul></section>
<details><summary class="muted">Prompt</summary><pre id="prompt"></pre></details>
</main>`;

const script = [VIEW_RPC_JS, PROTOCOL_JS, MARKDOWN_JS, CARD_JS].join("\n");

export const TASK_CARD_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Codex task</title><style>${CARD_CSS}</style></head>
<body>${BODY}<script>${script.replace(/<\/script/gi, "<\\/script")}</script></body></html>
`;
