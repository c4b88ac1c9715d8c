// `codex-bridge projects add|list|remove` on a commented config, run as the real CLI: the file keeps every comment,
// its order and its other keys; add then remove gives back the very same bytes; what init and the loader refuse is
// refused with the file untouched; a running bridge is told to restart.
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/config/load.ts";
import { tempDir } from "../support/temp-dir.ts";
import { runCli } from "../cli/run-cli.ts";

function commented(dirs: { api: string; web: string }): string {
  return [
    "# codex-bridge config: my own notes stay here.",
    "max_artifact_bytes = 1048576 # one MiB, on purpose",
    "",
    "# The API service.",
    "[projects.api]",
    `cwd = ${JSON.stringify(dirs.api)}`,
    'aliases = ["backend"] # what I call it',
    "",
    "# Profiles come after the projects.",
    "[profiles.default]",
    'approvals = "person"',
    "",
    "[notify]",
    'url = "https://ntfy.sh"',
    'topic = "notes-9f2"',
    "",
  ].join("\n");
}

function setup() {
  const root = tempDir("projects-cmd-");
  const dirs = { api: join(root, "api"), web: join(root, "web") };
  for (const d of Object.values(dirs)) mkdirSync(d);
  const config = join(root, "config.toml");
  const original = commented(dirs);
  writeFileSync(config, original, { mode: 0o600 });
  const env = { CODEX_BRIDGE_CONFIG: config, CODEX_BRIDGE_STATE: join(root, "state.sqlite3") };
  return { root, dirs, config, original, run: (args: string[]) => runCli(["projects", ...args], { env }) };
}

describe("codex-bridge projects", () => {
  it("add keeps comments, order and other keys, and remove gives back the same bytes", async () => {
    const s = setup();
    const added = await s.run(["add", "web", s.dirs.web, "--alias", "frontend", "--alias", "site"]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`added project "web" → ${s.dirs.web}`);
    const text = readFileSync(s.config, "utf8");
    expect(text).toBe(
      s.original.replace(
        'aliases = ["backend"] # what I call it\n',
        `aliases = ["backend"] # what I call it\n\n[projects.web]\ncwd = ${JSON.stringify(s.dirs.web)}\naliases = ["frontend", "site"]\n`,
      ),
    );
    expect(statSync(s.config).mode & 0o777).toBe(0o600);
    const { config } = parseConfigText(text, { path: s.config, strict: true });
    expect(Object.keys(config.projects)).toEqual(["api", "web"]);
    expect(config.projects.web).toMatchObject({ cwd: s.dirs.web, aliases: ["frontend", "site"] });
    expect(config.profiles.default!.approvals).toBe("person");
    expect(config.notify.topic).toBe("notes-9f2");

    const listed = await s.run(["list"]);
    expect(listed.stdout).toBe(`api  ${s.dirs.api}  (aliases: backend)\nweb  ${s.dirs.web}  (aliases: frontend, site)\n`);

    const removed = await s.run(["remove", "web"]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(readFileSync(s.config, "utf8")).toBe(s.original);
  });

  it("refuses what init and the loader refuse, leaving the file as it was", async () => {
    const s = setup();
    const cases: [string[], RegExp][] = [
      [["add", "api", s.dirs.web], /project "api" already exists/],
      [["add", "web", s.dirs.web, "--alias", "backend"], /"backend" is already an alias of project "api"/],
      [["add", "bad id", s.dirs.web], /"bad id" is not a valid project id/],
      [["add", "web", join(s.root, "missing")], /is not an existing directory/],
      [["remove", "web"], /no project "web" in .*; projects: api/],
    ];
    for (const [args, says] of cases) {
      const r = await s.run(args);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr).toMatch(says);
      expect(readFileSync(s.config, "utf8")).toBe(s.original);
    }
    // Outside allowed_roots: the loader would not load it, so it is not written.
    writeFileSync(s.config, `allowed_roots = [${JSON.stringify(s.dirs.api)}]\n${s.original}`);
    const outside = await s.run(["add", "web", s.dirs.web]);
    expect(outside.code).toBe(1);
    expect(outside.stderr).toMatch(/would not load project "web": .*outside every allowed_roots entry/);
    // A project written as an inline table is not line-edited.
    writeFileSync(s.config, `projects = { api = { cwd = ${JSON.stringify(s.dirs.api)} } }\n`);
    chmodSync(s.config, 0o600);
    const inline = await s.run(["add", "web", s.dirs.web]);
    expect(inline.code).toBe(1);
    expect(inline.stderr).toMatch(/would not load|edit it by hand/);
  });
});
