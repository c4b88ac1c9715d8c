// Loading and validating config.toml: defaults, profile inheritance, and errors that name the key, the file and the
// allowed values.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseConfigText } from "../../src/config/load.ts";
import { resolveProject, taskSettings } from "../../src/config/settings.ts";
import { DEFAULT_SENSITIVE_PATHS } from "../../src/config/schema.ts";
import { starterConfig } from "../../src/config/starter.ts";
import { tempDir } from "../support/temp-dir.ts";

let dir: string;
let configDir: string;
let projA: string;

beforeEach(() => {
  dir = tempDir("cb-config-");
  configDir = join(dir, "xdg");
  mkdirSync(configDir);
  projA = join(dir, "proj-a");
  mkdirSync(projA);
});

const parse = (text: string, strict = false) => parseConfigText(text, { path: "/cfg/config.toml", strict });

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("expected a ConfigError");
}

describe("defaults", () => {
  it("an empty file gives the default profile and no projects", () => {
    const { config, projectIssues } = parse("");
    expect(config.projects).toEqual({});
    expect(projectIssues).toEqual([]);
    expect(config.max_artifact_bytes).toBe(32 * 1024 * 1024);
    expect(config.inline_artifact_bytes).toBe(4 * 1024 * 1024);
    expect(config.relay).toEqual({ enabled: true, max_result_bytes: 262144 });
    expect(config.allowed_roots).toBeUndefined();
    expect(config.codex).toEqual({});
    expect(config.profiles.default).toEqual({
      id: "default",
      model: "",
      effort: "",
      service_tier: "",
      approval_policy: "on-request",
      sandbox_type: "workspace-write",
      network_access: false,
      wait_timeout_seconds: 25,
      approvals: "supervisor",
      high_risk_patterns: [],
      forbidden_patterns: [],
      child_env: "inherit",
      env_allow: [],
      env_deny: [],
      runtime: "spawn",
      start_shared: false,
    });
    expect(config.profiles.default.codex_home).toBeUndefined();
    expect(config.sensitive_paths).toEqual([...DEFAULT_SENSITIVE_PATHS]);
  });

  it("default sensitive paths include the usual secret files", () => {
    for (const p of [".env", ".env.*", "*.pem", "*.key", "id_rsa*", "id_ed25519*", ".npmrc", ".netrc", ".git-credentials", ".aws", ".ssh", "secrets.*"]) {
      expect(DEFAULT_SENSITIVE_PATHS).toContain(p);
    }
  });

  it("user sensitive paths add to the defaults unless replace_default_sensitive_paths is set", () => {
    expect(parse('sensitive_paths = ["*.db"]').config.sensitive_paths).toEqual([...DEFAULT_SENSITIVE_PATHS, "*.db"]);
    const replaced = parse('sensitive_paths = ["*.db"]\nreplace_default_sensitive_paths = true').config;
    expect(replaced.sensitive_paths).toEqual(["*.db"]);
  });

  it("a small max_artifact_bytes pulls the default inline size down with it", () => {
    const { config } = parse("max_artifact_bytes = 1048576");
    expect(config.inline_artifact_bytes).toBe(1048576);
  });

  it("max_wait_seconds is 55 unless raised (for a host that allows longer tool calls), at most 300", () => {
    expect(parse("").config.max_wait_seconds).toBe(55);
    expect(parse("max_wait_seconds = 120").config.max_wait_seconds).toBe(120);
    expect(errorOf(() => parse("max_wait_seconds = 301")).message).toMatch(/max_wait_seconds.*from 1 to 300/);
  });
});

