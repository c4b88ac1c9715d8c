// Finding the native Codex binary behind npm launchers, pnpm shims, CODEX_BIN/CODEX_EXE and PATH, in fake install
// trees built in a temp directory (POSIX and Windows layouts).
import { beforeEach, describe, expect, it } from "vitest";
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findBundledCodex, locateCodex, type CodexLocation } from "../../src/codex/locate.ts";
import { tempDir } from "../support/temp-dir.ts";

let root: string;
beforeEach(() => {
  root = tempDir("locate-codex-");
});

function file(rel: string, content = "binary"): string {
  const p = join(root, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, content);
  chmodSync(p, 0o755);
  return p;
}

/** An npm global install: prefix/lib/node_modules/@openai/codex with its platform package nested inside. */
function npmInstall(prefix: string, platformPkg: string, triple: string, exe: string): { launcher: string; native: string } {
  const pkg = `${prefix}/node_modules/@openai/codex`;
  const launcher = file(`${pkg}/bin/codex.js`, "#!/usr/bin/env node\n");
  const native = file(`${pkg}/node_modules/@openai/${platformPkg}/vendor/${triple}/bin/${exe}`);
  return { launcher, native };
}

function found(result: ReturnType<typeof locateCodex>): CodexLocation {
  if ("error" in result) throw new Error(`expected a location, got error: ${result.error}`);
  return result;
}

