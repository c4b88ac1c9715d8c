// The task card in real headless Chromium (npm run test:browser), hosted by ext-apps' own AppBridge on a page the
// test serves on 127.0.0.1, whose tool calls reach a real bridge (real app-server, mock model). The same scenario as
// the happy-dom test, at 360 px wide, writing the README's screenshots into docs/.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../../src/selftest/harness.ts";
import { hostPage, personHarness, runScenario, startScenario, until, type CardPage, type Seen } from "../mcp/card/card-harness.ts";
import { Browser } from "./cdp.ts";

const WIDTH = 360;
const DOCS = path.resolve(__dirname, "../../docs");
let h: Harness;
let server: http.Server;
let browser: Browser | null = null;
let profile: string;

beforeAll(async () => {
  h = await personHarness();
  profile = fs.mkdtempSync(path.join(os.tmpdir(), "cb-card-chromium-"));
});

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  await h?.close();
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
});

/** Serves the host page at / and forwards the card's tool calls (POST /call) to the bridge's MCP client. */
async function serve(page: string): Promise<string> {
  server = http.createServer((req, res) => {
    if (req.method === "GET" && req.url === "/") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
      return;
    }
    if (req.method === "POST" && req.url === "/call") {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const p = JSON.parse(body) as { name: string; arguments?: Record<string, unknown> };
        h.client
          .callTool({ name: p.name, arguments: p.arguments })
          .then((r) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(r)))
          .catch((e: unknown) => res.writeHead(500).end(String(e)));
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

describe("the task card in headless Chromium", () => {
  it("follows a task from running to a person's approval to the completed answer and diff, and writes screenshots", async () => {
    const card = await h.client.readResource({ uri: "ui://codex-bridge/task.html" });
    const cardHtml = (card.contents[0] as { text: string }).text;
    const { taskId, args, result } = await startScenario(h);
    const url = await serve(await hostPage({ cardHtml, args, result }));
    browser = await Browser.launch(profile, WIDTH, 640);
    const b = browser;
    await b.navigate(url);
    const call = <T>(expr: string) => b.evaluate<T>(`(typeof window.probe === "function") ? (${expr}) : null`);
    const page: CardPage = {
      probe: () => call<Seen | null>("window.probe()"),
      decide: (r, a) => call<boolean>(`window.decide(${JSON.stringify(r)}, ${JSON.stringify(a)})`),
      openFile: (p) => call<boolean>(`window.openFile(${JSON.stringify(p)})`),
      setTheme: async (t) => {
        await call(`window.setTheme(${JSON.stringify(t)})`);
        await until(page, `the ${t} theme`, () => true);
      },
    };
    fs.mkdirSync(DOCS, { recursive: true });
    const written: string[] = [];
    await runScenario(h, taskId, page, async (name) => {
      // Let the card's own size report reach the host before the picture is taken.
      await new Promise((r) => setTimeout(r, 400));
      const png = await b.screenshot();
      const file = path.join(DOCS, `task-card-${name}.png`);
      fs.writeFileSync(file, png);
      written.push(file);
    });
    // Nothing at 360 px needs sideways scrolling.
    const overflow = await b.evaluate<number>(`(() => { const d = document.querySelector("iframe").contentDocument.documentElement; return d.scrollWidth - d.clientWidth; })()`);
    expect(overflow).toBeLessThanOrEqual(0);
    for (const f of written) expect(fs.readFileSync(f).subarray(1, 4).toString()).toBe("PNG");
    expect(written.map((f) => path.basename(f))).toEqual(["task-card-running.png", "task-card-approval.png", "task-card-completed.png", "task-card-completed-dark.png"]);
  }, 180_000);
});
