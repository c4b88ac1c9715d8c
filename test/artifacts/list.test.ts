// listFiles: links leaving the project and links to sensitive files are left out, symlinked directories are not
// descended, depth and count are bounded.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listFiles } from "../../src/artifacts/list.ts";
import { DEFAULT_SENSITIVE_PATHS } from "../../src/artifacts/sensitive.ts";
import { tempDir } from "../support/temp-dir.ts";

const sensitive = [...DEFAULT_SENSITIVE_PATHS];
let base: string;
let root: string;

beforeAll(() => {
  base = tempDir("cb-list-");
  root = path.join(base, "p");
  fs.mkdirSync(path.join(root, "a", "b", "c"), { recursive: true });
  fs.writeFileSync(path.join(root, "a", "b", "c", "deep.txt"), "x");
  fs.writeFileSync(path.join(root, "a", "one.md"), "# one");
  fs.writeFileSync(path.join(base, "outside.txt"), "secret");
  fs.writeFileSync(path.join(root, "id_ed25519"), "key");
  fs.symlinkSync(path.join(base, "outside.txt"), path.join(root, "escape.txt"));
  fs.symlinkSync("/etc", path.join(root, "etc-link"));
  fs.symlinkSync("a/one.md", path.join(root, "inside-link.md"));
  fs.symlinkSync("id_ed25519", path.join(root, "key-link"));
  fs.symlinkSync(".", path.join(root, "a", "self"));
});

afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe("listFiles", () => {
  it("omits symlinks leaving the project and links to sensitive files, keeps inside links", () => {
    const r = listFiles(root, { recursive: true, sensitive });
    const paths = r.entries.map((e) => e.path);
    expect(paths).toEqual(["a", "a/b", "a/b/c", "a/b/c/deep.txt", "a/one.md", "a/self", "inside-link.md"]);
    const link = r.entries.find((e) => e.path === "inside-link.md")!;
    expect(link.kind).toBe("symlink");
    expect(link.size).toBe(5);
    expect(link.mime).toBe("text/markdown");
    expect(r.truncated).toBeUndefined();
  });

  it("does not descend symlinked directories (no loops) and bounds depth and count", () => {
    const shallow = listFiles(root, { recursive: true, sensitive, maxDepth: 2 });
    expect(shallow.entries.map((e) => e.path)).not.toContain("a/b/c/deep.txt");
    expect(shallow.truncated).toBe(true);
    const few = listFiles(root, { recursive: true, sensitive, maxVisited: 3 });
    expect(few.truncated).toBe(true);
    expect(few.total).toBeLessThanOrEqual(3);
  });

  it("refuses to list outside the project", () => {
    expect(() => listFiles(root, { path: "etc-link", sensitive })).toThrow(/outside the project/);
    expect(() => listFiles(root, { path: "..", sensitive })).toThrow(/not allowed/);
  });
});
