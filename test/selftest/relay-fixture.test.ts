// relay-fixture run as a user runs it: a child process, the real Codex app-server, the loopback mock model.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { codexEnv, privateTmp, runCli } from "../cli/run-cli.ts";

const ReportSchema = z.strictObject({
  ok: z.boolean(),
  marker: z.string(),
  task_id: z.string().nullable(),
  turn_id: z.string().nullable(),
  final_message_excerpt: z.string().nullable(),
  seconds: z.number(),
  reason: z.string().optional(),
});

let tmp: ReturnType<typeof privateTmp> | null = null;
afterEach(() => {
  tmp?.remove();
  tmp = null;
});

describe("codex-bridge relay-fixture --mock-provider", () => {
  it("passes: the marker submitted through codex_submit_tool_result comes back in the same turn's final answer", async () => {
    tmp = privateTmp();
    const run = await runCli(["relay-fixture", "--mock-provider", "--json"], { env: codexEnv(tmp.dir) });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const report = ReportSchema.parse(JSON.parse(lines[0]!));
    expect(report.ok).toBe(true);
    expect(report.reason).toBeUndefined();
    expect(report.marker).toMatch(/^RELAY-[0-9A-F]{16}$/);
    expect(report.task_id).toMatch(/^t_[0-9a-f]{10}$/);
    expect(report.turn_id).toEqual(expect.any(String));
    expect(report.final_message_excerpt).toContain(report.marker);
    // Progress went to stderr, naming the request it answered.
    expect(run.stderr).toMatch(/Codex asked r_[0-9a-f]{10}: web_search/);
    expect(run.stderr).toContain(`answered`);
    expect(run.stderr).not.toContain("quota");
    // Temporary project, config, state, Codex home: all removed.
    expect(tmp.leftovers()).toEqual([]);
  });

  it("prints a one-line PASS verdict without --json", async () => {
    tmp = privateTmp();
    const run = await runCli(["relay-fixture", "--mock-provider"], { env: codexEnv(tmp.dir) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^relay-fixture: PASS: turn \S+ of t_[0-9a-f]{10} answered with marker RELAY-[0-9A-F]{16} in [\d.]+ s\n$/);
  });

  it("fails non-zero with the reason when the final answer lacks the marker", async () => {
    tmp = privateTmp();
    const env = { ...codexEnv(tmp.dir), CODEX_BRIDGE_FIXTURE_SABOTAGE: "1" };
    const json = await runCli(["relay-fixture", "--mock-provider", "--json"], { env });
    expect(json.code).toBe(1);
    const report = ReportSchema.parse(JSON.parse(json.stdout));
    expect(report.ok).toBe(false);
    expect(report.reason).toBe(`the final answer does not contain the marker ${report.marker}`);
    expect(report.final_message_excerpt).not.toContain(report.marker);
    expect(tmp.leftovers()).toEqual([]);

    const text = await runCli(["relay-fixture", "--mock-provider"], { env });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^relay-fixture: FAIL: the final answer does not contain the marker RELAY-[0-9A-F]{16}\n$/);
  });

  it("gives up at its deadline when the turn never ends, and still removes everything", async () => {
    tmp = privateTmp();
    const env = { ...codexEnv(tmp.dir), CODEX_BRIDGE_FIXTURE_SABOTAGE: "hang", CODEX_BRIDGE_FIXTURE_DEADLINE_MS: "4000" };
    const run = await runCli(["relay-fixture", "--mock-provider", "--json"], { env });
    expect(run.code).toBe(1);
    const report = ReportSchema.parse(JSON.parse(run.stdout));
    expect(report.ok).toBe(false);
    expect(report.reason).toMatch(/deadline passed while waiting for Codex|did not finish within 4 s/);
    expect(tmp.leftovers()).toEqual([]);
  });

  it("without --mock-provider it says first that it uses the user's login and spends quota", async () => {
    tmp = privateTmp();
    // Codex is made unfindable (outside the checkout, CODEX_BIN wrong), so nothing reaches a model.
    const run = await runCli(["relay-fixture", "--json"], {
      cwd: tmp.dir,
      cleanEnv: true,
      env: { TMPDIR: tmp.dir, CODEX_BIN: `${tmp.dir}/no-such-codex`, PATH: "/usr/bin:/bin" },
    });
    expect(run.code).toBe(1);
    expect(run.stderr.split("\n")[0]).toMatch(/uses your Codex login .* spends a little quota/);
    const report = ReportSchema.parse(JSON.parse(run.stdout));
    expect(report.reason).toContain("no-such-codex");
    expect(report.reason).toContain("CODEX_BIN");
    expect(tmp.leftovers()).toEqual([]);
  });

  it("refuses unknown options and arguments before doing anything", async () => {
    for (const args of [["--mock"], ["--mock-provider", "extra"], ["--json", "--verbose"]]) {
      const run = await runCli(["relay-fixture", ...args]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(args.at(-1)!);
      expect(run.stderr).toContain("accepted: --mock-provider, --json");
    }
  });
});
