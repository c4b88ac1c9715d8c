// `doctor` while a bridge serves on the same state database: the held lock is the running bridge (reported with its
// PID), not a fault; the other checks still run, and the running bridge is left untouched.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bridgeFixture, callTool, stopAll } from "../support/bridge-process.ts";
import { runCli } from "./run-cli.ts";

const bridges = bridgeFixture({ deadlineMs: 30_000 });

describe("doctor beside a running bridge", () => {
  it("reports the running bridge's PID as information and exits 0 when everything else is healthy", async () => {
    const setup = await bridges.prepare();
    const t = await bridges.start(setup);
    await t.initialize();
    const lockPid = () => (JSON.parse(readFileSync(`${setup.statePath}.lock`, "utf8")) as { pid: number }).pid;
    expect(lockPid()).toBe(t.pid);

    const json = await runCli(["doctor", "--json"], { env: setup.env, killAfterMs: 60_000 });
    const report = JSON.parse(json.stdout) as {
      healthy: boolean;
      running_bridge?: { pid: number; state: string };
      sqlite: { ok: boolean; path: string };
      checks: { name: string; ok: boolean; detail: string }[];
    };
    expect(json.code, json.stderr + json.stdout).toBe(0);
    expect(report.healthy).toBe(true);
    expect(report.running_bridge).toMatchObject({ pid: t.pid, state: setup.statePath });
    expect(report.sqlite).toEqual({ ok: true, path: setup.statePath });
    expect(report.checks.find((c) => c.name === "sqlite")!.detail).toContain(`PID ${t.pid}`);
    // The rest was really checked, beside the running bridge.
    expect(report.checks.find((c) => c.name === "app-server")?.ok).toBe(true);

    const text = await runCli(["doctor"], { env: setup.env, killAfterMs: 60_000 });
    expect(text.code, text.stderr + text.stdout).toBe(0);
    expect(text.stderr).not.toMatch(/UNHEALTHY/);
    expect(text.stdout).toMatch(new RegExp(`^running: codex-bridge PID ${t.pid} `, "m"));

    // The running bridge kept its lock and keeps serving.
    expect(lockPid()).toBe(t.pid);
    const status = await callTool(t, "codex_status", {});
    expect(status.isError, status.text).toBe(false);
    expect(t.fatal).toBeNull();

    // Once it has gone, doctor opens the database itself again.
    await stopAll([t]);
    const alone = await runCli(["doctor", "--json"], { env: setup.env, killAfterMs: 60_000 });
    expect(alone.code, alone.stderr).toBe(0);
    expect(JSON.parse(alone.stdout)).not.toHaveProperty("running_bridge");
  }, 120_000);
});
