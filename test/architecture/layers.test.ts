// The layering and the dead-code rules as tests: dependency-cruiser checks the one-way flow of the README's
// Architecture on the real tree, and proves its rules bite on a copy with an upward import; knip finds unused code.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = process.cwd();
const BIN = (name: string) => join(ROOT, "node_modules", ".bin", name);

function depcruise(cwd: string): { status: number | null; out: string } {
  const r = spawnSync(BIN("depcruise"), ["src", "platform", "--config", ".dependency-cruiser.cjs", "--output-type", "err"], { cwd, encoding: "utf8" });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const copies: string[] = [];
afterAll(() => {
  for (const d of copies) rmSync(d, { recursive: true, force: true });
});

/** A copy of the source tree with node_modules linked, so a rule can be shown to fail without touching the real one. */
function copyTree(): string {
  const dir = mkdtempSync(join(tmpdir(), "cb-arch-"));
  copies.push(dir);
  for (const p of ["src", "platform", ".dependency-cruiser.cjs", "tsconfig.json", "package.json"]) cpSync(join(ROOT, p), join(dir, p), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  return dir;
}

describe("architecture", () => {
  it("follows the layering: nothing points back up, no cycles, only platform/ touches a runtime or SQLite driver", () => {
    const r = depcruise(ROOT);
    expect(r.out).not.toMatch(/error/);
    expect(r.status).toBe(0);
  });

  it("fails on a deliberately added upward import (store -> tasks) and on a cycle", () => {
    const dir = copyTree();
    const repo = join(dir, "src", "store", "repo.ts");
    writeFileSync(repo, `import { PROMPT_MAX_CHARS } from "../tasks/domain.ts";\nvoid PROMPT_MAX_CHARS;\n${readFileSync(repo, "utf8")}`);
    const r = depcruise(dir);
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/layer-store: src\/store\/repo\.ts → src\/tasks\/domain\.ts/);
    expect(r.out).toMatch(/no-circular/);
  });

  it("fails when the MCP layer reaches past the service (mcp -> views, mcp -> artifacts)", () => {
    const dir = copyTree();
    const f = join(dir, "src", "mcp", "tools", "render.ts");
    writeFileSync(f, `import { activity } from "../../views/activity.ts";\nimport { listFiles } from "../../artifacts/list.ts";\nvoid activity;\nvoid listFiles;\n${readFileSync(f, "utf8")}`);
    const r = depcruise(dir);
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/mcp-only-through-the-service: src\/mcp\/tools\/render\.ts → src\/views\/activity\.ts/);
    expect(r.out).toMatch(/mcp-only-through-the-service: src\/mcp\/tools\/render\.ts → src\/artifacts\/list\.ts/);
  });

  it("fails when source outside platform/ imports a child process or a SQLite driver", () => {
    const dir = copyTree();
    const f = join(dir, "src", "views", "diff-stat.ts");
    writeFileSync(f, `import { spawn } from "node:child_process";\nvoid spawn;\n${readFileSync(f, "utf8")}`);
    const r = depcruise(dir);
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/platform-only-runtime: src\/views\/diff-stat\.ts → (node:)?child_process/);
  });

  it("has no unused file, export or dependency (knip)", () => {
    let out = "";
    try {
      out = execFileSync(BIN("knip"), ["--no-progress"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      out = `${e.stdout ?? ""}${e.stderr ?? ""}` || String(err);
    }
    expect(out.trim()).toBe("");
  });
});

describe("every source file says what it holds", () => {
  it("opens with a comment in src/, platform/ and test/support/", () => {
    const files = execFileSync("git", ["ls-files", "src/**.ts", "platform/**.ts", "test/support/**.ts"], { cwd: ROOT, encoding: "utf8" })
      .split("\n")
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
    expect(files.length).toBeGreaterThan(50);
    const bare = files.filter((f) => !/^(\/\/|\/\*)/.test(readFileSync(join(ROOT, f), "utf8")));
    expect(bare).toEqual([]);
  });

  it("stays small enough to read: no file in src/ or platform/ over 400 lines", () => {
    const files = execFileSync("git", ["ls-files", "src/**.ts", "platform/**.ts"], { cwd: ROOT, encoding: "utf8" })
      .split("\n")
      .filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(50);
    const lines = (f: string) => readFileSync(join(ROOT, f), "utf8").split("\n").length - 1;
    const long = files.filter((f) => lines(f) > 400).map((f) => `${f}: ${lines(f)} lines`);
    expect(long).toEqual([]);
  });
});

describe("the README's Architecture section", () => {
  it("lists exactly the folders of src/ (and platform/), each once", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const section = readme.split("## Architecture")[1]?.split("\n## ")[0] ?? "";
    const listed = [...section.matchAll(/^\| `((?:src\/)?[a-z-]+)\/` \|/gm)].map((m) => m[1]);
    const actual = execFileSync("git", ["ls-files", "src", "platform"], { cwd: ROOT, encoding: "utf8" })
      .split("\n")
      .filter((f) => f.split("/").length > (f.startsWith("src/") ? 2 : 1))
      .map((f) => (f.startsWith("src/") ? f.split("/").slice(0, 2).join("/") : f.split("/")[0]));
    expect([...new Set(listed)].sort()).toEqual([...new Set(actual)].sort());
    expect(listed.length).toBe(new Set(listed).size);
  });

  it("names every subfolder of src/ in its folder's row", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const section = readme.split("## Architecture")[1]?.split("\n## ")[0] ?? "";
    const rowOf = (folder: string) => section.split("\n").find((l) => l.startsWith(`| \`src/${folder}/\` |`)) ?? "";
    const nested = execFileSync("git", ["ls-files", "src"], { cwd: ROOT, encoding: "utf8" })
      .split("\n")
      .filter((f) => f.split("/").length > 3)
      .map((f) => f.split("/").slice(1, 3));
    const missing = [...new Set(nested.map(([top, sub]) => `${top}/${sub}`))].filter((p) => !rowOf(p.split("/")[0]!).includes(`\`${p.split("/")[1]}/\``));
    expect(missing).toEqual([]);
  });
});
