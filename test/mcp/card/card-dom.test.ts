// The task card in happy-dom (part of npm test), hosted by ext-apps' own AppBridge and fed by a real bridge on the
// REAL app-server with the mock model (10-30 s): running, a new command, the person's approval, the completed answer
// and diff. The same scenario in real Chromium, with screenshots: test/browser/card-chromium.test.ts.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Window } from "happy-dom";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { Harness } from "../../../src/selftest/harness.ts";
import { hostPage, personHarness, runScenario, startScenario, type CardPage, type Seen } from "./card-harness.ts";

let h: Harness;
let win: Window | null = null;

beforeAll(async () => {
  h = await personHarness();
});

afterAll(async () => {
  await win?.happyDOM.close();
  await h?.close();
});

type HostWindow = Window & {
  CALL_SERVER: (p: { name: string; arguments?: Record<string, unknown> }) => Promise<CallToolResult>;
  probe(): Seen | null;
  decide(requestId: string, action: string): boolean;
  openFile(path: string): boolean;
  setTheme(theme: string): void;
};

describe("the task card in happy-dom", () => {
  it("follows a task from running to a person's approval to the completed answer and diff", async () => {
    const card = await h.client.readResource({ uri: "ui://codex-bridge/task.html" });
    const cardHtml = (card.contents[0] as { text: string }).text;
    const { taskId, args, result } = await startScenario(h);
    win = new Window({
      url: "http://127.0.0.1/",
      settings: { enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true, disableJavaScriptFileLoading: true, disableCSSFileLoading: true },
    });
    const host = win as HostWindow;
    host.CALL_SERVER = (p) => h.client.callTool({ name: p.name, arguments: p.arguments }) as Promise<CallToolResult>;
    win.document.write(await hostPage({ cardHtml, args, result, uncheckedSource: true }));
    const page: CardPage = {
      probe: async () => host.probe(),
      decide: async (r, a) => host.decide(r, a),
      openFile: async (p) => host.openFile(p),
      setTheme: async (t) => host.setTheme(t),
    };
    await runScenario(h, taskId, page);
  }, 120_000);
});
