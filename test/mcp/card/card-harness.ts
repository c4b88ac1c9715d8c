// The task card's test host and scenario, shared by the happy-dom test (npm test) and the headless-Chromium test
// (npm run test:browser): ext-apps' own AppBridge hosts the card in an iframe and forwards its tool calls to a real
// bridge (real app-server, loopback mock model); the scenario drives a task through the states a person sees.
import { poll } from "../../support/poll.ts";
import fs from "node:fs";
import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { getPlatform } from "../../../platform/index.ts";
import { pageScript } from "../../support/page-script.ts";
import { resultText, startHarness, type Harness } from "../../../src/selftest/harness.ts";

// The host page. Tool calls go to window.CALL_SERVER when the test injected one (happy-dom shares the test's Node
// realm), else to POST /call on the page's own origin (Chromium, served by the test). probe() reports what a person
// sees on the card; decide() clicks one of its decision buttons; setTheme() switches the host's theme.
const HOST_ENTRY = `
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
const callServer = window.CALL_SERVER || (async (p) => (await fetch("/call", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(p) })).json());
const card = () => { const f = document.querySelector("iframe"); return f && f.contentDocument; };
let bridge = null;
async function main() {
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin");
  iframe.style.cssText = "width:100%;height:640px;border:0;display:block";
  iframe.srcdoc = window.CARD_HTML;
  document.body.append(iframe);
  bridge = new AppBridge(null, { name: "card-harness", version: "1.0.0" }, { serverTools: {}, openLinks: {} }, { hostContext: { theme: "light" } });
  bridge.oncalltool = (p) => callServer(p);
  bridge.onopenlink = async () => ({});
  bridge.onsizechange = (s) => { if (s.height) iframe.style.height = Math.max(200, s.height) + "px"; };
  bridge.oninitialized = () => { bridge.sendToolInput({ arguments: window.TOOL_ARGS }); bridge.sendToolResult(window.TOOL_RESULT); };
  const source = window.UNCHECKED_SOURCE ? undefined : iframe.contentWindow;
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, source));
}
const all = (d, sel) => Array.from(d.querySelectorAll(sel));
window.probe = () => {
  const d = card();
  if (window.HOST_ERROR) return { hostError: window.HOST_ERROR };
  if (!d || !d.getElementById("state")) return null;
  const t = (id) => d.getElementById(id).textContent;
  return {
    state: t("state"), title: t("title"), doing: t("doing"), elapsed: t("elapsed"), status: t("status"), note: t("note"),
    commands: all(d, "#commands details").map((x) => ({ command: x.dataset.command, exit: x.querySelector("summary span").textContent, output: x.querySelector("pre").textContent })),
    asks: all(d, "#asks .ask").map((a) => ({ request: a.dataset.request, text: a.textContent, buttons: all(a, "button").map((b) => ({ action: b.dataset.action, label: b.textContent, disabled: b.disabled })) })),
    answered: all(d, "#answered li").map((li) => li.textContent),
    finalHtml: d.getElementById("final").innerHTML,
    files: all(d, "#files a[data-file]").map((a) => a.textContent),
    added: all(d, "#files .diff span.a").map((s) => s.textContent),
    viewer: t("viewer"),
  };
};
window.decide = (requestId, action) => {
  const b = card().querySelector('#asks button[data-request="' + requestId + '"][data-action="' + action + '"]');
  if (!b || b.disabled) return false;
  b.click();
  return true;
};
window.openFile = (p) => { const a = card().querySelector('#files a[data-file="' + p + '"]'); if (a) a.click(); return !!a; };
window.setTheme = (theme) => { bridge.setHostContext({ theme }); document.body.style.background = theme === "dark" ? "#17171b" : "#fff"; };
main().catch((e) => { window.HOST_ERROR = String((e && e.stack) || e); });
`;

