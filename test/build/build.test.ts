// Builds the linux-x64 executable once, into temp dirs, and checks it the way a user downloading it would.
// The output dir starts with other targets' executables and stale sums, as after an earlier build, to check that a
// partial build keeps them and lists every executable present in SHA256SUMS.
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import packageJson from "../../package.json" with { type: "json" };
import { BUNDLE_RUNTIME_TARGET, PLACEHOLDERS } from "../../build.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const BUN = path.join(ROOT, "node_modules", ".bin", "bun");
const onLinuxX64 = process.platform === "linux" && process.arch === "x64";
const hasStrace = spawnSync("strace", ["-V"]).status === 0;

interface ReleaseInfo {
  version: string;
  fingerprint: string;
  builtAt: string;
  binaries: { target: string; file: string; bytes: number; sha256: string; fingerprint: string | null; builtAt: string | null }[];
}

let work: string;
let distDir: string;
let outDir: string;
let binary: string;
let release: ReleaseInfo;

// What an earlier build left in the output dir: two other targets' executables (one described by the earlier
// BUILD-INFO.json, one changed since), a stale linux-x64, and sums listing an executable that is gone.
const EARLIER_FINGERPRINT = "e".repeat(64);
const KEPT: Record<string, Buffer> = {
  "codex-bridge-darwin-arm64": Buffer.from("darwin-arm64 executable from an earlier build\n"),
  "codex-bridge-windows-x64.exe": Buffer.from("windows-x64 executable, replaced by hand since\n"),
};
const STALE_LINUX = Buffer.from("stale linux-x64 executable\n");

function seedEarlierBuild(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, data] of Object.entries(KEPT)) fs.writeFileSync(path.join(dir, name), data, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, "codex-bridge-linux-x64"), STALE_LINUX, { mode: 0o755 });
  fs.writeFileSync(
    path.join(dir, "SHA256SUMS"),
    [
      `${"0".repeat(64)}  codex-bridge-darwin-arm64`,
      `${sha256(STALE_LINUX)}  codex-bridge-linux-x64`,
      `${"1".repeat(64)}  codex-bridge-linux-arm64`,
      "",
    ].join("\n"),
  );
  const earlier = {
    version: "0.0.1",
    fingerprint: EARLIER_FINGERPRINT,
    builtAt: "2020-01-01T00:00:00.000Z",
    binaries: [
      { target: "darwin-arm64", file: "codex-bridge-darwin-arm64", bytes: 1, sha256: sha256(KEPT["codex-bridge-darwin-arm64"]) },
      { target: "windows-x64", file: "codex-bridge-windows-x64.exe", bytes: 1, sha256: "2".repeat(64) },
      { target: "linux-arm64", file: "codex-bridge-linux-arm64", bytes: 1, sha256: "1".repeat(64) },
    ],
  };
  fs.writeFileSync(path.join(dir, "BUILD-INFO.json"), JSON.stringify(earlier));
}

function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function buildScript(args: string[]): SpawnSyncReturns<string> {
  return spawnSync(BUN, ["build.ts", ...args], { cwd: ROOT, encoding: "utf8", timeout: 600_000 });
}

/** Runs a program the way a user's shell would with a bare environment, from a dir with no node_modules. */
function runBare(program: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync("env", ["-i", "PATH=/usr/bin:/bin", program, ...args], { cwd, encoding: "utf8", timeout: 60_000 });
}

function freshDir(name: string): string {
  return fs.mkdtempSync(path.join(work, `${name}-`));
}

