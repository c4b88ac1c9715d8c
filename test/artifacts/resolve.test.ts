// Project path resolution against a hostile corpus (traversal, links out, sensitive files), and the descriptor
// checks that catch a file swapped after the check.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArtifactPathError, normalizeRelativePath, openProjectFile, resolveProjectPath } from "../../src/artifacts/resolve.ts";
import { DEFAULT_SENSITIVE_PATHS, sensitiveMatcher } from "../../src/artifacts/sensitive.ts";
import { tempDir } from "../support/temp-dir.ts";

const sensitive = [...DEFAULT_SENSITIVE_PATHS];
let base: string;
let root: string;
let outside: string;

beforeAll(() => {
  base = tempDir("cb-resolve-");
  root = path.join(base, "project");
  outside = path.join(base, "outside");
  fs.mkdirSync(path.join(root, "src"), { recursive: true });
  fs.mkdirSync(path.join(root, "keys"));
  fs.mkdirSync(path.join(root, "sub"));
  fs.mkdirSync(path.join(root, ".ssh"));
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(root, "src", "a.txt"), "hello\n");
  fs.writeFileSync(path.join(root, ".env"), "TOKEN=secret\n");
  fs.writeFileSync(path.join(root, ".env.local"), "TOKEN=secret\n");
  fs.writeFileSync(path.join(root, "keys", "id_rsa"), "-----BEGIN PRIVATE KEY-----\n");
  fs.writeFileSync(path.join(root, "keys", "server.pem"), "-----BEGIN CERTIFICATE-----\n");
  fs.writeFileSync(path.join(root, ".ssh", "config"), "Host x\n");
  fs.writeFileSync(path.join(outside, "secret.txt"), "outside secret\n");
  fs.symlinkSync("/etc/passwd", path.join(root, "link-passwd"));
  fs.symlinkSync(outside, path.join(root, "link-outside-dir"));
  fs.symlinkSync(path.join(root, "chain2"), path.join(root, "chain1"));
  fs.symlinkSync(path.join(root, "chain3"), path.join(root, "chain2"));
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "chain3"));
  fs.symlinkSync("chain-in2", path.join(root, "chain-in1"));
  fs.symlinkSync("src/a.txt", path.join(root, "chain-in2"));
  fs.symlinkSync(".env", path.join(root, "innocent.txt"));
  fs.symlinkSync("loop2", path.join(root, "loop1"));
  fs.symlinkSync("loop1", path.join(root, "loop2"));
  fs.symlinkSync("../outside/secret.txt", path.join(root, "rel-escape"));
  fs.symlinkSync("../..", path.join(root, "sub", "up"));
});

afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const long = "a".repeat(256);
const hostile: { p: string; code?: ArtifactPathError["code"] }[] = [
  // lexical traversal, in every spelling we know
  { p: "..", code: "traversal" },
  { p: "../outside/secret.txt", code: "traversal" },
  { p: "src/../../outside/secret.txt", code: "traversal" },
  { p: "src/../a.txt", code: "traversal" },
  { p: "..\\outside\\secret.txt", code: "traversal" },
  { p: "src\\..\\..\\outside", code: "traversal" },
  { p: "src/..\\../outside", code: "traversal" },
  { p: "%2e%2e/outside/secret.txt", code: "traversal" },
  { p: "%2E%2E%2Foutside%2Fsecret.txt", code: "traversal" },
  { p: "..%2foutside", code: "traversal" },
  { p: "..%5coutside", code: "traversal" },
  { p: "%252e%252e/outside", code: "traversal" },
  { p: "%25252e%25252e%25252f", code: "traversal" },
  { p: ".%2e/outside", code: "traversal" },
  { p: "%c0%ae%c0%ae/outside", code: "traversal" },
  { p: "%e0%80%ae%e0%80%ae/outside", code: "traversal" },
  { p: "src%c0%af..%c0%afoutside", code: "traversal" },
  // encodings that only some layer reads as the name shown: refused rather than guessed
  { p: "src/a\ud800.txt", code: "encoding" },
  { p: "src/\udc00a.txt", code: "encoding" },
  { p: "src/a\ufffd.txt", code: "encoding" },
  { p: "src%c0%afa.txt", code: "encoding" },
  { p: "src/%e0%80%afa.txt", code: "encoding" },
  { p: "%f0%80%80%aesrc", code: "encoding" },
  { p: "．．/outside", code: "traversal" },
  { p: "．．／outside", code: "traversal" },
  { p: "‥/outside", code: "traversal" },
  { p: "src/﹒﹒/﹒﹒/outside", code: "traversal" },
  { p: ".../outside", code: "traversal" },
  { p: ".. /outside", code: "traversal" },
  // absolute, UNC, drive
  { p: "/etc/passwd", code: "absolute" },
  { p: "\\etc\\passwd", code: "absolute" },
  { p: "~/.ssh/id_rsa", code: "absolute" },
  { p: "%2fetc%2fpasswd", code: "absolute" },
  { p: "\\\\server\\share\\file.txt", code: "unc" },
  { p: "//server/share/file.txt", code: "unc" },
  { p: "\\\\?\\C:\\Windows\\win.ini", code: "unc" },
  { p: "\\\\.\\PhysicalDrive0", code: "unc" },
  { p: "C:foo.txt", code: "drive" },
  { p: "C:\\Windows\\win.ini", code: "drive" },
  { p: "c:/windows/win.ini", code: "drive" },
  // NUL
  { p: "src/a.txt\0.png", code: "nul" },
  { p: "src/a.txt%00.png", code: "nul" },
  // devices
  { p: "CON", code: "device" },
  { p: "src/nul.txt", code: "device" },
  { p: "aux.tar.gz", code: "device" },
  { p: "COM1", code: "device" },
  { p: "lpt9.log", code: "device" },
  { p: "Com¹", code: "device" },
  { p: "PRN .txt", code: "device" },
  // alternate data streams and URLs
  { p: "src/a.txt:secret", code: "stream" },
  { p: "src/a.txt::$DATA", code: "stream" },
  { p: "file:///etc/passwd", code: "stream" },
  // length
  { p: long, code: "too_long" },
  { p: `src/${"b/".repeat(2100)}x`, code: "too_long" },
  // sensitive, with case and Windows-name tricks
  { p: ".env", code: "sensitive" },
  { p: ".ENV", code: "sensitive" },
  { p: ".Env.Local", code: "sensitive" },
  { p: ".env.", code: "sensitive" },
  { p: "./.env", code: "sensitive" },
  { p: "src/../.env", code: "traversal" },
  { p: "keys/ID_RSA", code: "sensitive" },
  { p: "keys/server.PEM", code: "sensitive" },
  { p: ".SSH/config", code: "sensitive" },
  { p: "%2eenv", code: "sensitive" },
  // symlinks leaving the project or reaching a sensitive file
  { p: "link-passwd", code: "outside" },
  { p: "link-outside-dir/secret.txt", code: "outside" },
  { p: "chain1", code: "outside" },
  { p: "rel-escape", code: "outside" },
  { p: "sub/up/outside/secret.txt", code: "outside" },
  { p: "innocent.txt", code: "sensitive" },
  { p: "loop1", code: "outside" },
];

describe("resolveProjectPath refuses hostile paths", () => {
  it("has a corpus of at least 40", () => {
    expect(hostile.length).toBeGreaterThanOrEqual(40);
  });

  for (const { p, code } of hostile) {
    it(`refuses ${JSON.stringify(p.length > 60 ? `${p.slice(0, 60)}...` : p)}`, () => {
      let err: unknown;
      try {
        resolveProjectPath(root, p, { sensitive });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ArtifactPathError);
      const e = err as ArtifactPathError;
      if (code) expect(e.code).toBe(code);
      // Nothing about the world outside the project leaks into the message.
      expect(e.message).not.toContain(base);
      expect(e.message).not.toContain("root:");
      expect(e.message).not.toContain("outside secret");
      if (!p.includes("/etc/")) expect(e.message).not.toContain("/etc");
    });
  }
});

describe("resolveProjectPath accepts ordinary paths", () => {
  it.each([
    ["src/a.txt", "src/a.txt"],
    ["./src/a.txt", "src/a.txt"],
    ["src//a.txt", "src/a.txt"],
    ["src\\a.txt", "src/a.txt"],
    ["chain-in1", "chain-in1"],
    ["", ""],
  ])("%j resolves inside", (input, rel) => {
    const r = resolveProjectPath(root, input, { sensitive });
    expect(r.rel).toBe(rel);
    expect(r.abs.startsWith(fs.realpathSync(root))).toBe(true);
  });

  it("follows an inside symlink chain to the real file", () => {
    const r = resolveProjectPath(root, "chain-in1", { sensitive });
    expect(r.abs).toBe(fs.realpathSync(path.join(root, "src", "a.txt")));
  });

  it("reports a missing file without its absolute location", () => {
    expect(() => resolveProjectPath(root, "src/missing.txt", { sensitive })).toThrow(/does not exist/);
    try {
      resolveProjectPath(root, "src/missing.txt", { sensitive });
    } catch (e) {
      expect((e as Error).message).not.toContain(base);
    }
  });
});