describe("profiles", () => {
  it("other profiles inherit unset values from [profiles.default] and add its patterns", () => {
    const { config } = parse(`
[profiles.default]
network_access = true
wait_timeout_seconds = 40
forbidden_patterns = ["terraform destroy"]
[profiles.fast]
effort = "low"
forbidden_patterns = ["kubectl delete"]
`);
    expect(config.profiles.fast).toMatchObject({
      id: "fast",
      effort: "low",
      network_access: true,
      wait_timeout_seconds: 40,
      forbidden_patterns: ["terraform destroy", "kubectl delete"],
    });
    expect(config.profiles.default.forbidden_patterns).toEqual(["terraform destroy"]);
  });

  it("names the key, the file and the allowed range for an out-of-range value", () => {
    const err = errorOf(() => parse("[profiles.fast]\nwait_timeout_seconds = 0"));
    expect(err.message).toContain("/cfg/config.toml");
    expect(err.message).toContain("profiles.fast.wait_timeout_seconds");
    expect(err.message).toMatch(/from 1 to 300/);
    expect(err.message).toContain("got 0");
  });

  it("lists the allowed values of an enum", () => {
    const err = errorOf(() => parse('[profiles.default]\napproval_policy = "always"'));
    expect(err.message).toContain("profiles.default.approval_policy");
    expect(err.message).toContain('"untrusted", "on-request", "never"');
    const sb = errorOf(() => parse('[profiles.x]\nsandbox_type = "full"'));
    expect(sb.message).toContain('"read-only", "workspace-write", "danger-full-access"');
  });

  it("rejects a pattern that is not a regular expression", () => {
    const err = errorOf(() => parse('[profiles.default]\nhigh_risk_patterns = ["(unclosed"]'));
    expect(err.message).toContain("profiles.default.high_risk_patterns[0]");
    expect(err.message).toMatch(/not a valid regular expression/);
  });

  it("codex_home, child_env, env_allow and env_deny: a profile's own home and child environment", () => {
    const { config } = parse(`
[profiles.default]
env_deny = ["OPENAI_API_KEY"]
[profiles.apart]
codex_home = "/srv/codex/apart/"
child_env = "minimal"
env_allow = ["GIT_AUTHOR_NAME"]
env_deny = ["SSH_AUTH_SOCK"]
[profiles.plain]
effort = "low"
`);
    expect(config.profiles.apart).toMatchObject({ codex_home: "/srv/codex/apart", child_env: "minimal", env_allow: ["GIT_AUTHOR_NAME"] });
    // A profile can add names to deny, never take the default's away.
    expect(config.profiles.apart.env_deny).toEqual(["OPENAI_API_KEY", "SSH_AUTH_SOCK"]);
    expect(config.profiles.plain).toMatchObject({ child_env: "inherit", env_allow: [], env_deny: ["OPENAI_API_KEY"] });
    expect(config.profiles.plain.codex_home).toBeUndefined();
  });

  it("refuses a relative codex_home, an unknown child_env, a bad variable name and the tunnel key in env_allow", () => {
    const err = errorOf(() =>
      parse(`
[profiles.a]
codex_home = "codex-a"
env_allow = ["CONTROL_PLANE_API_KEY", "1BAD"]
[profiles.b]
child_env = "empty"
`),
    );
    expect(err.message).toContain("profiles.b.child_env must be one of \"inherit\", \"minimal\"");
    const rel = errorOf(() => parse(`[profiles.a]\ncodex_home = "codex-a"\nenv_allow = ["CONTROL_PLANE_API_KEY", "1BAD"]`));
    expect(rel.message).toContain('profiles.a.codex_home must be an absolute directory (got "codex-a")');
    expect(rel.message).toContain("profiles.a.env_allow[0] names CONTROL_PLANE_API_KEY, which the bridge never passes to Codex");
    expect(rel.message).toContain('profiles.a.env_allow[1] ("1BAD") is not an environment variable name');
  });

  it("runtime and start_shared: spawn by default, shared per profile, anything else named with its fix", () => {
    const { config } = parse(`
[profiles.mine]
runtime = "shared"
start_shared = true
[profiles.plain]
effort = "low"
`);
    expect(config.profiles.mine).toMatchObject({ runtime: "shared", start_shared: true });
    expect(config.profiles.plain).toMatchObject({ runtime: "spawn", start_shared: false });
    const err = errorOf(() => parse(`[profiles.a]\nruntime = "daemon"\nstart_shared = "yes"`));
    expect(err.message).toContain('profiles.a.runtime must be one of "spawn", "shared"');
    expect(err.message).toContain("profiles.a.start_shared must be true or false");
  });

  it("rejects an invalid profile id", () => {
    const err = errorOf(() => parse('[profiles."bad id"]\neffort = "low"'));
    expect(err.message).toContain('profiles."bad id"');
    expect(err.message).toMatch(/letters, digits/);
  });
});

describe("unknown keys and syntax errors", () => {
  it("names a misspelled key with the allowed ones", () => {
    const err = errorOf(() => parse("[profiles.default]\nwait_timeout_secs = 10"));
    expect(err.message).toContain("profiles.default.wait_timeout_secs is not a known setting");
    expect(err.message).toContain("wait_timeout_seconds");
  });

  it("catches unknown top-level keys and unknown keys in [relay]", () => {
    expect(errorOf(() => parse("max_artifact_byte = 5")).message).toContain("max_artifact_byte is not a known setting");
    expect(errorOf(() => parse("[relay]\nenable = true")).message).toContain("relay.enable is not a known setting");
  });

  it("reports the line and column of malformed TOML", () => {
    const err = errorOf(() => parse('max_artifact_bytes = 5\n[profiles.default\nmodel = ""'));
    expect(err.message).toContain("/cfg/config.toml");
    expect(err.message).toMatch(/line 2, column \d+/);
  });

  it("reports several problems at once, one per line", () => {
    const err = errorOf(() => parse("max_artifact_bytes = 0\n[relay]\nmax_result_bytes = \"big\""));
    expect(err.problems.length).toBe(2);
    expect(err.message.split("\n").length).toBe(3);
  });

  it("bounds max_artifact_bytes at 256 MiB and inline at max", () => {
    expect(errorOf(() => parse(`max_artifact_bytes = ${257 * 1024 * 1024}`)).message).toContain("max_artifact_bytes");
    const err = errorOf(() => parse("max_artifact_bytes = 1000\ninline_artifact_bytes = 2000"));
    expect(err.message).toContain("inline_artifact_bytes (2000) must be at most max_artifact_bytes (1000)");
  });

  it("requires codex.bin to be absolute", () => {
    expect(errorOf(() => parse('[codex]\nbin = "codex"')).message).toContain("codex.bin");
    expect(parse('[codex]\nbin = "/opt/codex/bin/codex"').config.codex.bin).toBe(resolve("/opt/codex/bin/codex"));
  });
});

