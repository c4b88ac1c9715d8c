// Read-only Git facts the bridge gathers itself, so a result's evidence does not rest on Codex's word alone.
import type { ChildHandle, Platform } from "../../platform/types.ts";
import { missingDirectory } from "../config/settings.ts";

export const GIT_STATUS_MAX_LINES = 50;
const DEFAULT_TIMEOUT_MS = 10_000;
// Enough for any HEAD, branch or shortstat; a runaway command is cut here instead of filling memory.
const MAX_CAPTURE_CHARS = 64_000;

export interface GitChecks {
  head: string | null;
  branch: string | null;
  /** `git status --porcelain` lines, at most GIT_STATUS_MAX_LINES. */
  status: string[];
  status_count: number;
  /** `git diff-index --shortstat HEAD` (plumbing: unlike `git diff` it never rewrites the index); untracked files show only in status. */
  diff_stat: string | null;
  error?: string;
}

interface GitRun {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Lines seen on stdout, whether kept or not. */
  lines: number;
  kept: string[];
}

// Repository config can name programs git would run (fsmonitor hooks, external diff, textconv);
// these switches keep a check from executing anything the project chose.
const SAFE_CONFIG = ["-c", "core.fsmonitor=false", "-c", "core.quotepath=off", "-c", "color.ui=false"];

function gitEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return {
    ...env,
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    PAGER: "cat",
    // Messages are matched below ("not a git repository"), so they must not be translated.
    LC_ALL: "C",
    LANGUAGE: "C",
  };
}

function runGit(platform: Platform, cwd: string, args: string[], deadline: number, keepLines = 0): Promise<GitRun> {
  return new Promise((resolve) => {
    let child: ChildHandle;
    try {
      child = platform.spawn("git", ["--no-pager", ...SAFE_CONFIG, ...args], { cwd, env: gitEnv() });
    } catch (err) {
      resolve({ code: null, stdout: "", stderr: err instanceof Error ? err.message : String(err), timedOut: false, lines: 0, kept: [] });
      return;
    }
    child.endStdin();
    let stdout = "";
    let stderr = "";
    let partial = "";
    let lines = 0;
    const kept: string[] = [];
    const takeLine = (line: string): void => {
      if (line === "") return;
      lines++;
      if (kept.length < keepLines) kept.push(line);
    };
    child.onStdout((chunk) => {
      if (keepLines > 0) {
        const parts = (partial + chunk).split("\n");
        partial = parts.pop() ?? "";
        for (const p of parts) takeLine(p);
      } else if (stdout.length < MAX_CAPTURE_CHARS) {
        stdout += chunk.slice(0, MAX_CAPTURE_CHARS - stdout.length);
      }
    });
    child.onStderr((chunk) => {
      if (stderr.length < MAX_CAPTURE_CHARS) stderr += chunk.slice(0, MAX_CAPTURE_CHARS - stderr.length);
    });
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        child.killTree("SIGKILL");
      },
      Math.max(0, deadline - Date.now()),
    );
    child.onExit((exit) => {
      clearTimeout(timer);
      if (partial) takeLine(partial);
      resolve({ code: exit.code, stdout, stderr, timedOut, lines, kept });
    });
  });
}

function describeFailure(r: GitRun, timeoutMs: number): string {
  if (r.timedOut) return `git did not answer within ${timeoutMs} ms`;
  if (/not a git repository/i.test(r.stderr)) return "not a Git repository";
  const first = r.stderr.trim().split("\n")[0] ?? "";
  if (r.code === null && !r.stderr) return "git could not be run";
  return first ? `git failed: ${first}` : `git exited with code ${r.code}`;
}

/**
 * HEAD, branch, porcelain status and diff stat of the working tree at `cwd`. Never throws and never writes:
 * optional locks are off, so even `git status` leaves the index alone.
 */
export async function runGitChecks(platform: Platform, cwd: string, opts: { timeoutMs?: number } = {}): Promise<GitChecks> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  const out: GitChecks = { head: null, branch: null, status: [], status_count: 0, diff_stat: null };
  // A project moved or deleted: say that, not what spawning git in a missing directory looks like ("git not found").
  const missing = missingDirectory(cwd);
  if (missing) return { ...out, error: missing };

  const top = await runGit(platform, cwd, ["rev-parse", "--is-inside-work-tree"], deadline);
  if (top.code !== 0 || top.stdout.trim() !== "true") {
    out.error = top.code === 0 ? "not inside a Git working tree" : describeFailure(top, timeoutMs);
    return out;
  }

  // A repository without commits has no HEAD; that is a fact to report, not an error.
  const head = await runGit(platform, cwd, ["rev-parse", "--verify", "--quiet", "HEAD"], deadline);
  if (head.timedOut) return { ...out, error: describeFailure(head, timeoutMs) };
  if (head.code === 0) out.head = head.stdout.trim() || null;

  const branch = await runGit(platform, cwd, ["symbolic-ref", "--quiet", "--short", "HEAD"], deadline);
  if (branch.timedOut) return { ...out, error: describeFailure(branch, timeoutMs) };
  if (branch.code === 0) out.branch = branch.stdout.trim() || null;

  const status = await runGit(platform, cwd, ["status", "--porcelain=v1", "--untracked-files=normal"], deadline, GIT_STATUS_MAX_LINES);
  if (status.code !== 0) return { ...out, error: describeFailure(status, timeoutMs) };
  out.status = status.kept;
  out.status_count = status.lines;

  if (out.head) {
    const stat = await runGit(platform, cwd, ["diff-index", "--no-ext-diff", "--no-textconv", "--shortstat", "HEAD"], deadline);
    if (stat.code !== 0) return { ...out, error: describeFailure(stat, timeoutMs) };
    out.diff_stat = stat.stdout.trim() || null;
  }
  return out;
}

