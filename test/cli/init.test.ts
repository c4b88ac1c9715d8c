// init writes a config that doctor loads, never overwrites without --force, and prints a usable tunnel-client line.
import { existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { prepareRealCodex, type RealCodex } from "../support/real-codex.ts";
import { tempDir } from "../support/temp-dir.ts";
import { runCli } from "./run-cli.ts";

let dir: string;
let project: string;
let config: string;
let codex: RealCodex | null = null;
beforeEach(() => {
  dir = tempDir("cli-init-");
  project = join(dir, "my project");
  mkdirSync(project);
  config = join(dir, "conf", "config.toml");
});
afterEach(async () => {
  await codex?.cleanup();
  codex = null;
});

const DoctorSchema = z.looseObject({
  config: z.looseObject({ path: z.string(), exists: z.boolean(), projects: z.array(z.looseObject({ id: z.string(), cwd: z.string(), ok: z.boolean() })) }),
  checks: z.array(z.looseObject({ name: z.string(), ok: z.boolean() })),
});

/** The words of a shell-style command line (single quotes group, as tunnel-client splits --mcp-command). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

describe("codex-bridge init", () => {
  it("writes a config that doctor loads and prints the tunnel-client line with absolute paths", async () => {
    const run = await runCli(["init", "--project-id", "web", "--cwd", project], { env: { CODEX_BRIDGE_CONFIG: config } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`wrote ${config}`);
    const text = readFileSync(config, "utf8");
    expect(text).toContain("[projects.web]");
    expect(text).toMatch(/^# /m);

    const line = /tunnel-client init .*\\\n\s+--mcp-command "([^"]+)"/.exec(run.stdout);
    expect(line, run.stdout).not.toBeNull();
    const words = shellWords(line![1]!);
    expect(words.slice(0, 3)).toEqual(["env", "-u", "CONTROL_PLANE_API_KEY"]);
    const command = words.slice(3).filter((w) => !/^[A-Z_]+=/.test(w));
    expect(command.length).toBeGreaterThan(0);
    for (const w of command) {
      expect(isAbsolute(w), w).toBe(true);
      expect(existsSync(w), w).toBe(true);
    }

    // doctor, with Codex talking only to a loopback mock, reads the same file and finds the project.
    codex = await prepareRealCodex();
    const doctor = await runCli(["doctor", "--json"], {
      env: { ...codex.env, CODEX_BIN: codex.codexBin, CODEX_BRIDGE_CONFIG: config, CODEX_BRIDGE_STATE: join(dir, "state.sqlite3") },
    });
    const report = DoctorSchema.parse(JSON.parse(doctor.stdout));
    expect(report.config.path).toBe(config);
    expect(report.config.exists).toBe(true);
    expect(report.config.projects).toEqual([expect.objectContaining({ id: "web", cwd: realpathSync(project), ok: true })]);
    expect(report.checks.find((c) => c.name === "config")?.ok).toBe(true);
    expect(report.checks.find((c) => c.name === "project web")?.ok).toBe(true);
  });

  it("refuses to overwrite an existing config without --force, and overwrites with it", async () => {
    const env = { CODEX_BRIDGE_CONFIG: config };
    expect((await runCli(["init", "--project-id", "first", "--cwd", project], { env })).code).toBe(0);
    const first = readFileSync(config, "utf8");

    const again = await runCli(["init", "--project-id", "second", "--cwd", project], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${config} already exists; pass --force to overwrite it`);
    expect(readFileSync(config, "utf8")).toBe(first);

    const forced = await runCli(["init", "--project-id", "second", "--cwd", project, "--force"], { env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(config, "utf8")).toContain("[projects.second]");
  });

  it("--config elsewhere: the printed commands point the bridge at that file", async () => {
    const other = join(dir, "elsewhere.toml");
    const run = await runCli(["init", "--cwd", project, "--config", other], { env: { CODEX_BRIDGE_CONFIG: config } });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(other)).toBe(true);
    expect(existsSync(config)).toBe(false);
    expect(run.stdout).toContain(`--mcp-command "env -u CONTROL_PLANE_API_KEY CODEX_BRIDGE_CONFIG=${other} `);
    expect(run.stdout).toMatch(new RegExp(`Then check everything with: CODEX_BRIDGE_CONFIG=${other} .* doctor`));
  });

  it("refuses a flag without its value and an unknown option, writing nothing", async () => {
    const env = { CODEX_BRIDGE_CONFIG: config };
    const missing = await runCli(["init", "--cwd"], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--cwd needs a value");
    const swallowed = await runCli(["init", "--project-id", "--force"], { env });
    expect(swallowed.code).toBe(2);
    expect(swallowed.stderr).toContain("--project-id needs a value");
    const unknown = await runCli(["init", "--dir", project], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option --dir");
    const notDir = await runCli(["init", "--cwd", join(dir, "missing")], { env });
    expect(notDir.code).toBe(2);
    expect(notDir.stderr).toContain("is not an existing directory");
    expect(existsSync(config)).toBe(false);
  });
});