describe("locateCodex", () => {
  it("follows a PATH symlink to the npm launcher to the native binary", () => {
    const { launcher, native } = npmInstall("lib", "codex-linux-x64", "x86_64-unknown-linux-musl", "codex");
    mkdirSync(join(root, "bin"));
    symlinkSync(launcher, join(root, "bin", "codex"));
    const loc = found(locateCodex({ env: { PATH: `${join(root, "empty")}:${join(root, "bin")}` }, platform: "linux", arch: "x64" }));
    expect(loc).toEqual({ path: native, source: "npm-native", launcher: join(root, "bin", "codex") });
  });

  it("finds the platform package hoisted beside @openai/codex (node_modules/.bin layout)", () => {
    const launcher = file("proj/node_modules/@openai/codex/bin/codex.js", "#!/usr/bin/env node\n");
    const native = file("proj/node_modules/@openai/codex-darwin-arm64/vendor/aarch64-apple-darwin/bin/codex");
    mkdirSync(join(root, "proj/node_modules/.bin"));
    symlinkSync("../@openai/codex/bin/codex.js", join(root, "proj/node_modules/.bin/codex"));
    const loc = found(locateCodex({ env: { PATH: join(root, "proj/node_modules/.bin") }, platform: "darwin", arch: "arm64" }));
    expect(loc.path).toBe(native);
    expect(loc.source).toBe("npm-native");
    expect(existsSync(launcher)).toBe(true);
  });

  it("follows a pnpm-style shell shim that names the launcher", () => {
    const { native } = npmInstall("store", "codex-linux-arm64", "aarch64-unknown-linux-musl", "codex");
    file("bin/codex", `#!/bin/sh\nbasedir=$(dirname "$0")\nexec node "$basedir/../store/node_modules/@openai/codex/bin/codex.js" "$@"\n`);
    const loc = found(locateCodex({ env: { PATH: join(root, "bin") }, platform: "linux", arch: "arm64" }));
    expect(loc.path).toBe(native);
  });

  it("returns a plain codex binary on PATH as it is", () => {
    const bin = file("usr/bin/codex");
    expect(locateCodex({ env: { PATH: join(root, "usr/bin") }, platform: "linux", arch: "x64" })).toEqual({ path: bin, source: "PATH" });
  });

  it("prefers CODEX_BIN, then CODEX_EXE, over PATH", () => {
    const a = file("a/codex");
    const b = file("b/codex");
    file("c/codex");
    const PATH = join(root, "c");
    expect(locateCodex({ env: { CODEX_BIN: a, CODEX_EXE: b, PATH }, platform: "linux", arch: "x64" })).toEqual({ path: a, source: "CODEX_BIN" });
    expect(locateCodex({ env: { CODEX_EXE: b, PATH }, platform: "linux", arch: "x64" })).toEqual({ path: b, source: "CODEX_EXE" });
  });

  it("reports CODEX_BIN pointing to a missing file instead of silently using PATH", () => {
    file("c/codex");
    const missing = join(root, "nowhere", "codex");
    const result = locateCodex({ env: { CODEX_BIN: missing, PATH: join(root, "c") }, platform: "linux", arch: "x64" });
    expect(result).toHaveProperty("error");
    expect((result as { error: string }).error).toContain(missing);
    expect((result as { error: string }).error).toContain("CODEX_BIN");
  });

  it("says to install Codex or set CODEX_BIN when nothing is found", () => {
    const result = locateCodex({ env: { PATH: join(root, "empty") }, platform: "linux", arch: "x64" });
    expect((result as { error: string }).error).toMatch(/Install Codex.*CODEX_BIN/);
  });

  it("names the launcher when its native package is missing", () => {
    const launcher = file("lib/node_modules/@openai/codex/bin/codex.js", "#!/usr/bin/env node\n");
    mkdirSync(join(root, "bin"));
    symlinkSync(launcher, join(root, "bin", "codex"));
    const result = locateCodex({ env: { PATH: join(root, "bin") }, platform: "linux", arch: "x64" });
    expect((result as { error: string }).error).toContain(launcher);
  });

  describe("on win32", () => {
    it("never returns the npm .cmd shim: resolves the native codex.exe behind it", () => {
      const { native } = npmInstall("npm", "codex-win32-x64", "x86_64-pc-windows-msvc", "codex.exe");
      file("npm/codex.cmd", '@ECHO off\r\nGOTO start\r\n:start\r\n"%_prog%"  "%dp0%\\node_modules\\@openai\\codex\\bin\\codex.js" %*\r\n');
      file("npm/codex.ps1", '& "node$exe"  "$basedir/node_modules/@openai/codex/bin/codex.js" $args\n');
      const loc = found(locateCodex({ env: { PATH: `${join(root, "npm")};${join(root, "other")}` }, platform: "win32", arch: "x64" }));
      expect(loc.path).toBe(native);
      expect(loc.source).toBe("npm-native");
      expect(loc.path.endsWith("codex.exe")).toBe(true);
    });

    it("prefers codex.exe in a PATH directory", () => {
      const exe = file("tools/codex.exe");
      file("tools/codex.cmd", "@echo off\r\n");
      expect(locateCodex({ env: { Path: join(root, "tools") }, platform: "win32", arch: "x64", pathExt: ".COM;.EXE;.CMD" })).toEqual({
        path: exe,
        source: "PATH",
      });
    });

    it("skips a shim with no native binary and reports nothing usable", () => {
      file("npm/codex.cmd", "@echo off\r\necho not codex\r\n");
      const result = locateCodex({ env: { PATH: join(root, "npm") }, platform: "win32", arch: "x64" });
      expect((result as { error: string }).error).toMatch(/not found/);
    });

    it("rejects CODEX_BIN set to a .cmd shim it cannot see through", () => {
      const shim = file("npm/codex.cmd", "@echo off\r\n");
      const result = locateCodex({ env: { CODEX_BIN: shim }, platform: "win32", arch: "x64" });
      expect((result as { error: string }).error).toMatch(/codex\.exe/);
    });
  });
});

describe("findBundledCodex", () => {
  it("finds the dev-dependency's native binary for this machine", () => {
    const projectRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
    const bin = findBundledCodex(projectRoot);
    expect(bin).toBeDefined();
    expect(existsSync(bin as string)).toBe(true);
    expect(bin).toMatch(/vendor[\\/][^\\/]+[\\/]bin[\\/]codex(\.exe)?$/);
  });

  it("is undefined where @openai/codex is not installed", () => {
    expect(findBundledCodex(root)).toBeUndefined();
  });
});
