// Edge cases of the JSONL client that the real app-server will not produce on demand, against a fake built from real samples.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { AppServerClient } from "../../src/codex/client.ts";
import { RequestTimeoutError, UnknownOutcomeError, UnsendableError } from "../../src/codex/errors.ts";
import { LineSplitter } from "../../src/codex/jsonl.ts";
import { appServerEnv } from "../../src/codex/child-env.ts";
import { tempDir } from "../support/temp-dir.ts";

const BUN = join(process.cwd(), "node_modules", ".bin", "bun");
const FAKE = join(process.cwd(), "test", "support", "fake-app-server.ts");
let client: AppServerClient | null = null;
afterEach(async () => {
  await client?.close(200);
  client = null;
});

async function fake(mode: string, extra: Record<string, string> = {}): Promise<{ c: AppServerClient; log: () => { method?: string }[] }> {
  const dir = tempDir("fake-app-server-");
  const logPath = join(dir, "log.jsonl");
  const platform = await getPlatform();
  // The client spawns `<codexBin> app-server`; run the fake script under bun instead.
  const c = new AppServerClient({
    platform: { ...platform, spawn: (_cmd, _args, o) => platform.spawn(BUN, [FAKE], o) },
    codexBin: BUN,
    env: { ...(process.env as Record<string, string>), FAKE_MODE: mode, FAKE_LOG: logPath, ...extra },
    clientVersion: "test",
    maxLineChars: 1_000_000,
  });
  await c.start();
  client = c;
  return {
    c,
    log: () =>
      readFileSync(logPath, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { method?: string }),
  };
}

describe("AppServerClient edge cases (fake app-server from real samples)", () => {
  it("correlates responses that arrive out of order", async () => {
    const { c } = await fake("out-of-order");
    const [a, b] = await Promise.all([c.request<{ data: unknown[] }>("model/list", {}), c.request<{ thread: { id: string } }>("thread/start", {})]);
    expect(a.data.length).toBeGreaterThan(0);
    expect(b.thread.id).toMatch(/^01a2/);
  });

  it("a mutating request without acknowledgement is UNKNOWN and never resent", async () => {
    const { c, log } = await fake("no-turn-ack");
    await expect(c.request("turn/start", { threadId: "t", input: [] }, { timeoutMs: 300 })).rejects.toBeInstanceOf(UnknownOutcomeError);
    await new Promise((r) => setTimeout(r, 300));
    expect(log().filter((m) => m.method === "turn/start")).toHaveLength(1);
    // A read-only request timing out is a plain timeout, not UNKNOWN.
    await expect(c.request("thread/read", { threadId: "t" }, { timeoutMs: 200 })).rejects.toBeInstanceOf(RequestTimeoutError);
  });

  it("never writes a lone surrogate (the app-server would drop the line unanswered): refused at once, not UNKNOWN", async () => {
    const { c, log } = await fake("normal");
    await expect(c.request("turn/start", { threadId: "t", input: [{ type: "text", text: "a\ud800b" }] })).rejects.toBeInstanceOf(UnsendableError);
    await expect(c.respond(5, { text: "\udfff" })).rejects.toBeInstanceOf(UnsendableError);
    // Well-formed pairs, and a backslash followed by the letters "ud800", are ordinary text.
    const models = await c.request<{ data: unknown[] }>("model/list", { cursor: "😀 \\ud800 \\\\ud800" });
    expect(models.data.length).toBeGreaterThan(0);
    expect(log().map((m) => m.method)).toEqual(["initialize", "initialized", "model/list"]);
  });

  it("drops a line over the cap without losing the next message", () => {
    const lines: string[] = [];
    let dropped = 0;
    const s = new LineSplitter(100, (l) => lines.push(l), () => dropped++);
    s.push('{"a":1}\n' + "x".repeat(60));
    s.push("y".repeat(60) + "\n" + '{"b":2}\n');
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    expect(dropped).toBe(1);
  });

  it("never passes CONTROL_PLANE_API_KEY to the app-server", () => {
    const env = appServerEnv({ PATH: "/bin", CONTROL_PLANE_API_KEY: "secret", HOME: "/h" });
    expect(env).toEqual({ PATH: "/bin", HOME: "/h" });
  });
});
