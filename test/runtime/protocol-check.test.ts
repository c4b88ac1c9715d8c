// What doctor and codex_health say about the Codex protocol: `verified` for a verified version; for any other one,
// `unverified: <version>` with what the start-up check found (initialize, model/list, dynamicTools). A version that
// fails the check is refused (codex_unverified_version); one that refuses dynamic tools runs with the relay disabled.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { assembleBridge, type Bridge } from "../../src/app/assemble.ts";
import { startHarness, type Harness } from "../../src/selftest/harness.ts";
import { writeFakeCodex } from "../support/fake-codex.ts";

let h: Harness;
let fakeBin = "";
beforeAll(async () => {
  h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
  fakeBin = writeFakeCodex(h.root);
});
afterAll(async () => {
  await h?.close();
});

/** A second bridge on its own in-memory state, with `env` over the harness's environment. */
async function bridgeWith(env: Record<string, string>, verifiedCodex?: string[]): Promise<Bridge> {
  return assembleBridge(await getPlatform(), { env: { ...h.env, CODEX_BRIDGE_STATE: ":memory:", ...env }, cwd: h.root, log: () => {}, verifiedCodex });
}

describe("the Codex protocol check", () => {
  it("the pinned Codex is verified", async () => {
    const health = await h.bridge.health();
    expect(health.codex.protocol).toBe("verified");
    expect(health.codex.relay_disabled).toBeUndefined();
  });

  it("an unverified version that passes the start-up check runs, reported with what was checked", async () => {
    const b = await bridgeWith({}, []);
    try {
      const health = await b.health();
      expect(health.codex.protocol).toMatch(/^unverified: 0\.171\.0 \(initialize ok, model\/list ok, dynamicTools accepted\)$/);
      expect(health.warnings?.join("\n")).toMatch(/0\.171\.0 is not a protocol version this bridge was verified against/);
      // It still works, relay included.
      h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "fine" }] });
      const t = await b.service.start({ project_id: "demo", prompt: "still fine?" });
      expect(t.relay).toBe(true);
      expect(t.failure).toBeNull();
    } finally {
      await b.close();
    }
  });

  it("an unverified version whose model/list fails is refused: codex_unverified_version", async () => {
    const b = await bridgeWith({ CODEX_BIN: fakeBin, FAKE_VERSION: "9.9.9", FAKE_MODE: "model-list-fails" });
    try {
      const t = await b.service.start({ project_id: "demo", prompt: "drive me anyway" });
      expect(t.state).toBe("failed");
      expect(t.failure).toMatchObject({ code: "codex_unverified_version", retryable: false });
      expect(t.failure!.sentence).toContain("9.9.9");
      const health = await b.health();
      expect(health.codex.protocol, JSON.stringify(health)).toMatch(/^unverified: 9\.9\.9 \(model\/list failed: /);
      expect(health.healthy).toBe(false);
      expect(health.last_failure).toMatchObject({ task_id: t.id, code: "codex_unverified_version" });
    } finally {
      await b.close();
    }
  });

  it("an unverified version that refuses dynamicTools runs with the relay disabled, and says why", async () => {
    const b = await bridgeWith({ CODEX_BIN: fakeBin, FAKE_VERSION: "9.9.9", FAKE_MODE: "no-dynamic-tools" });
    try {
      const health = await b.health();
      expect(health.codex.protocol).toBe(`unverified: 9.9.9 (initialize ok, model/list ok, dynamicTools refused)`);
      expect(health.codex.relay_disabled).toMatch(/9\.9\.9 refused dynamicTools .*requires experimentalApi/);
      const t = await b.service.start({ project_id: "demo", prompt: "no relay then" });
      expect(t.relay).toBe(false);
      expect(t.failure).toBeNull();
      const warnings = b.repo.events(t.id, 0, 100).filter((e) => e.kind === "warning").map((e) => String(e.data.message));
      expect(warnings.join("\n")).toMatch(/web-tool relay disabled: Codex 9\.9\.9 refused dynamicTools/);
    } finally {
      await b.close();
    }
  });
});