/** The whole host page: the card's HTML (as the server serves it), the tool call that opened it, the bundled host. */
export async function hostPage(opts: { cardHtml: string; args: Record<string, unknown>; result: CallToolResult; uncheckedSource?: boolean }): Promise<string> {
  const inline = (v: unknown) => JSON.stringify(v).replace(/</g, "\\u003c");
  const script = await pageScript(HOST_ENTRY);
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><style>body{margin:0}</style></head><body>
<script>window.CARD_HTML = ${inline(opts.cardHtml)}; window.TOOL_ARGS = ${inline(opts.args)}; window.TOOL_RESULT = ${inline(opts.result)};
window.UNCHECKED_SOURCE = ${opts.uncheckedSource ? "true" : "false"};</script>
<script>${script}</script></body></html>`;
}

export interface Seen {
  hostError?: string;
  state: string;
  title: string;
  doing: string;
  elapsed: string;
  status: string;
  note: string;
  commands: { command: string; exit: string; output: string }[];
  asks: { request: string; text: string; buttons: { action: string; label: string; disabled: boolean }[] }[];
  answered: string[];
  finalHtml: string;
  files: string[];
  added: string[];
  viewer: string;
}

/** What the scenario needs of a page, whichever engine renders it. */
export interface CardPage {
  probe(): Promise<Seen | null>;
  decide(requestId: string, action: string): Promise<boolean>;
  openFile(path: string): Promise<boolean>;
  setTheme(theme: "light" | "dark"): Promise<void>;
}

export const GATE_COMMAND = "until [ -f gate ]; do sleep 0.1; done; echo gate-open";
export const APPROVAL_COMMAND = "echo approved > approved.txt";
const PATCH = "*** Begin Patch\n*** Add File: notes/hello.txt\n+hello from the card test\n*** End Patch\n";
export const FINAL = "## Done\n\nI added **one note** and wrote `approved.txt`:\n\n- [notes/hello.txt](notes/hello.txt)\n- `approved.txt` holds *approved*";

/** A bridge whose profile leaves approvals to the person, on the real app-server with the mock model. */
export async function personHarness(): Promise<Harness> {
  return startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "on-request", extraConfig: 'model = "gpt-5.5"\napprovals = "person"', viewHost: true });
}

/**
 * Starts the scenario's task: a first command, one that waits for a gate file (so the task is seen running), a
 * patch, a command that asks for approval (escalated sandbox), then a Markdown answer.
 */
export async function startScenario(h: Harness): Promise<{ taskId: string; args: Record<string, unknown>; result: CallToolResult }> {
  h.provider!.enqueue(
    { kind: "output", items: [{ type: "message", text: "I will check the shell first." }, { type: "exec", cmd: "echo first-step" }] },
    { kind: "output", items: [{ type: "exec", cmd: GATE_COMMAND }] },
    { kind: "output", items: [{ type: "patch", patch: PATCH }] },
    { kind: "output", items: [{ type: "exec", cmd: APPROVAL_COMMAND, sandboxPermissions: "require_escalated", justification: "write the approval marker" }] },
    { kind: "output", items: [{ type: "message", text: FINAL }] },
  );
  const args = { project_id: "demo", prompt: "Add a note, then write approved.txt." };
  const result = await h.call("codex_start", args);
  expect(result.isError, resultText(result)).toBeFalsy();
  return { taskId: String((result.structuredContent as Record<string, unknown>).task_id), args, result };
}

/** Polls the page until `ok` holds (a condition, never a duration), then returns what was seen. */
export async function until(page: CardPage, what: string, ok: (s: Seen) => boolean): Promise<Seen> {
  return poll(
    async () => {
      const seen = await page.probe();
      // A broken host page ends the wait at once instead of being retried until the timeout.
      if (seen?.hostError) return { failed: seen.hostError };
      return seen && ok(seen) ? { seen } : null;
    },
    { timeoutMs: 90_000, interval: 100, what: `the card to show ${what}` },
  ).then((r) => {
    if ("failed" in r) throw new Error(`the host page failed: ${r.failed}`);
    return r.seen;
  });
}

export type Shot = (name: "running" | "approval" | "completed" | "completed-dark") => Promise<void>;

/** The scenario as a person watches it; `shot` records the page in each state (Chromium writes PNGs). */
export async function runScenario(h: Harness, taskId: string, page: CardPage, shot: Shot = async () => {}): Promise<void> {
  // Running: the card refreshes by itself (the test calls no tool) until the gate command shows as running.
  const running = await until(page, "the gate command running", (s) => s.commands.some((c) => c.command === GATE_COMMAND && c.exit === "running"));
  expect(running.state).toBe("running");
  expect(running.title).toContain(taskId);
  expect(running.doing).toBe(`running ${GATE_COMMAND}`);
  expect(running.commands[0]).toMatchObject({ command: "echo first-step", exit: "exit 0", output: "first-step" });
  expect(running.elapsed).toMatch(/^\d+s$|m /);
  await shot("running");

  // The person's approval: the full request with its decisions, while the model's own answer is refused.
  fs.writeFileSync(path.join(h.projectDir, "gate"), "");
  const asking = await until(page, "the approval request", (s) => s.asks.length > 0);
  expect(asking.state).toBe("waiting for approval");
  expect(asking.commands.map((c) => [c.command, c.exit])).toEqual([
    ["echo first-step", "exit 0"],
    [GATE_COMMAND, "exit 0"],
    [APPROVAL_COMMAND, "awaiting approval"],
  ]);
  const ask = asking.asks[0]!;
  expect(ask.text).toContain(APPROVAL_COMMAND);
  expect(ask.text).toContain("write the approval marker");
  expect(ask.text).toContain(h.projectDir);
  expect(ask.buttons.map((b) => b.action)).toEqual(expect.arrayContaining(["accept", "decline"]));
  expect(ask.buttons.every((b) => !b.disabled)).toBe(true);
  expect(ask.buttons.find((b) => b.action === "accept")!.label).toBe("Approve");
  const model = await h.call("codex_respond", { task_id: taskId, request_id: ask.request, action: "accept" });
  expect(model.isError).toBe(true);
  expect(resultText(model)).toMatch(/task card/);
  // The model calls the card's own tool too: without the card's key, or with a made-up one, nothing is answered.
  for (const card_key of [undefined, "x".repeat(32)]) {
    const posing = await h.call("codex_card_respond", { task_id: taskId, request_id: ask.request, action: "accept", ...(card_key ? { card_key } : {}) });
    expect(posing.isError).toBe(true);
    expect(resultText(posing)).toMatch(/card_key.*Nothing was answered/);
  }
  expect(h.bridge.repo.interaction(ask.request)!.state).toBe("pending");
  expect(fs.existsSync(path.join(h.projectDir, "approved.txt"))).toBe(false);
  await shot("approval");

  // The click reaches Codex: the command runs, the turn completes, the answer and the diff are shown.
  expect(await page.decide(ask.request, "accept")).toBe(true);
  const done = await until(page, "the completed task", (s) => s.state === "completed" && s.finalHtml.length > 0);
  expect(fs.readFileSync(path.join(h.projectDir, "approved.txt"), "utf8")).toBe("approved\n");
  expect(done.commands.at(-1)).toMatchObject({ command: APPROVAL_COMMAND, exit: "exit 0" });
  expect(done.asks).toEqual([]);
  expect(done.answered.join("\n")).toMatch(new RegExp(`${ask.request} command ${APPROVAL_COMMAND.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} → accept by the person on the task card`));
  expect(h.bridge.repo.interaction(ask.request)!.answered_by).toBe("person on the task card");
  expect(done.finalHtml).toContain("<h4>Done</h4>");
  expect(done.finalHtml).toContain("<strong>one note</strong>");
  expect(done.finalHtml).toContain('<a data-file="notes/hello.txt">notes/hello.txt</a>');
  expect(done.files).toEqual(["notes/hello.txt"]);
  expect(done.added).toContain("+hello from the card test");
  await shot("completed");
  await page.setTheme("dark");
  await shot("completed-dark");

  // A file link opens the file through the artifact tool.
  expect(await page.openFile("notes/hello.txt")).toBe(true);
  await until(page, "the opened file", (s) => s.viewer.includes("hello from the card test"));
}
