// One bridge, two Codex homes: a profile with its own codex_home runs on its own app-server (its own login, config
// and model provider) while the default profile keeps the bridge's home; health shows each profile's login state.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { writeIsolatedCodexHome } from "../../src/codex/isolated-home.ts";
import { startMockProvider, type MockProvider } from "../../src/selftest/mock-provider/index.ts";
import { resultText, startHarness, type Harness } from "../../src/selftest/harness.ts";
import { sc, settled, startTask } from "../support/task-waits.ts";

const API_KEY = "sk-h9-secret-key-0123456789";

let h: Harness | null = null;
let other: MockProvider | null = null;
let otherHome = "";
afterEach(async () => {
  await h?.close();
  await other?.close();
  if (otherHome) rmSync(otherHome, { recursive: true, force: true });
  h = null;
  other = null;
});

/** A second isolated home on its own mock provider, holding an API-key login the way `codex login --with-api-key` writes it. */
async function secondHome(): Promise<{ home: string; provider: MockProvider }> {
  const provider = await startMockProvider({ defaultText: "answered from the other home" });
  otherHome = mkdtempSync(join(tmpdir(), "codex-bridge-home2-"));
  writeIsolatedCodexHome({ dir: otherHome, providerBaseUrl: provider.baseUrl, requiresOpenaiAuth: true });
  writeFileSync(join(otherHome, "auth.json"), JSON.stringify({ auth_mode: "apikey", OPENAI_API_KEY: API_KEY }), { mode: 0o600 });
  return { home: otherHome, provider };
}

describe("profiles with their own Codex home", () => {
  it("runs each profile's tasks on the app-server of its own home, both at once, and health shows each home's login", async () => {
    const second = await secondHome();
    other = second.provider;
    h = await startHarness(await getPlatform(), {
      mockProvider: true,
      approvalPolicy: "never",
      extraConfig: `\n[profiles.apart]\ncodex_home = ${JSON.stringify(second.home)}\n`,
    });
    h.provider!.setResponder(() => ({ kind: "output", items: [{ type: "message", text: "answered from the default home" }] }));

    const mine = await startTask(h, "which home are you in?");
    const apart = await startTask(h, "and you?", { profile: "apart" });
    expect((await settled(h, mine)).at(-1)!.state).toBe("completed");
    expect((await settled(h, apart)).at(-1)!.state).toBe("completed");
    expect(sc(await h.call("codex_result", { task_id: mine })).final_message).toBe("answered from the default home");
    expect(sc(await h.call("codex_result", { task_id: apart })).final_message).toBe("answered from the other home");
    // Each provider only saw its own home's turn.
    expect(h.provider!.requests.every((r) => JSON.stringify(r.body.input).includes("which home are you in?"))).toBe(true);
    expect(other.requests.length).toBeGreaterThan(0);
    expect(other.requests.every((r) => JSON.stringify(r.body.input).includes("and you?"))).toBe(true);

    // Two live app-servers, one per home, each task bound to its own connection.
    const slots = h.bridge.runtimes.all();
    expect(slots.map((s) => s.home).sort()).toEqual([h.env.CODEX_HOME, second.home].sort());
    const live = slots.map((s) => s.runtime.current);
    expect(live.every((c) => c !== null)).toBe(true);
    expect(new Set(live.map((c) => c!.pid)).size).toBe(2);
    const byConnection = (taskId: string) => h!.bridge.repo.task(taskId)!.connection_id;
    expect(byConnection(apart)).toBe(slots.find((s) => s.home === second.home)!.runtime.current!.connectionId);
    expect(byConnection(mine)).toBe(slots.find((s) => s.home === h!.env.CODEX_HOME)!.runtime.current!.connectionId);

    // A second turn of the apart task stays in its home.
    const before = other.requests.length;
    const sent = await h.call("codex_send", { task_id: apart, message: "once more" });
    expect(sent.isError, resultText(sent)).toBeFalsy();
    await settled(h, apart);
    expect(other.requests.length).toBeGreaterThan(before);
    expect(h.provider!.requests.some((r) => JSON.stringify(r.body.input).includes("once more"))).toBe(false);

    const health = await h.call("codex_health", {});
    const report = sc(health);
    expect(report.profiles).toEqual([
      expect.objectContaining({ id: "default", codex_home: h.env.CODEX_HOME, isolated: false, login: "not needed", app_server: "initialized" }),
      expect.objectContaining({ id: "apart", codex_home: second.home, isolated: true, login: "present", app_server: "initialized" }),
    ]);
    expect(report.profiles[1].models).toBeGreaterThan(0);
    expect(resultText(health)).toContain(`profile apart: home ${second.home} (its own) · login present`);
    // Presence only: the key and anything derived from it never appear.
    expect(JSON.stringify(health)).not.toContain(API_KEY);
    expect(JSON.stringify(health)).not.toContain(API_KEY.slice(-5));
  });
});
