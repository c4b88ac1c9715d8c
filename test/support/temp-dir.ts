// Test support: the one way tests get a scratch directory, so that none is left behind: each is removed after its
// test, or after the file's last test when made outside a test (beforeAll, a describe body).
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, onTestFinished } from "vitest";

const fileScoped = new Set<string>();

// Registered when a test file first imports this module, so it runs after that file's own afterAll hooks
// (after-hooks run in reverse order): whatever they still needed from the directories is done by then.
afterAll(() => {
  for (const dir of fileScoped) rmSync(dir, { recursive: true, force: true });
  fileScoped.clear();
});

/**
 * A fresh, empty directory under the OS temp dir, as a real (symlink-free) path. Made inside a test (or its
 * beforeEach/afterEach) it is removed when that test finishes; made anywhere else, after the file's last test.
 */
export function tempDir(prefix = "codex-bridge-test-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  try {
    onTestFinished(() => removeTempDir(dir));
  } catch {
    // Not inside a test: it lives as long as the file's tests.
    fileScoped.add(dir);
  }
  return dir;
}

/** Removes a directory made by tempDir now, before its automatic removal (which then has nothing to do). */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  fileScoped.delete(dir);
}
