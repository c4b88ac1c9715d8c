// A minimal Chrome DevTools Protocol client over --remote-debugging-pipe (fd 3 in, fd 4 out, NUL-separated JSON):
// enough for the browser tests to open a page, evaluate in it and take screenshots, with no extra package.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";

const CHROMIUM_CANDIDATES = ["chromium", "chromium-browser", "google-chrome"];

function findChromium(): string | undefined {
  const fromEnv = process.env.CHROMIUM_BIN;
  if (fromEnv) return fromEnv;
  for (const name of CHROMIUM_CANDIDATES) {
    const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return undefined;
}

export function requireChromium(): string {
  const chromium = findChromium();
  if (!chromium) throw new Error("Chromium is required for the browser test: install it with `apt-get update && apt-get install -y chromium` (CI installs it).");
  return chromium;
}

interface Pending {
  resolve(v: Record<string, unknown>): void;
  reject(e: Error): void;
}

export class Browser {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private buffer = "";
  private sessionId: string | undefined;
  private readonly stderr: string[] = [];

  private constructor(private readonly child: ChildProcess) {
    const out = child.stdio[4] as Readable;
    out.setEncoding("utf8");
    out.on("data", (chunk: string) => {
      this.buffer += chunk;
      for (let end = this.buffer.indexOf("\0"); end >= 0; end = this.buffer.indexOf("\0")) {
        const msg = JSON.parse(this.buffer.slice(0, end)) as { id?: number; result?: Record<string, unknown>; error?: { message: string } };
        this.buffer = this.buffer.slice(end + 1);
        const p = msg.id === undefined ? undefined : this.pending.get(msg.id);
        if (!p) continue;
        this.pending.delete(msg.id!);
        if (msg.error) p.reject(new Error(msg.error.message));
        else p.resolve(msg.result ?? {});
      }
    });
    child.stderr?.on("data", (d: Buffer) => this.stderr.push(d.toString()));
  }

  /** Starts headless Chromium with its own profile directory and attaches to a fresh page of the given size. */
  static async launch(profileDir: string, width: number, height: number): Promise<Browser> {
    const child = spawn(
      requireChromium(),
      ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars", "--remote-debugging-pipe", `--user-data-dir=${profileDir}`, "about:blank"],
      { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] },
    );
    const b = new Browser(child);
    const { targetId } = (await b.send("Target.createTarget", { url: "about:blank" })) as { targetId: string };
    const { sessionId } = (await b.send("Target.attachToTarget", { targetId, flatten: true })) as { sessionId: string };
    b.sessionId = sessionId;
    await b.send("Emulation.setDeviceMetricsOverride", { width, height, deviceScaleFactor: 1, mobile: false });
    await b.send("Page.enable");
    return b;
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const msg: Record<string, unknown> = { id, method, params };
    if (this.sessionId && !method.startsWith("Target.")) msg.sessionId = this.sessionId;
    (this.child.stdio[3] as Writable).write(JSON.stringify(msg) + "\0");
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      setTimeout(() => {
        if (this.pending.delete(id)) reject(new Error(`${method} got no answer; chromium said: ${this.stderr.join("").slice(-2000)}`));
      }, 30_000);
    });
  }

  async navigate(url: string): Promise<void> {
    await this.send("Page.navigate", { url });
  }

  /** Evaluates an expression in the page and returns its value (JSON-serializable values only). */
  async evaluate<T>(expression: string): Promise<T> {
    const r = (await this.send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true })) as { result: { value?: T }; exceptionDetails?: { text: string } };
    if (r.exceptionDetails) throw new Error(`page threw: ${JSON.stringify(r.exceptionDetails).slice(0, 1000)}`);
    return r.result.value as T;
  }

  /** A PNG of the whole page (beyond the viewport when it is taller). */
  async screenshot(): Promise<Buffer> {
    const r = (await this.send("Page.captureScreenshot", { format: "png", captureBeyondViewport: true })) as { data: string };
    return Buffer.from(r.data, "base64");
  }

  async close(): Promise<void> {
    const exited = new Promise((r) => this.child.once("exit", r));
    this.child.kill("SIGTERM");
    await exited;
  }
}
