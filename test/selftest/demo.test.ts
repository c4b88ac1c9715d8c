// `codex-bridge demo` as a newcomer runs it: a child process, the real Codex app-server, the built-in mock model.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { codexEnv, MAIN, privateTmp, runCli } from "../cli/run-cli.ts";
import { tempDir } from "../support/temp-dir.ts";

let tmp: ReturnType<typeof privateTmp> | null = null;
afterEach(() => {
  tmp?.remove();
  tmp = null;
});

/** The transcript block of call number n: its header line and the indented answer under it. */
function callBlock(stdout: string, n: number): string {
  const start = stdout.indexOf(`\n[${n}] supervisor → `);
  expect(start, `call [${n}] in the transcript`).toBeGreaterThanOrEqual(0);
  // Blocks are separated by a blank line before the next note, call or summary; answers may hold blank lines.
  const rest = stdout.slice(start + 1);
  const end = rest.search(/\n\n(?=· |\[\d+\] |Done: )/);
  return end < 0 ? rest : rest.slice(0, end);
}

describe("codex-bridge demo", () => {
  it("runs a supervised task start to finish: relay, approval, result with evidence, artifact", async () => {
    tmp = privateTmp();
    const run = await runCli(["demo"], { env: codexEnv(tmp.dir) });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const out = run.stdout;

    const calls = [...out.matchAll(/^\[(\d+)\] supervisor → (\w+) /gm)].map((m) => m[2]);
    expect(calls[0]).toBe("codex_start");
    expect(calls).toContain("codex_submit_tool_result");
    expect(calls).toContain("codex_respond");
    expect(calls.slice(-2)).toEqual(["codex_result", "codex_artifact"]);
    // The relay is answered before Codex asks to write the file that uses it.
    expect(calls.indexOf("codex_submit_tool_result")).toBeLessThan(calls.indexOf("codex_respond"));

    const n = (tool: string) => calls.indexOf(tool) + 1;
    const relay = callBlock(out, n("codex_submit_tool_result"));
    expect(relay).toMatch(/"request_id":"(r_[0-9a-f]{10})","status":"success"/);
    expect(relay).toMatch(/r_[0-9a-f]{10} success: (submitted|resolved)/);

    const approval = callBlock(out, n("codex_respond"));
    expect(approval).toMatch(/"action":"accept"/);
    expect(approval).toMatch(/r_[0-9a-f]{10} accept: (submitted|resolved)/);
    // The wait before the approval showed the command Codex wanted to run.
    expect(out).toMatch(/request r_[0-9a-f]{10} command · `printf .*> report\.md`/);

    const result = callBlock(out, n("codex_result"));
    expect(result).toContain("report.md is written");
    expect(result).toMatch(/Commands \(1\): `printf .*> report\.md` → exit 0/);
    expect(result).toMatch(/Host reports .*r_[0-9a-f]{10} web_search: success, resolved/);
    expect(result).toContain("?? report.md");

    const artifact = callBlock(out, n("codex_artifact"));
    expect(artifact).toMatch(/report\.md · text\/markdown · \d+ B · sha256 [0-9a-f]{64}/);
    expect(out).toContain("--- report.md ---\n    # example-lib release\n");
    expect(out).toContain("    Relayed by the supervisor: example-lib 2.4.1 is the current release (demo data: no real search was run)\n");

    expect(out).toMatch(new RegExp(`\\nDone: ${calls.length} MCP calls, [\\d,]+ characters read by the supervisor, [\\d.]+ s\\.\\n`));
    expect(run.stderr).toBe("");
    expect(tmp.leftovers()).toEqual([]);
  });

  it("fails with a way out when Codex cannot be found", async () => {
    tmp = privateTmp();
    // Outside the checkout, so the bundled Codex under node_modules is not found either.
    const cwd = tempDir("cli-demo-cwd-");
    const run = await runCli(["demo"], { cwd, cleanEnv: true, env: { TMPDIR: tmp.dir, CODEX_BIN: join(cwd, "no-such-codex"), PATH: "/usr/bin:/bin" } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("demo FAILED");
    expect(run.stderr).toContain("no-such-codex");
    expect(run.stderr).toContain("npm ci");
    expect(run.stderr).toContain("CODEX_BIN");
    expect(tmp.leftovers()).toEqual([]);
    void MAIN;
  });

  // A user namespace of its own whose limit on further user namespaces is 0: Codex's bwrap sandbox cannot start, as
  // under qemu-user or in a locked-down container, while Codex itself runs.
  const noNamespaces = ["unshare", "--user", "--map-root-user", "sh", "-c", 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"', "sh"];
  const canTakeNamespaces = process.platform === "linux" && spawnSync(noNamespaces[0]!, [...noNamespaces.slice(1), "true"]).status === 0;
  it.skipIf(!canTakeNamespaces)("when Codex's sandbox cannot run the command, says so and does not send the user to reinstall Codex (skipped where unshare --user is not permitted)", async () => {
    tmp = privateTmp();
    const run = await runCli(["demo"], { env: codexEnv(tmp.dir), wrap: noNamespaces });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("demo FAILED");
    expect(run.stderr).toContain("Codex's sandbox cannot run commands on this machine");
    expect(run.stderr).toContain("Creating new namespace failed");
    expect(run.stderr).not.toContain("npm ci");
    expect(run.stderr).not.toContain("set CODEX_BIN");
  });

  it("refuses options it does not have", async () => {
    const run = await runCli(["demo", "--verbose"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("codex-bridge demo: unknown option --verbose; it takes no options");
  });
});