describe("projects", () => {
  it("stores the given cwd and its real path", () => {
    const link = join(dir, "link-a");
    symlinkSync(projA, link);
    const { config } = parse(`[projects.a]\ncwd = ${JSON.stringify(link)}\naliases = ["alpha"]\ndescription = "A"`);
    expect(config.projects.a).toEqual({ id: "a", cwd: link, real_cwd: projA, aliases: ["alpha"], description: "A", allow_hard_links: false });
    const projects = taskSettings(config, {}).projects;
    expect(resolveProject(projects, "alpha").id).toBe("a");
    expect(resolveProject(projects, "a").id).toBe("a");
    expect(() => resolveProject(projects, "nope")).toThrow(/project_id "nope" is not configured; use one of: a/);
  });

  it("allow_hard_links is off unless the project turns it on, and must be a boolean", () => {
    const projB = join(dir, "proj-hard-links");
    mkdirSync(projB);
    const { config } = parse(`[projects.a]\ncwd = ${JSON.stringify(projA)}\n[projects.b]\ncwd = ${JSON.stringify(projB)}\nallow_hard_links = true`);
    expect(config.projects.a.allow_hard_links).toBe(false);
    expect(config.projects.b.allow_hard_links).toBe(true);
    expect(errorOf(() => parse(`[projects.a]\ncwd = ${JSON.stringify(projA)}\nallow_hard_links = "yes"`)).message).toMatch(/allow_hard_links.*true or false/);
  });

  it("leaves out a missing directory and reports it, or fails in strict mode", () => {
    const missing = join(dir, "gone");
    const text = `[projects.a]\ncwd = ${JSON.stringify(projA)}\n[projects.b]\ncwd = ${JSON.stringify(missing)}`;
    const { config, projectIssues } = parse(text);
    expect(Object.keys(config.projects)).toEqual(["a"]);
    expect(projectIssues).toEqual([{ id: "b", problem: expect.stringContaining("does not exist") }]);
    const err = errorOf(() => parse(text, true));
    expect(err.message).toContain("projects.b");
    expect(err.message).toContain("does not exist");
  });

  it("reports a file given as cwd", () => {
    const file = join(dir, "file.txt");
    writeFileSync(file, "x");
    const { projectIssues } = parse(`[projects.f]\ncwd = ${JSON.stringify(file)}`);
    expect(projectIssues[0].problem).toContain("is not a directory");
  });

  it("rejects a relative cwd and a missing cwd", () => {
    expect(errorOf(() => parse('[projects.a]\ncwd = "src/app"')).message).toContain("projects.a.cwd must be an absolute path");
    expect(errorOf(() => parse('[projects.a]\ndescription = "x"')).message).toContain("projects.a.cwd is missing");
  });

  it("enforces allowed_roots after resolving symlinks", () => {
    const root = join(dir, "root");
    mkdirSync(join(root, "inside"), { recursive: true });
    const escape = join(root, "escape");
    symlinkSync(projA, escape); // lexically inside the root, really outside
    const text = `allowed_roots = [${JSON.stringify(root)}]
[projects.in]
cwd = ${JSON.stringify(join(root, "inside"))}
[projects.out]
cwd = ${JSON.stringify(projA)}
[projects.sneaky]
cwd = ${JSON.stringify(escape)}`;
    const { config, projectIssues } = parse(text);
    expect(Object.keys(config.projects)).toEqual(["in"]);
    expect(projectIssues.map((i) => i.id).sort()).toEqual(["out", "sneaky"]);
    expect(projectIssues[0].problem).toContain("outside every allowed_roots entry");
  });

  it("an empty allowed_roots refuses every project", () => {
    const { config, projectIssues } = parse(`allowed_roots = []\n[projects.a]\ncwd = ${JSON.stringify(projA)}`);
    expect(config.projects).toEqual({});
    expect(projectIssues[0].problem).toContain("allowed_roots is an empty list");
  });

  it("a missing allowed root is an error", () => {
    expect(errorOf(() => parse(`allowed_roots = [${JSON.stringify(join(dir, "none"))}]`)).message).toContain("allowed_roots[0] does not exist");
  });

  it("rejects duplicate or clashing aliases and bad ids", () => {
    const projB = join(dir, "proj-b");
    mkdirSync(projB);
    const clash = errorOf(() =>
      parse(`[projects.a]\ncwd = ${JSON.stringify(projA)}\n[projects.b]\ncwd = ${JSON.stringify(projB)}\naliases = ["a"]`),
    );
    expect(clash.message).toContain('projects.b.aliases[0] ("a") is already used by project "a"');
    expect(errorOf(() => parse(`[projects.a]\ncwd = ${JSON.stringify(projA)}\naliases = ["has space"]`)).message).toContain("not a valid alias");
    expect(errorOf(() => parse(`[projects."-x"]\ncwd = ${JSON.stringify(projA)}`)).message).toContain("not a valid project id");
  });
});

