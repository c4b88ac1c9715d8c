// runGitChecks on real throwaway repositories: HEAD, branch, porcelain status and diff stat, without touching the
// index; a repository without commits, a directory outside Git, and a git that never answers.
import { execFileSync } from "node:child_process";
import { readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import type { ChildExit, ChildHandle, Platform } from "../../platform/types.ts";
import { GIT_STATUS_MAX_LINES, runGitChecks } from "../../src/views/git-checks.ts";
import { tempDir } from "../support/temp-dir.ts";
import { makeTempGitProject } from "../support/temp-project.ts";

/** A committed project, removed when the test finishes. */
const project = (files: Record<string, string>) => makeTempGitProject({ files }).dir;

const gitOut = (dir: string, ...args: string[]): string =>
  execFileSync("git", args, { cwd: dir, env: { PATH: process.env.PATH ?? "", HOME: dir, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" } })
    .toString()
    .trim();

describe("runGitChecks", () => {
  it("reports HEAD, branch, porcelain status and diff stat of a modified project", async () => {
    const dir = project({ "README.md": "one\ntwo\n", "same.txt": "unchanged\n" });
    writeFileSync(join(dir, "README.md"), "one\nTWO\nthree\n");
    writeFileSync(join(dir, "new.txt"), "untracked\n");
    // Same content, new mtime: a plain `git status` would refresh and rewrite the index for this file.
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(dir, "same.txt"), future, future);
    const indexBefore = readFileSync(join(dir, ".git", "index"));

    const g = await runGitChecks(await getPlatform(), dir);

    expect(g.error).toBeUndefined();
    expect(g.head).toBe(gitOut(dir, "rev-parse", "HEAD"));
    expect(g.head).toMatch(/^[0-9a-f]{40}$/);
    expect(g.branch).toBe("main");
    expect(g.status).toEqual([" M README.md", "?? new.txt"]);
    expect(g.status_count).toBe(2);
    expect(g.diff_stat).toBe("1 file changed, 2 insertions(+), 1 deletion(-)");
    expect(readFileSync(join(dir, ".git", "index")).equals(indexBefore)).toBe(true);
  });

  it("a clean tree has an empty status and no diff stat", async () => {
    const dir = project({ "a.txt": "a\n" });
    const g = await runGitChecks(await getPlatform(), dir);
    expect(g).toEqual({ head: expect.stringMatching(/^[0-9a-f]{40}$/), branch: "main", status: [], status_count: 0, diff_stat: null });
  });

  it("keeps the first 50 status lines and counts them all", async () => {
    const dir = project({ "a.txt": "a\n" });
    for (let i = 0; i < 60; i++) writeFileSync(join(dir, `u${String(i).padStart(2, "0")}.txt`), "x");
    const g = await runGitChecks(await getPlatform(), dir);
    expect(g.status).toHaveLength(GIT_STATUS_MAX_LINES);
    expect(g.status[0]).toBe("?? u00.txt");
    expect(g.status_count).toBe(60);
  });

  it("a repository without commits has no HEAD but still a branch and status", async () => {
    const dir = tempDir("codex-bridge-nogit-");
    gitOut(dir, "init", "-q", "-b", "trunk");
    writeFileSync(join(dir, "f.txt"), "f\n");
    const g = await runGitChecks(await getPlatform(), dir);
    expect(g).toEqual({ head: null, branch: "trunk", status: ["?? f.txt"], status_count: 1, diff_stat: null });
  });

  it("a directory outside Git gives an error instead of throwing", async () => {
    const dir = tempDir("codex-bridge-nogit-");
    const g = await runGitChecks(await getPlatform(), dir);
    expect(g).toEqual({ head: null, branch: null, status: [], status_count: 0, diff_stat: null, error: "not a Git repository" });
  });

  it("a git that never answers is killed at the timeout", async () => {
    const real = await getPlatform();
    const killed: string[] = [];
    const hung: Platform = {
      ...real,
      spawn(): ChildHandle {
        let onExit: ((e: ChildExit) => void) | undefined;
        let resolveExit: (e: ChildExit) => void = () => {};
        const exited = new Promise<ChildExit>((r) => (resolveExit = r));
        return {
          pid: 1,
          write: async () => {},
          endStdin: () => {},
          onStdout: () => {},
          onStderr: () => {},
          onExit: (cb) => (onExit = cb),
          killTree: (signal) => {
            killed.push(signal ?? "SIGTERM");
            const exit = { code: null, signal: signal ?? "SIGTERM" };
            resolveExit(exit);
            onExit?.(exit);
          },
          exited,
        };
      },
    };
    const g = await runGitChecks(hung, tempDir("codex-bridge-nogit-"), { timeoutMs: 50 });
    expect(killed).toEqual(["SIGKILL"]);
    expect(g.error).toBe("git did not answer within 50 ms");
    expect(g.head).toBeNull();
  });
});
