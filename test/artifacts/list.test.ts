// listFiles: links leaving the project and links to sensitive files are left out, symlinked directories are not
// descended, depth and count are bounded.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listFiles } from "../../src/artifacts/list.ts";
import { resolveProjectPath } from "../../src/artifacts/resolve.ts";
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

describe("listFiles hides secret files under any case", () => {
  // On a case-sensitive file system each spelling is a file of its own, so each must be hidden on its own.
  const secrets = ["Token.txt", "PASSWORD.TXT", "Service-Account.json", ".HTPASSWD", "infra/Terraform.tfstate", "infra/terraform.tfstate.BACKUP", "Kubeconfig", ".Kube/config", "Wallet.DAT", ".AWS/credentials", "gcloud/Application_Default_Credentials.json", "keys/app.P12", ".Docker/config.json", "Secrets.yaml", "ID_ED25519"];
  let dir: string;
  beforeAll(() => {
    dir = path.join(base, "secrets");
    for (const rel of [...secrets, "src/token.ts", "infra/main.tf"]) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), "x");
    }
  });

  it("lists none of them, and reading each is refused", () => {
    const paths = listFiles(dir, { recursive: true, sensitive }).entries.map((e) => e.path);
    expect(paths.filter((p) => !fs.statSync(path.join(dir, p)).isDirectory())).toEqual(["infra/main.tf", "src/token.ts"]);
    for (const rel of secrets) expect(() => resolveProjectPath(dir, rel, { sensitive }), rel).toThrow(/sensitive_paths/);
  });
});

describe("a symlink to the project root or an ancestor inside it", () => {
  // `alias -> .` spells every file a second way; what the root hides stays hidden under every spelling.
  let dir: string;
  const withPrivate = [...sensitive, "/private/**"];
  beforeAll(() => {
    dir = path.join(base, "aliased");
    fs.mkdirSync(path.join(dir, "src", "deep"), { recursive: true });
    fs.mkdirSync(path.join(dir, "private"));
    fs.mkdirSync(path.join(dir, ".git"));
    fs.writeFileSync(path.join(dir, "src", "a.txt"), "a");
    fs.writeFileSync(path.join(dir, ".env"), "TOKEN=1");
    fs.writeFileSync(path.join(dir, "private", "plan.md"), "p");
    fs.writeFileSync(path.join(dir, ".git", "config"), "[remote] url = https://user:token@example.com/x.git");
    fs.writeFileSync(path.join(dir, ".git", "HEAD"), "ref: refs/heads/main");
    fs.symlinkSync(".", path.join(dir, "alias"));
    fs.symlinkSync("../..", path.join(dir, "src", "deep", "up"));
    fs.symlinkSync(".git", path.join(dir, "gitlink"));
  });

  it("listing through it shows no more than the root shows", () => {
    const direct = listFiles(dir, { recursive: true, sensitive: withPrivate }).entries.map((e) => e.path);
    // gitlink -> .git is another spelling of .git, which listings leave out.
    expect(direct).toEqual(["alias", "src", "src/a.txt", "src/deep", "src/deep/up"]);
    for (const via of ["alias", "src/deep/up", "alias/alias/src/deep/up"]) {
      const listed = listFiles(dir, { path: via, recursive: true, sensitive: withPrivate }).entries.map((e) => e.path);
      expect(listed, via).toEqual(direct.map((p) => `${via}/${p}`));
    }
  });

  it("listing a directory reached through a link hides its secrets by their real path", () => {
    const listed = listFiles(dir, { path: "gitlink", sensitive: withPrivate }).entries.map((e) => e.path);
    expect(listed).not.toContain("gitlink/config");
    expect(() => listFiles(dir, { path: "alias/private", sensitive: withPrivate })).toThrow(/sensitive_paths/);
  });

  it("reading through it is refused for what the root refuses", () => {
    for (const rel of ["alias/.env", "alias/private/plan.md", "src/deep/up/private/plan.md", "alias/.git/config", "gitlink/config"]) {
      expect(() => resolveProjectPath(dir, rel, { sensitive: withPrivate }), rel).toThrow(/sensitive_paths/);
    }
    expect(resolveProjectPath(dir, "alias/src/a.txt", { sensitive: withPrivate }).rel).toBe("alias/src/a.txt");
  });

  it("a recursive listing does not walk the same directory twice", () => {
    const r = listFiles(dir, { path: "alias", recursive: true, sensitive: withPrivate, maxDepth: 64 });
    expect(r.truncated).toBeUndefined();
    expect(new Set(r.entries.map((e) => e.path)).size).toBe(r.entries.length);
  });
});

describe("links that the file system reports as plain directories and files", () => {
  // Windows junctions and mount points, and Wine's view of a Unix symlink, look like plain directories to lstat: a
  // stat that follows links gives the same view here. The listing must judge each entry by its real path, as reads do.
  const linksLookPlain = (p: string): fs.Stats => fs.statSync(p);

  it("a recursive listing neither lists nor enters anything whose real path is outside the project", () => {
    const r = listFiles(root, { recursive: true, sensitive, lstat: linksLookPlain });
    const paths = r.entries.map((e) => e.path);
    expect(paths.filter((p) => p.startsWith("etc-link"))).toEqual([]);
    expect(paths).not.toContain("escape.txt");
    expect(paths).not.toContain("key-link");
    expect(paths).toEqual(expect.arrayContaining(["a/b/c/deep.txt", "a/one.md", "inside-link.md"]));
    expect(() => listFiles(root, { path: "etc-link", sensitive, lstat: linksLookPlain })).toThrow(/outside the project/);
  });

  it("a directory link inside the project is walked once, by its real path", () => {
    const r = listFiles(root, { recursive: true, sensitive, lstat: linksLookPlain, maxDepth: 64 });
    expect(r.truncated).toBeUndefined();
    expect(r.entries.map((e) => e.path).filter((p) => p.startsWith("a/self/"))).toEqual([]);
  });
});