describe("openProjectFile checks the opened descriptor", () => {
  it("refuses a file swapped for a symlink to /etc/passwd after the check", () => {
    const victim = path.join(root, "src", "swap.txt");
    fs.writeFileSync(victim, "harmless\n");
    let swapped = false;
    expect(() =>
      openProjectFile(root, "src/swap.txt", {
        sensitive,
        beforeOpen: (abs) => {
          fs.rmSync(abs);
          fs.symlinkSync("/etc/passwd", abs);
          swapped = true;
        },
      }),
    ).toThrow(ArtifactPathError);
    expect(swapped).toBe(true);
    fs.rmSync(victim);
  });

  it("refuses a file replaced by another file (different inode) after the check", () => {
    const victim = path.join(root, "src", "swap2.txt");
    fs.writeFileSync(victim, "harmless\n");
    let err: unknown;
    try {
      openProjectFile(root, "src/swap2.txt", {
        sensitive,
        beforeOpen: (abs) => {
          const tmp = `${abs}.new`;
          fs.writeFileSync(tmp, "replaced\n");
          fs.renameSync(tmp, abs);
        },
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ArtifactPathError);
    expect((err as ArtifactPathError).code).toBe("changed");
    fs.rmSync(victim);
  });

  it("refuses a parent directory swapped for a symlink that leaves the project", () => {
    const dir = path.join(root, "swapdir");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "secret.txt"), "inside\n");
    let err: unknown;
    try {
      openProjectFile(root, "swapdir/secret.txt", {
        sensitive,
        beforeOpen: () => {
          fs.renameSync(dir, `${dir}.old`);
          fs.symlinkSync(outside, dir);
        },
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ArtifactPathError);
    expect((err as ArtifactPathError).message).not.toContain(outside);
    fs.rmSync(dir);
    fs.rmSync(`${dir}.old`, { recursive: true });
  });

  it("opens an ordinary file and hands back a descriptor", () => {
    const f = openProjectFile(root, "src/a.txt", { sensitive });
    try {
      expect(f.stat.size).toBe(6);
      expect(f.rel).toBe("src/a.txt");
    } finally {
      fs.closeSync(f.fd);
    }
  });

  it("refuses a FIFO without blocking", () => {
    const fifo = path.join(root, "src", "pipe");
    execFileSync("mkfifo", [fifo]);
    expect(() => openProjectFile(root, "src/pipe", { sensitive })).toThrow(/not a regular file/);
    fs.rmSync(fifo);
  });
});

describe("openProjectFile refuses hard links unless the project allows them", () => {
  it("refuses a hard link to a file outside the project, saying why and how to opt in", () => {
    fs.writeFileSync(path.join(outside, "linked-secret.txt"), "outside secret\n");
    fs.linkSync(path.join(outside, "linked-secret.txt"), path.join(root, "src", "hard.txt"));
    let err: unknown;
    try {
      openProjectFile(root, "src/hard.txt", { sensitive });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ArtifactPathError);
    const e = err as ArtifactPathError;
    expect(e.code).toBe("hard_link");
    expect(e.message).toMatch(/hard link/);
    expect(e.message).toContain("allow_hard_links = true");
    expect(e.message).not.toContain(base);
    const f = openProjectFile(root, "src/hard.txt", { sensitive, allowHardLinks: true });
    fs.closeSync(f.fd);
    expect(f.stat.nlink).toBe(2);
  });

  it("judges the opened descriptor: a file hard-linked after the check is refused too", () => {
    const victim = path.join(root, "src", "late-link.txt");
    fs.writeFileSync(victim, "harmless\n");
    expect(() =>
      openProjectFile(root, "src/late-link.txt", { sensitive, beforeOpen: (abs) => fs.linkSync(abs, path.join(outside, "late-link.txt")) }),
    ).toThrow(/hard link/);
  });
});

describe("openProjectFile refuses special files quickly", () => {
  const quickly = (fn: () => unknown): unknown => {
    const started = Date.now();
    let err: unknown;
    try {
      fn();
    } catch (e) {
      err = e;
    }
    expect(Date.now() - started).toBeLessThan(1000);
    return err;
  };

  it("a unix socket", async () => {
    const sock = path.join(root, "src", "app.sock");
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    try {
      const err = quickly(() => openProjectFile(root, "src/app.sock", { sensitive }));
      expect(err).toBeInstanceOf(ArtifactPathError);
      expect((err as Error).message).toMatch(/not a regular file/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("a device, through a symlink inside the project", () => {
    fs.symlinkSync("/dev/zero", path.join(root, "src", "zero"));
    const err = quickly(() => openProjectFile(root, "src/zero", { sensitive }));
    expect(err).toBeInstanceOf(ArtifactPathError);
    expect((err as ArtifactPathError).code).toBe("outside");
  });

  it("a FIFO swapped in after the check, without blocking on the open", () => {
    const victim = path.join(root, "src", "to-fifo.txt");
    fs.writeFileSync(victim, "harmless\n");
    const err = quickly(() =>
      openProjectFile(root, "src/to-fifo.txt", {
        sensitive,
        beforeOpen: (abs) => {
          fs.rmSync(abs);
          execFileSync("mkfifo", [abs]);
        },
      }),
    );
    expect(err).toBeInstanceOf(ArtifactPathError);
    expect((err as ArtifactPathError).code).toBe("changed");
    fs.rmSync(victim);
  });
});

// Names that hold credentials in the wild; each is refused under any case, at the root or deeper.
const SECRET_FILES = [
  "token.txt",
  "tokens.json",
  "password.txt",
  "passwords.txt",
  "service-account.json",
  "gcp-service-account.json",
  "serviceAccountKey.json",
  "client_secret_1234.apps.googleusercontent.com.json",
  ".htpasswd",
  "terraform.tfstate",
  "terraform.tfstate.backup",
  "prod.tfstate",
  "secrets.auto.tfvars",
  "kubeconfig",
  "kubeconfig.yaml",
  "cluster.kubeconfig",
  ".kube/config",
  "wallet.dat",
  ".aws/credentials",
  ".aws/config",
  ".config/gcloud/application_default_credentials.json",
  "gcloud/legacy_credentials/me@example.com/adc.json",
  ".azure/azureProfile.json",
  ".azure/msal_token_cache.json",
  "keystore.p12",
  "cert.pfx",
  "release.jks",
  "upload.keystore",
  "store.bks",
  "putty.ppk",
  "AuthKey_ABC123.p8",
  ".netrc",
  "_netrc",
  ".pgpass",
  ".my.cnf",
  ".docker/config.json",
  ".npmrc",
  ".pypirc",
  ".yarnrc.yml",
  ".vault-token",
  ".terraformrc",
  ".git-credentials",
  "secrets.yaml",
  "secrets.json",
  ".secrets",
  "id_ed25519",
  "id_ed25519_sk",
  "id_ecdsa",
  "id_rsa.pub",
  "ssh_host_ed25519_key",
  "vault.kdbx",
  ".git/config",
  "vendor/lib/.git/config",
  "prod.env",
  "wp-config.php",
];
const ORDINARY_FILES = ["src/token.ts", "src/tokenizer.ts", "src/auth/password.ts", "docs/kubeconfig.md", "infra/main.tf", "src/wallet.ts", "README.md"];

describe("the built-in sensitive list", () => {
  const variants = (p: string): string[] => [p, p.toUpperCase(), `deploy/${p}`, `a/b/${p.replace(/^[^/]*/, (first) => first[0].toUpperCase() + first.slice(1))}`];
  it.each(SECRET_FILES)("refuses %s in every case and depth", (p) => {
    for (const v of variants(p)) {
      let err: unknown;
      try {
        normalizeRelativePath(v, { sensitive });
      } catch (e) {
        err = e;
      }
      expect((err as ArtifactPathError | undefined)?.code, v).toBe("sensitive");
    }
  });

  it.each(ORDINARY_FILES)("still serves %s", (p) => {
    expect(normalizeRelativePath(p, { sensitive })).toBe(p);
  });

  it("is the list the config applies by default", async () => {
    const { DEFAULT_SENSITIVE_PATHS: fromConfig } = await import("../../src/config/schema.ts");
    expect([...fromConfig]).toEqual([...DEFAULT_SENSITIVE_PATHS]);
  });
});

describe("sensitive matching", () => {
  it("matches names anywhere, ancestors, and ignores case", () => {
    const m = sensitiveMatcher(["*.pem", ".env*", "secrets"]);
    expect(m("a/b/KEY.PEM")).toBe(true);
    expect(m("deploy/.Env.production")).toBe(true);
    expect(m("config/secrets/db.txt")).toBe(true);
    expect(m("config/secretsx/db.txt")).toBe(false);
    expect(m("src/environment.ts")).toBe(false);
  });

  it("matches a pattern with a slash at the root and below any directory, ignoring case; a leading / anchors it", () => {
    const m = sensitiveMatcher(["config/prod.yml", "private/**", "/build/keys"]);
    expect(m("config/prod.yml")).toBe(true);
    expect(m("Config/PROD.yml")).toBe(true);
    expect(m("apps/web/config/prod.yml")).toBe(true);
    expect(m("config/prod.yml.bak")).toBe(false);
    expect(m("private")).toBe(true);
    expect(m("private/notes/x.md")).toBe(true);
    expect(m("docs/Private/x.md")).toBe(true);
    expect(m("build/keys/a")).toBe(true);
    expect(m("BUILD/Keys")).toBe(true);
    expect(m("sub/build/keys")).toBe(false);
  });

  it("honours a configured list instead of the defaults", () => {
    expect(() => normalizeRelativePath("notes/private.md", { sensitive: ["private.*"] })).toThrow(/sensitive_paths/);
    expect(normalizeRelativePath(".env", { sensitive: [] })).toBe(".env");
  });
});