describe("loadConfig and file location", () => {
  it("a missing file at the default location is an empty config", () => {
    const res = loadConfig({ env: {}, configDir });
    expect(res.exists).toBe(false);
    expect(res.source).toBe("default");
    expect(res.path).toBe(join(configDir, "codex-bridge", "config.toml"));
    expect(Object.keys(res.config.profiles)).toEqual(["default"]);
  });

  it("a missing file named by the env var is an error", () => {
    const path = join(dir, "nope.toml");
    const err = errorOf(() => loadConfig({ env: { CODEX_BRIDGE_CONFIG: path }, configDir }));
    expect(err.message).toContain(path);
    expect(err.message).toContain("CODEX_BRIDGE_CONFIG");
  });

  it("reads the file named by the legacy env var", () => {
    const path = join(dir, "legacy.toml");
    writeFileSync(path, `[projects.a]\ncwd = ${JSON.stringify(projA)}`);
    const res = loadConfig({ env: { CODEX_SUPERVISOR_CONFIG: path }, configDir });
    expect(res.source).toBe("CODEX_SUPERVISOR_CONFIG");
    expect(res.config.projects.a.real_cwd).toBe(projA);
  });

  it("strict mode makes a missing project directory fatal", () => {
    const path = join(dir, "c.toml");
    writeFileSync(path, `[projects.a]\ncwd = ${JSON.stringify(join(dir, "gone"))}`);
    expect(loadConfig({ env: { CODEX_BRIDGE_CONFIG: path }, configDir }).projectIssues).toHaveLength(1);
    expect(() => loadConfig({ env: { CODEX_BRIDGE_CONFIG: path }, configDir, strict: true })).toThrow(ConfigError);
  });

  it("the starter config round-trips through loadConfig", () => {
    const path = join(configDir, "codex-bridge", "config.toml");
    mkdirSync(join(configDir, "codex-bridge"));
    writeFileSync(path, starterConfig({ projectId: "my-app", cwd: projA }));
    const res = loadConfig({ env: {}, configDir, strict: true });
    expect(res.exists).toBe(true);
    expect(res.config.projects["my-app"].real_cwd).toBe(projA);
    expect(res.config.profiles.default.approval_policy).toBe("on-request");
  });

  it("the starter config quotes awkward paths correctly", () => {
    const odd = join(dir, 'we"ird \\ dir');
    mkdirSync(odd);
    const { config } = parseConfigText(starterConfig({ projectId: "x", cwd: odd }), { path: "s", strict: true });
    expect(config.projects.x.cwd).toBe(odd);
    expect(() => starterConfig({ projectId: "bad id", cwd: odd })).toThrow(/not valid/);
  });

  it("config.example.toml at the repository root loads", () => {
    const text = readFileSync(resolve(__dirname, "../../config.example.toml"), "utf8");
    const { config, projectIssues } = parseConfigText(text, { path: "config.example.toml" });
    // Its example directories do not exist here: doctor would list them.
    expect(projectIssues.map((p) => p.id).sort()).toEqual(["docs", "my-app"]);
    expect(config.profiles.deep).toMatchObject({ effort: "high", wait_timeout_seconds: 50, sandbox_type: "workspace-write" });
    expect(config.profiles.readonly.forbidden_patterns).toEqual(["\\bkubectl\\s+delete\\s+namespace\\b"]);
    expect(config.sensitive_paths).toContain("*.sqlite3");
    expect(config.profiles.work).toMatchObject({ codex_home: "/home/you/.local/share/codex-bridge/homes/work", child_env: "minimal", env_deny: ["AWS_PROFILE"] });
  });
});
