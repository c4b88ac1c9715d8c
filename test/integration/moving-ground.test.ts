// Moving ground under a running bridge, with the real app-server: a project directory that goes away, and a config
// file edited or broken. Each is said where the supervisor looks; a changed project list applies without a restart.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { resultText, startHarness, type Harness } from "../../src/selftest/harness.ts";
import { sc, settled, type S } from "../support/task-waits.ts";

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const check = (health: S, name: string) => (health.checks as S[]).find((c) => c.name === name);

/** Rewrites the config file so its size and time both change (the watch looks at both). */
function writeConfig(path: string, text: string): void {
  writeFileSync(path, text);
}

describe("moving ground", () => {
  it("a project directory that is gone: start refused naming it, evidence and health name it, not git", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "done" }] });
    const id = sc(await h.call("codex_start", { project_id: "demo", prompt: "work" })).task_id as string;
    await settled(h, id);
    const moved = `${h.projectDir}-moved`;
    renameSync(h.projectDir, moved);

    const refused = await h.call("codex_start", { project_id: "demo", prompt: "more" });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toContain(h.projectDir);
    expect(resultText(refused)).toMatch(/does not exist any more/);
    const again = await h.call("codex_send", { task_id: id, message: "more" });
    expect(again.isError).toBe(true);
    expect(resultText(again)).toMatch(/does not exist any more/);

    const result = await h.call("codex_result", { task_id: id });
    expect(resultText(result)).toContain(h.projectDir);
    expect(resultText(result)).toMatch(/does not exist any more/);
    expect(resultText(result)).not.toMatch(/cannot start git|git.*not found/);

    const health = sc(await h.call("codex_health", {}));
    expect(check(health, "project demo")!.ok).toBe(false);
    expect(check(health, "project demo")!.detail).toMatch(/does not exist/);
    renameSync(moved, h.projectDir);
  });

  it("an edited config is picked up (projects added and removed), a broken one is said, other changes ask for a restart", async () => {
    h = await startHarness(await getPlatform(), { mockProvider: true, approvalPolicy: "never" });
    const configPath = join(h.root, "config.toml");
    const original = readFileSync(configPath, "utf8");
    const second = join(h.root, "second");
    mkdirSync(second);
    writeConfig(configPath, `${original}\n[projects.second]\ncwd = ${JSON.stringify(second)}\n`);

    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "in the new project" }] });
    const started = await h.call("codex_start", { project_id: "second", prompt: "hello" });
    expect(started.isError, resultText(started)).toBeFalsy();
    await settled(h, sc(started).task_id);
    const health = sc(await h.call("codex_health", {}));
    expect(check(health, "project second")!.ok).toBe(true);

    // Removed again: no longer configured, at once.
    writeConfig(configPath, original);
    const gone = await h.call("codex_start", { project_id: "second", prompt: "hello" });
    expect(gone.isError).toBe(true);
    expect(resultText(gone)).toMatch(/project_id "second" is not configured/);

    // Broken: said by codex_health, and the bridge keeps working with the config it has.
    writeConfig(configPath, `${original}\n[projects.broken\ncwd = \n`);
    const broken = sc(await h.call("codex_health", {}));
    expect(broken.healthy).toBe(false);
    expect(check(broken, "config")!.ok).toBe(false);
    expect(check(broken, "config")!.detail).toMatch(/no longer loads/);
    h.provider!.enqueue({ kind: "output", items: [{ type: "message", text: "still fine" }] });
    const still = await h.call("codex_start", { project_id: "demo", prompt: "still" });
    expect(still.isError, resultText(still)).toBeFalsy();
    await settled(h, sc(still).task_id);

    // A change only a restart applies (a profile's setting) is named as such.
    writeConfig(configPath, original.replace(/approval_policy = "never"/, 'approval_policy = "on-request"'));
    const changed = sc(await h.call("codex_health", {}));
    expect(check(changed, "config")!.ok).toBe(true);
    expect((changed.warnings as string[]).join("\n")).toMatch(/changed profiles: restart the bridge to apply/);
  });
});
