// What the supported range's older releases do that the pinned one cannot be made to do, played by the fake
// app-server from real samples: currentTime/read (a server request of Codex 0.147 to 0.159, gone in 0.171) must be
// answered at once and said in codex_inspect kind=warnings, never held as a pending request; a release older than the
// range is refused with a sentence naming the range, and doctor still reports the version it found.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { assembleBridge, type Bridge } from "../../src/app/assemble.ts";
import { SUPPORTED_RANGE } from "../../src/codex/protocol/verified.ts";
import { startHarness, type Harness } from "../../src/selftest/harness.ts";
import { writeFakeCodex } from "../support/fake-codex.ts";
import { poll } from "../support/poll.ts";
import { tempDir } from "../support/temp-dir.ts";

let h: Harness;
let fakeBin = "";
beforeAll(async () => {
  h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
  fakeBin = writeFakeCodex(h.root);
});
afterAll(async () => {
  await h?.close();
});

async function bridgeWith(env: Record<string, string>): Promise<Bridge> {
  return assembleBridge(await getPlatform(), { env: { ...h.env, CODEX_BRIDGE_STATE: ":memory:", CODEX_BIN: fakeBin, ...env }, cwd: h.root, log: () => {} });
}

describe("Codex releases of the supported range other than the pinned one", () => {
  it("an unknown server request (currentTime/read of 0.147-0.159) is answered at once with an error and a warning, not held", async () => {
    const log = join(tempDir("older-codex-"), "fake.jsonl");
    const b = await bridgeWith({ FAKE_VERSION: "0.155.1", FAKE_MODE: "current-time-request", FAKE_LOG: log });
    try {
      expect((await b.health()).codex.protocol).toBe("verified");
      const t = await b.service.start({ project_id: "demo", prompt: "what time is it?" });
      // The fake completes the turn only once its request has an answer: a held request would leave it running.
      await poll(() => b.repo.task(t.id)?.state === "completed", { timeoutMs: 20_000, what: "the turn to complete after the answer" });
      const sent = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
      const answer = sent.find((m) => m.id === 9001 && !m.method);
      expect(answer?.error).toMatchObject({ code: -32601, message: expect.stringContaining("currentTime/read") });
      expect(b.repo.interactions(t.id)).toEqual([]);
      const warnings = b.service.inspect({ task_id: t.id, kind: "warnings" }).items.map((e) => JSON.stringify(e));
      expect(warnings.join("\n")).toMatch(/currentTime\/read.*answered at once with a JSON-RPC error/);
    } finally {
      await b.close();
    }
  });

  it("a release older than the range is refused by a sentence naming the range; health keeps the version it found", async () => {
    const b = await bridgeWith({ FAKE_VERSION: "0.44.0", FAKE_MODE: "model-list-fails" });
    try {
      const t = await b.service.start({ project_id: "demo", prompt: "drive me anyway" });
      expect(t.failure).toMatchObject({ code: "codex_unverified_version" });
      expect(t.failure!.sentence).toContain("0.44.0");
      expect(t.failure!.sentence).toContain(SUPPORTED_RANGE);
      const health = await b.health();
      expect(health.codex.version).toBe("0.44.0");
      expect(health.codex.supported).toBe(SUPPORTED_RANGE);
      const detail = health.checks.find((c) => c.name === "app-server")!.detail;
      expect(detail).toContain(SUPPORTED_RANGE);
      expect(detail).not.toMatch(/model\/list: model\/list/);
    } finally {
      await b.close();
    }
  });

  it("a newer release that fails the start-up check says model/list once, and names the range", async () => {
    const b = await bridgeWith({ FAKE_VERSION: "9.9.9", FAKE_MODE: "model-list-fails" });
    try {
      const t = await b.service.start({ project_id: "demo", prompt: "drive me anyway" });
      expect(t.failure!.sentence).toContain(SUPPORTED_RANGE);
      expect(t.failure!.sentence).not.toMatch(/model\/list: model\/list/);
      expect((await b.health()).codex.version).toBe("9.9.9");
    } finally {
      await b.close();
    }
  });
});
