// --help tells the truth: every flag a command's help mentions is accepted by that command, and anything else is refused.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.ts";
import { runCli } from "./run-cli.ts";

const COMMANDS = ["serve", "doctor", "prune", "init", "login", "logout", "service", "projects", "tasks", "watch", "pending", "approve", "decline", "answer", "cancel", "demo", "relay-fixture"] as const;
const BOGUS = "--no-such-option";

let dir: string;
let file: string;
beforeAll(() => {
  dir = tempDir("cli-help-");
  file = join(dir, "some-file");
  writeFileSync(file, "0123456789abcdef0123456789abcdef\n");
});

/** Flags a help text mentions, with the placeholder of their value when they take one (e.g. --cwd DIR). */
function flagsIn(text: string): Map<string, string | null> {
  const flags = new Map<string, string | null>();
  for (const m of text.matchAll(/(?<!tunnel-client )(--[a-z][a-z-]*)(?:[ =]([A-Z][A-Z_:]*)\b)?/g)) {
    if (m[1] === "--help" || m[1] === "--version") continue;
    if (!flags.has(m[1]!) || m[2]) flags.set(m[1]!, m[2] ?? null);
  }
  return flags;
}

/** The synopsis: the help's first paragraph, where the command's own flags are listed. */
const synopsis = (help: string): string => help.split("\n\n")[0]!;

function valueFor(placeholder: string): string {
  switch (placeholder) {
    case "HOST:PORT":
      return "127.0.0.1:0";
    case "FILE":
      return file;
    case "DIR":
      return dir;
    case "ID":
    case "NAME":
      return "someid";
    case "SECONDS":
    case "COUNT":
    case "DAYS":
      return "5";
    case "LEVEL":
      return "debug";
    case "PATH":
      return join(dir, "bridge.log");
    default:
      throw new Error(`no test value for the placeholder ${placeholder}: teach valueFor about it`);
  }
}

describe("codex-bridge --help", () => {
  it("lists every command, and each command's flags there are the ones its own help documents", async () => {
    const top = await runCli(["--help"]);
    expect(top.code).toBe(0);
    for (const cmd of COMMANDS) {
      const lines = top.stdout.split("\n").filter((l) => l.includes(`codex-bridge ${cmd}`));
      expect(lines.length, `codex-bridge ${cmd} in the overview`).toBeGreaterThan(0);
      const own = await runCli([cmd, "--help"]);
      const documented = flagsIn(own.stdout);
      for (const [flag] of flagsIn(lines.join("\n"))) expect(documented.has(flag), `${cmd} --help documents ${flag}`).toBe(true);
    }
  });

  it("an unknown command is refused with the list of commands", async () => {
    const run = await runCli(["frobnicate"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`unknown command "frobnicate"`);
    for (const cmd of COMMANDS) expect(run.stderr).toContain(cmd);
  });

  for (const cmd of COMMANDS) {
    it(`${cmd}: --help, -h and help ${cmd} print its usage; every flag in it is accepted and an unknown one refused`, async () => {
      const help = await runCli([cmd, "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout.startsWith(`codex-bridge ${cmd}`)).toBe(true);
      expect((await runCli([cmd, "-h"])).stdout).toBe(help.stdout);
      expect((await runCli(["help", cmd])).stdout).toBe(help.stdout);

      const flags = flagsIn(synopsis(help.stdout));
      // Flags the prose mentions are the command's own (another program's, like tunnel-client --mcp-command, excepted).
      for (const flag of flagsIn(help.stdout).keys()) expect(flags.has(flag), `${flag} in the synopsis of ${cmd}`).toBe(true);
      const args = [...flags].flatMap(([flag, placeholder]) => (placeholder ? [flag, valueFor(placeholder)] : [flag]));
      const before = readFileSync(file, "utf8");
      // The command must get past every documented flag and stop at the bogus one, before doing anything.
      const run = await runCli([cmd, ...args, BOGUS], { killAfterMs: 30_000 });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(BOGUS);
      for (const flag of flags.keys()) expect(run.stderr).not.toMatch(new RegExp(`unknown option "?${flag}\\b`));
      expect(readFileSync(file, "utf8")).toBe(before);
    });
  }

  it("serve on stdio refuses options instead of starting with settings the user did not mean", async () => {
    const bogus = await runCli(["serve", BOGUS], { killAfterMs: 30_000 });
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain(`unknown option ${BOGUS}`);
    const stray = await runCli(["serve", "--token-file", file], { killAfterMs: 30_000 });
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain("--token-file only applies with --http HOST:PORT");
  });

  it("service --help names the Windows log directory with its backslashes", async () => {
    const run = await runCli(["service", "--help"]);
    expect(run.stdout).toContain("%LOCALAPPDATA%\\codex-bridge\\logs");
  });

  it("--version prints the version line", async () => {
    const run = await runCli(["--version"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^codex-bridge \S+/);
  });
});
