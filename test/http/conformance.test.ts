// The conformance run as CI runs it: the committed baseline passes, and a failure missing from a baseline fails the run.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../support/real-codex.ts";

const SCRIPT = join(PROJECT_ROOT, "conformance", "run.sh");
let dir: string | null = null;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

function run(env: Record<string, string> = {}) {
  const r = spawnSync("bash", [SCRIPT], { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, encoding: "utf8", timeout: 240_000 });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe("conformance/run.sh", () => {
  it("passes with the committed baseline and prints the suite's summary line", () => {
    const r = run();
    expect(r.out).toMatch(/^Total: \d+ passed, \d+ failed$/m);
    expect(r.out).toMatch(/server-initialize: 1 passed, 0 failed/);
    expect(r.out).toMatch(/dns-rebinding-protection: \d+ passed, 0 failed/);
    expect(r.status, r.out).toBe(0);
  }, 240_000);

  it("fails when a failing scenario is not in the baseline", () => {
    dir = mkdtempSync(join(tmpdir(), "codex-bridge-baseline-"));
    const baseline = readFileSync(join(PROJECT_ROOT, "conformance", "baseline.yml"), "utf8").replace(/^\s*- prompts-list\s*$/m, "");
    const trimmed = join(dir, "baseline.yml");
    writeFileSync(trimmed, baseline);
    const r = run({ CONFORMANCE_BASELINE: trimmed });
    expect(r.out).toMatch(/prompts-list/);
    expect(r.status).toBe(1);
  }, 240_000);
});