describe.skipIf(!onLinuxX64)("build.ts --target linux-x64", () => {
  beforeAll(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "codex-bridge-buildtest-"));
    distDir = path.join(work, "dist");
    outDir = path.join(work, "dist-binaries");
    seedEarlierBuild(outDir);
    const res = buildScript(["--target", "linux-x64", "--dist", distDir, "--out", outDir]);
    if (res.status !== 0) throw new Error(`build failed (${res.status}):\n${res.stdout}\n${res.stderr}`);
    binary = path.join(outDir, "codex-bridge-linux-x64");
    release = JSON.parse(fs.readFileSync(path.join(outDir, "BUILD-INFO.json"), "utf8")) as ReleaseInfo;
  }, 600_000);

  afterAll(() => {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it("rebuilds only the requested executable and keeps the other targets' ones", () => {
    const names = fs.readdirSync(outDir).sort();
    expect(names).toEqual(["BUILD-INFO.json", "SHA256SUMS", "codex-bridge-darwin-arm64", "codex-bridge-linux-x64", "codex-bridge-windows-x64.exe"]);
    for (const [name, data] of Object.entries(KEPT)) expect(fs.readFileSync(path.join(outDir, name)).equals(data), name).toBe(true);
    expect(sha256(fs.readFileSync(binary))).not.toBe(sha256(STALE_LINUX));
  });

  it("lists every executable present in SHA256SUMS with its real hash, and none that is gone", () => {
    const sums = fs.readFileSync(path.join(outDir, "SHA256SUMS"), "utf8");
    const lines = sums.trimEnd().split("\n");
    const names = ["codex-bridge-darwin-arm64", "codex-bridge-linux-x64", "codex-bridge-windows-x64.exe"];
    expect(lines.map((l) => l.split("  ")[1])).toEqual(names);
    for (const line of lines) {
      const [hash, name] = line.split("  ");
      expect(hash, name).toBe(sha256(fs.readFileSync(path.join(outDir, name))));
    }
    // The format sha256sum -c reads.
    const check = spawnSync("sha256sum", ["-c", "SHA256SUMS"], { cwd: outDir, encoding: "utf8" });
    expect(check.status, check.stderr).toBe(0);
    for (const name of names) expect(check.stdout).toContain(`${name}: OK`);
  });

  it("describes every executable present in BUILD-INFO.json, naming the build each one came from when known", () => {
    const byFile = Object.fromEntries(release.binaries.map((b) => [b.file, b]));
    expect(Object.keys(byFile).sort()).toEqual(["codex-bridge-darwin-arm64", "codex-bridge-linux-x64", "codex-bridge-windows-x64.exe"]);
    for (const b of release.binaries) expect(b.sha256, b.file).toBe(sha256(fs.readFileSync(path.join(outDir, b.file))));
    expect(byFile["codex-bridge-linux-x64"]).toMatchObject({ target: "linux-x64", fingerprint: release.fingerprint, builtAt: release.builtAt });
    expect(byFile["codex-bridge-darwin-arm64"]).toMatchObject({ target: "darwin-arm64", fingerprint: EARLIER_FINGERPRINT });
    // Its bytes no longer match the earlier record, so nothing vouches for which build wrote it.
    expect(byFile["codex-bridge-windows-x64.exe"]).toMatchObject({ target: "windows-x64", fingerprint: null, builtAt: null });
  });

  it("records a fingerprint that is the SHA-256 of the bundled code", () => {
    expect(release.version).toBe(packageJson.version);
    expect(release.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    const bundle = fs.readFileSync(path.join(distDir, "codex-bridge.mjs"), "utf8");
    // Undo the three substitutions build.ts made after hashing, then hash again.
    const substituted = [release.fingerprint, release.builtAt, BUNDLE_RUNTIME_TARGET].map((v) => JSON.stringify(v));
    for (const literal of substituted) {
      const why = `${literal} should occur once in the bundle (does src/cli/main.ts import src/build-info.ts?)`;
      expect(bundle.split(literal).length - 1, why).toBe(1);
    }
    const restored = bundle
      .split(JSON.stringify(release.fingerprint))
      .join(JSON.stringify(PLACEHOLDERS.fingerprint))
      .split(JSON.stringify(release.builtAt))
      .join(JSON.stringify(PLACEHOLDERS.builtAt))
      .split(JSON.stringify(BUNDLE_RUNTIME_TARGET))
      .join(JSON.stringify(PLACEHOLDERS.runtimeTarget));
    expect(sha256(restored)).toBe(release.fingerprint);
  });

  it("runs --version with no node_modules, no bun and an empty environment, printing version and fingerprint", () => {
    const home = freshDir("bare");
    const copy = path.join(home, "codex-bridge");
    fs.copyFileSync(binary, copy);
    fs.chmodSync(copy, 0o755);
    const res = runBare(copy, ["--version"], home);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain(packageJson.version);
    expect(res.stdout).toContain(release.fingerprint);
  });

  it("the Node bundle reports the same version and fingerprint", () => {
    const res = spawnSync(process.execPath, [path.join(distDir, "codex-bridge.mjs"), "--version"], {
      cwd: freshDir("node"),
      encoding: "utf8",
    });
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain(packageJson.version);
    expect(res.stdout).toContain(release.fingerprint);
  });

  it("ignores a broken bunfig.toml and a .env in the working directory", () => {
    const cwd = freshDir("hostile-cwd");
    const reference = runBare(binary, ["--version"], freshDir("clean-cwd"));
    fs.writeFileSync(path.join(cwd, ".env"), "CODEX_BIN=/nonexistent/codex\nCODEX_BRIDGE_CONFIG=/nonexistent.toml\n");
    // A compiled binary that loaded this would stop with "failed to load bunfig".
    fs.writeFileSync(path.join(cwd, "bunfig.toml"), 'preload = ["./missing.ts"]\nbroken =\n');
    const res = runBare(binary, ["--version"], cwd);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toBe(reference.stdout);
    expect(res.stderr).not.toContain("bunfig");
  });

  it.skipIf(!hasStrace)("never opens .env or bunfig.toml (strace), while a default bun binary does", () => {
    const cwd = freshDir("strace-cwd");
    fs.writeFileSync(path.join(cwd, ".env"), "SOME_VAR=1\n");
    fs.writeFileSync(path.join(cwd, "bunfig.toml"), "");
    const opened = (program: string): string[] => {
      const log = path.join(work, `strace-${path.basename(program)}.log`);
      const res = spawnSync("strace", ["-f", "-qq", "-e", "trace=%file", "-o", log, program, "--version"], {
        cwd,
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(res.status, res.stderr).toBe(0);
      return fs
        .readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => /"(?:[^"]*\/)?(?:\.env|bunfig\.toml)"/.test(l));
    };
    // Control: the same compiler without the two flags does read them, so the probe can see a regression.
    const probeDir = freshDir("control");
    fs.writeFileSync(path.join(probeDir, "probe.mjs"), "console.log('probe');\n");
    const control = path.join(probeDir, "probe");
    const built = spawnSync(BUN, ["build", "probe.mjs", "--compile", `--outfile=${control}`], {
      cwd: probeDir,
      encoding: "utf8",
      timeout: 300_000,
    });
    expect(built.status, built.stderr).toBe(0);
    expect(opened(control).length).toBeGreaterThan(0);
    fs.rmSync(control, { force: true });

    expect(opened(binary)).toEqual([]);
  });

  it("builds the same fingerprint again from the same source (deterministic)", () => {
    const again = freshDir("dist-again");
    const res = buildScript(["--bundle-only", "--dist", again]);
    expect(res.status, res.stderr).toBe(0);
    const info = JSON.parse(fs.readFileSync(path.join(again, "build-info.json"), "utf8")) as { fingerprint: string };
    expect(info.fingerprint).toBe(release.fingerprint);
  });

  it("fails loudly on an unknown target", () => {
    const res = buildScript(["--target", "plan9-x64", "--bundle-only", "--dist", freshDir("unused")]);
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('unknown target "plan9-x64"');
  });
});
