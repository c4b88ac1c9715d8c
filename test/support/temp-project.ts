// Test support: a throwaway Git repository with one commit, for tests that let codex work in a project (it calls git
// directly). Its directory comes from tempDir, so it goes away after the test even if nobody calls cleanup().
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { removeTempDir, tempDir } from "./temp-dir.ts";

export interface TempGitProject {
  /** Real (symlink-free) absolute path, so it compares equal to the cwd codex reports. */
  dir: string;
  cleanup(): void;
}

export function makeTempGitProject(opts: { files?: Record<string, string | Uint8Array> } = {}): TempGitProject {
  const dir = tempDir("codex-bridge-project-");
  const files = opts.files ?? { "README.md": "# temp project\n" };
  for (const [rel, content] of Object.entries(files)) {
    const path = join(dir, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  // A fixed, minimal environment: the user's global git config (hooks, signing, templates) must not leak in.
  const env = { PATH: process.env.PATH ?? "", HOME: dir, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
  git("init", "-q", "-b", "main");
  git("config", "user.name", "Codex Bridge Test");
  git("config", "user.email", "test@codex-bridge.invalid");
  git("config", "commit.gpgsign", "false");
  git("add", "-A");
  git("commit", "-q", "--allow-empty", "-m", "initial");
  return {
    dir,
    cleanup: () => removeTempDir(dir),
  };
}
