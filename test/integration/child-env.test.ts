// What a command Codex runs actually sees, per profile: child_env = "minimal" passes only the allowed names, and no
// mode passes the tunnel's key, the HTTP token or a denied name. Checked with a real turn whose command prints `env`.
import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { lastFunctionOutput } from "../../src/selftest/mock-provider/index.ts";
import { startHarness, type Harness } from "../../src/selftest/harness.ts";
import { settled, startTask } from "../support/task-waits.ts";

/**
 * Names Codex 0.171.0 itself sets for every command it runs (measured on Linux with a minimal child: it gave Codex
 * none of them), and the ones the shell adds. On macOS Codex adds CODEX_SANDBOX=seatbelt as well. Anything else in a
 * minimal child's command environment came from the bridge.
 */
const ADDED_BY_CODEX = [
  "CODEX_APPLY_PATCH_PRESERVE_LINE_ENDINGS",
  "CODEX_CI",
  "CODEX_SANDBOX_NETWORK_DISABLED",
  "CODEX_SESSION_ID",
  "CODEX_THREAD_ID",
  "CODEX_TOOL_CALL_ID",
  "CODEX_VERSION",
  "COLORTERM",
  "GH_PAGER",
  "GIT_PAGER",
  "LC_ALL",
  "LC_CTYPE",
  "NO_COLOR",
  "PAGER",
  "TERM",
  "CODEX_SANDBOX",
];
const ADDED_BY_SHELL = ["PWD", "SHLVL", "_", "OLDPWD"];

const BRIDGE_ENV = {
  CONTROL_PLANE_API_KEY: "cp-key-must-not-pass",
  CODEX_BRIDGE_HTTP_TOKEN: "http-token-must-not-pass",
  H9_ALLOWED: "allowed-value",
  H9_DENIED: "denied-value",
  H9_OTHER: "other-value",
};

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** Runs `env` in a task of this profile and returns the names (and the raw listing) the command saw. */
async function envSeenBy(profile: string): Promise<{ names: string[]; listing: string }> {
  const before = h!.provider!.requests.length;
  h!.provider!.enqueue({ kind: "output", items: [{ type: "exec", cmd: "env" }] }, { kind: "output", items: [{ type: "message", text: "listed" }] });
  const task = await startTask(h!, `print the environment (${profile})`, { profile });
  expect((await settled(h!, task)).at(-1)!.state).toBe("completed");
  const listing = lastFunctionOutput(h!.provider!.requests.slice(before).at(-1)!) ?? "";
  const body = listing.slice(listing.indexOf("Output:\n") + "Output:\n".length);
  const names = body.split("\n").map((l) => /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(l)?.[1]).filter((n): n is string => !!n);
  return { names: [...new Set(names)].sort(), listing };
}

/** The app-server's own environment, read from /proc where the OS offers it (what Codex got, before it adds its own). */
function appServerEnviron(pid: number): Record<string, string> | null {
  const file = `/proc/${pid}/environ`;
  if (!existsSync(file)) return null;
  const pairs = readFileSync(file, "utf8").split("\0").filter(Boolean);
  return Object.fromEntries(pairs.map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
}

describe("child environment per profile", () => {
  it("minimal passes only HOME, CODEX_HOME, TMPDIR, a system PATH, locale and env_allow; no mode passes the key, the token or env_deny", async () => {
    h = await startHarness(await getPlatform(), {
      mockProvider: true,
      approvalPolicy: "never",
      bridgeEnv: { ...BRIDGE_ENV, LC_MESSAGES: "C", TMPDIR: "/tmp" },
      extraConfig: [
        "",
        "[profiles.locked]",
        'child_env = "minimal"',
        'env_allow = ["H9_ALLOWED"]',
        'env_deny = ["H9_DENIED"]',
        "",
        "[profiles.trimmed]",
        'env_deny = ["H9_DENIED"]',
        "",
      ].join("\n"),
    });

    const locked = await envSeenBy("locked");
    const allowed = ["HOME", "CODEX_HOME", "TMPDIR", "PATH", "LANG", "LC_MESSAGES", "H9_ALLOWED"];
    const unexpected = locked.names.filter((n) => !allowed.includes(n) && !ADDED_BY_CODEX.includes(n) && !ADDED_BY_SHELL.includes(n));
    expect(unexpected, locked.listing).toEqual([]);
    for (const name of ["HOME", "CODEX_HOME", "PATH", "H9_ALLOWED", "LC_MESSAGES"]) expect(locked.names, locked.listing).toContain(name);
    expect(locked.listing).toContain(`CODEX_HOME=${h.env.CODEX_HOME}\n`);
    // What the bridge handed the minimal app-server, before Codex added its own: exactly the allowed names, and the
    // system PATH (the command's own PATH may differ: Codex runs it in a login shell, which reads /etc/profile).
    const lockedSlot = h.bridge.runtimes.all().find((s) => s.profiles.includes("locked"))!;
    const environ = appServerEnviron(lockedSlot.runtime.current!.pid!);
    if (environ) {
      expect(Object.keys(environ).sort()).toEqual(allowed.filter((n) => n !== "LANG" || h!.env.LANG !== undefined).sort());
      expect(environ.PATH).toBe("/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
    }

    const inherit = await envSeenBy("default");
    expect(inherit.names).toEqual(expect.arrayContaining(["H9_ALLOWED", "H9_DENIED", "H9_OTHER"]));
    const trimmed = await envSeenBy("trimmed");
    expect(trimmed.names).toEqual(expect.arrayContaining(["H9_ALLOWED", "H9_OTHER"]));
    expect(trimmed.names).not.toContain("H9_DENIED");
    // Codex may hide *_KEY / *_TOKEN names from commands on its own: check that the bridge never gave them to it.
    for (const slot of h.bridge.runtimes.all()) {
      const env = appServerEnviron(slot.runtime.current!.pid!);
      if (!env) continue;
      expect(env.CONTROL_PLANE_API_KEY).toBeUndefined();
      expect(env.CODEX_BRIDGE_HTTP_TOKEN).toBeUndefined();
      if (slot.profiles.includes("default")) expect(env.H9_DENIED).toBe("denied-value");
      if (slot.profiles.includes("trimmed")) expect(env.H9_DENIED).toBeUndefined();
    }
    for (const seen of [locked, inherit, trimmed]) {
      expect(seen.names).not.toContain("CONTROL_PLANE_API_KEY");
      expect(seen.names).not.toContain("CODEX_BRIDGE_HTTP_TOKEN");
      expect(seen.listing).not.toContain("must-not-pass");
    }
    expect(locked.names).not.toContain("H9_OTHER");
    expect(locked.names).not.toContain("H9_DENIED");
    // Three environments, three app-servers; two of them share the bridge's home.
    expect(h.bridge.runtimes.all()).toHaveLength(3);
  });
});
