// codex-bridge login/logout: Codex's own login, run with CODEX_HOME set to the profile's codex_home and nothing else
// changed, never in the user's own home; doctor --json shows each profile's login state before and after.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { runAccount } from "../../src/cli/login.ts";
import type { CommandLine } from "../../src/cli/run-command.ts";
import { writeIsolatedCodexHome } from "../../src/codex/isolated-home.ts";
import { startMockProvider, type MockProvider } from "../../src/selftest/mock-provider/index.ts";
import { bundledCodexBin } from "../support/real-codex.ts";
import { runCli } from "./run-cli.ts";

let dir: string;
let ownHome: string;
let apartHome: string;
let config: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cb-login-"));
  ownHome = join(dir, "own-codex-home");
  apartHome = join(dir, "profiles", "apart");
  mkdirSync(join(dir, "project"));
  config = join(dir, "config.toml");
  writeFileSync(
    config,
    [`[projects.demo]`, `cwd = ${JSON.stringify(join(dir, "project"))}`, ``, `[profiles.apart]`, `codex_home = ${JSON.stringify(apartHome)}`, ``, `[profiles.plain]`, `effort = "low"`, ``].join("\n"),
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function account(action: "login" | "logout", args: string[], env: Record<string, string> = {}) {
  const calls: { line: CommandLine; stdin: boolean }[] = [];
  const errors: string[] = [];
  const base = { PATH: "/usr/bin:/bin", HOME: join(dir, "user"), CODEX_HOME: ownHome, CODEX_BIN: bundledCodexBin(), CODEX_BRIDGE_CONFIG: config, HTTPS_PROXY: "http://proxy.invalid:3128", ...env };
  const code = await runAccount(await getPlatform(), action, args, {
    env: base,
    run: async (line, opts) => {
      calls.push({ line, stdin: opts.stdin });
      return 0;
    },
    err: (t) => errors.push(t),
  });
  return { code, calls, err: errors.join("\n"), base };
}

describe("login and logout (Codex injected)", () => {
  it("runs codex login --device-auth with only CODEX_HOME changed, in the profile's own home (created 0700)", async () => {
    const r = await account("login", ["--profile", "apart"]);
    expect(r.code, r.err).toBe(0);
    expect(r.calls).toHaveLength(1);
    const { line, stdin } = r.calls[0]!;
    expect(line.command).toBe(bundledCodexBin());
    expect(line.args).toEqual(["login", "--device-auth"]);
    expect(line.env).toEqual({ ...r.base, CODEX_HOME: apartHome });
    expect(stdin).toBe(false);
    expect(statSync(apartHome).mode & 0o777).toBe(0o700);
    expect(existsSync(ownHome)).toBe(false);
  });

  it("--browser and --with-api-key choose Codex's other flows; logout runs codex logout in the same home", async () => {
    expect((await account("login", ["--profile", "apart", "--browser"])).calls[0]!.line.args).toEqual(["login"]);
    const key = await account("login", ["--with-api-key", "--profile", "apart"]);
    expect(key.calls[0]!.line.args).toEqual(["login", "--with-api-key"]);
    expect(key.calls[0]!.stdin).toBe(true);
    const out = await account("logout", ["--profile", "apart"]);
    expect(out.calls[0]!.line).toMatchObject({ args: ["logout"], env: { CODEX_HOME: apartHome } });
    const both = await account("login", ["--profile", "apart", "--browser", "--with-api-key"]);
    expect(both.code).toBe(2);
    expect(both.calls).toEqual([]);
  });

  it("refuses a profile without codex_home (the user's own login) and an unknown profile, running nothing", async () => {
    for (const args of [[], ["--profile", "plain"]]) {
      const r = await account("login", args);
      expect(r.code).toBe(1);
      expect(r.calls).toEqual([]);
      expect(r.err).toMatch(/has no codex_home, so it uses your own Codex home, which this command never touches/);
    }
    const gone = await account("logout", ["--profile", "nope"]);
    expect(gone.code).toBe(2);
    expect(gone.err).toContain('profile "nope" is not configured; configured: default, apart, plain');
  });
});

describe("login state per profile, through the real CLI and the real Codex", () => {
  let provider: MockProvider;
  beforeEach(async () => {
    provider = await startMockProvider();
    // The bridge's own home needs no login; the apart profile's provider needs one, as OpenAI's does.
    writeIsolatedCodexHome({ dir: ownHome, providerBaseUrl: provider.baseUrl });
    writeIsolatedCodexHome({ dir: apartHome, providerBaseUrl: provider.baseUrl, requiresOpenaiAuth: true });
  });
  afterEach(async () => provider.close());

  const env = () => ({ CODEX_HOME: ownHome, CODEX_BIN: bundledCodexBin(), CODEX_BRIDGE_CONFIG: config, CODEX_BRIDGE_STATE: join(dir, "state.sqlite3"), TMPDIR: dir });
  const profilesOf = async () => {
    const run = await runCli(["doctor", "--json"], { cleanEnv: true, env: env() });
    const report = JSON.parse(run.stdout);
    return { report, text: run.stdout, code: run.code };
  };

  it("doctor --json says absent, login --with-api-key writes the login into that home only, doctor says present, logout removes it", async () => {
    const before = await profilesOf();
    expect(before.code).toBe(1);
    const apart = before.report.profiles.find((p: { id: string }) => p.id === "apart");
    expect(apart).toMatchObject({ codex_home: apartHome, isolated: true, login: "absent", app_server: "initialized" });
    expect(before.report.profiles.find((p: { id: string }) => p.id === "plain")).toMatchObject({ codex_home: ownHome, isolated: false, login: "not needed" });
    expect(before.report.checks).toContainEqual({ name: "profile apart", ok: false, detail: `${apartHome}: no login in this home: run codex-bridge login --profile apart` });

    const ownBefore = readdirSync(ownHome).sort();
    const login = await runCli(["login", "--profile", "apart", "--with-api-key"], { cleanEnv: true, env: env(), input: "sk-h9-cli-secret-987654\n" });
    expect(login.code, login.stderr).toBe(0);
    expect(existsSync(join(apartHome, "auth.json"))).toBe(true);
    expect(existsSync(join(ownHome, "auth.json"))).toBe(false);
    expect(readdirSync(ownHome).sort()).toEqual(ownBefore);

    const after = await profilesOf();
    expect(after.report.profiles.find((p: { id: string }) => p.id === "apart")).toMatchObject({ login: "present" });
    expect(after.report.checks.some((c: { name: string }) => c.name === "profile apart")).toBe(false);
    expect(after.text).not.toContain("sk-h9-cli-secret");
    expect(after.text).not.toContain("987654");

    const logout = await runCli(["logout", "--profile", "apart"], { cleanEnv: true, env: env() });
    expect(logout.code, logout.stderr).toBe(0);
    expect(existsSync(join(apartHome, "auth.json"))).toBe(false);
  });
});
