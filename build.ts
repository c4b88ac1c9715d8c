// Builds codex-bridge: one Node/Deno bundle (dist/codex-bridge.mjs) and standalone Bun executables
// for five targets (dist-binaries/), with SHA256SUMS. Run with `bun build.ts [--target linux-x64] [--bundle-only]`.
//
// The fingerprint is the SHA-256 of the bundle text as esbuild produced it with placeholder values for the
// fingerprint, build time and runtime target; those three are substituted afterwards. So the fingerprint depends
// only on the code, every binary of one build reports the same one, and it can be re-derived from the bundle.
import { build as esbuild, type BuildFailure } from "esbuild";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { recordStartupOrder } from "./build-order.ts";
import { adhocSign, verifySignature } from "./scripts/macho-codesign.ts";

const ROOT = path.dirname(fileURLToPath(import.meta.url));
const ENTRY = "src/cli/main.ts";
const BUNDLE_NAME = "codex-bridge.mjs";
/** runtimeTarget reported by dist/codex-bridge.mjs, which Node and Deno both run. */
export const BUNDLE_RUNTIME_TARGET = "esm-bundle";

/** Values esbuild embeds first; each is replaced (as a JSON string literal) after hashing. */
export const PLACEHOLDERS = {
  fingerprint: "__CODEX_BRIDGE_FINGERPRINT_PLACEHOLDER_d1c4e0__",
  builtAt: "__CODEX_BRIDGE_BUILT_AT_PLACEHOLDER_d1c4e0__",
  runtimeTarget: "__CODEX_BRIDGE_RUNTIME_TARGET_PLACEHOLDER_d1c4e0__",
} as const;

// CJS dependencies bundled into ESM call `require`; Node's ESM scope has none, so give them one.
const BANNER = [
  'import { createRequire as __codexBridgeCreateRequire } from "node:module";',
  "const require = __codexBridgeCreateRequire(import.meta.url);",
].join("\n");

export interface TargetSpec {
  /** `--target=` value of `bun build --compile`. */
  bunTarget: string;
  /** npm package holding that target's Bun runtime. */
  runtimePackage: string;
  /** Runtime executable inside the npm package. */
  runtimeBinary: string;
  fileName: string;
}

export const TARGETS: Record<string, TargetSpec> = {
  "linux-x64": {
    bunTarget: "bun-linux-x64",
    runtimePackage: "@oven/bun-linux-x64",
    runtimeBinary: "bin/bun",
    fileName: "codex-bridge-linux-x64",
  },
  "linux-arm64": {
    bunTarget: "bun-linux-arm64",
    runtimePackage: "@oven/bun-linux-aarch64",
    runtimeBinary: "bin/bun",
    fileName: "codex-bridge-linux-arm64",
  },
  "darwin-x64": {
    bunTarget: "bun-darwin-x64",
    runtimePackage: "@oven/bun-darwin-x64",
    runtimeBinary: "bin/bun",
    fileName: "codex-bridge-darwin-x64",
  },
  "darwin-arm64": {
    bunTarget: "bun-darwin-arm64",
    runtimePackage: "@oven/bun-darwin-aarch64",
    runtimeBinary: "bin/bun",
    fileName: "codex-bridge-darwin-arm64",
  },
  "windows-x64": {
    bunTarget: "bun-windows-x64",
    runtimePackage: "@oven/bun-windows-x64",
    runtimeBinary: "bin/bun.exe",
    fileName: "codex-bridge-windows-x64.exe",
  },
};

/**
 * How much later than Bun's default the executables move a function up to the JIT tiers (`--compile-jit-policy`).
 * The bridge's work is short bursts of parsing, SQL and rendering between waits; with tier-up this late it runs them in
 * the interpreter, and the JIT compilers' code and the code they would write stay out of memory: about 6 MiB less after
 * the first turn and 9 MiB less after 300, at no measurable CPU per turn. Long hot loops (an event storm) pay: about
 * 13% more CPU per event.
 */
const JIT_POLICY = 1000;

class BuildError extends Error {}

interface Options {
  targets: string[];
  bundleOnly: boolean;
  distDir: string;
  binariesDir: string;
}

const USAGE = `usage: bun build.ts [--target T[,T...]]... [--bundle-only] [--dist DIR] [--out DIR]
  --target       one of ${Object.keys(TARGETS).join(", ")}, "host" or "all" (default: all)
  --bundle-only  only write the Node/Deno bundle
  --dist DIR     where the bundle goes (default: dist)
  --out DIR      where the executables and SHA256SUMS go (default: dist-binaries)
A build of some targets keeps the other targets' executables already in the out dir; SHA256SUMS and BUILD-INFO.json
list every executable there.`;

function hostTarget(): string {
  const os = process.platform === "win32" ? "windows" : process.platform;
  return `${os}-${process.arch}`;
}

function parseOptions(argv: string[]): Options {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        target: { type: "string", multiple: true },
        "bundle-only": { type: "boolean", default: false },
        dist: { type: "string" },
        out: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (err) {
    throw new BuildError(`${(err as Error).message}\n${USAGE}`);
  }
  if (parsed.values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const requested = (parsed.values.target ?? ["all"]).flatMap((t) => t.split(",")).map((t) => t.trim());
  const targets: string[] = [];
  for (const t of requested) {
    const names = t === "all" ? Object.keys(TARGETS) : t === "host" ? [hostTarget()] : [t];
    for (const name of names) {
      if (!(name in TARGETS)) throw new BuildError(`unknown target "${name}"\n${USAGE}`);
      if (!targets.includes(name)) targets.push(name);
    }
  }
  return {
    targets,
    bundleOnly: parsed.values["bundle-only"] ?? false,
    distDir: path.resolve(ROOT, parsed.values.dist ?? "dist"),
    binariesDir: path.resolve(ROOT, parsed.values.out ?? "dist-binaries"),
  };
}

function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function run(command: string, args: string[], what: string, cwd = ROOT): string {
  const res = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (res.error) throw new BuildError(`${what}: could not run ${command}: ${res.error.message}`);
  if (res.status !== 0) {
    const output = `${res.stdout ?? ""}${res.stderr ?? ""}`.trim().split("\n").slice(-30).join("\n");
    throw new BuildError(`${what} failed (exit ${res.status ?? res.signal}):\n${output}`);
  }
  return res.stdout;
}

function substitute(text: string, values: Record<keyof typeof PLACEHOLDERS, string>): string {
  let out = text;
  for (const key of Object.keys(PLACEHOLDERS) as (keyof typeof PLACEHOLDERS)[]) {
    out = out.split(JSON.stringify(PLACEHOLDERS[key])).join(JSON.stringify(values[key]));
  }
  return out;
}

interface Bundle {
  /** esbuild output with placeholders still in place. */
  template: string;
  fingerprint: string;
  embedsBuildInfo: boolean;
}

async function bundle(version: string): Promise<Bundle> {
  let result;
  try {
    result = await esbuild({
      absWorkingDir: ROOT,
      entryPoints: [ENTRY],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile: path.join(ROOT, "dist", BUNDLE_NAME),
      write: false,
      // Loaded with a variable specifier only under Node/Deno; bun:sqlite serves compiled binaries.
      external: ["libsql"],
      banner: { js: BANNER },
      charset: "utf8",
      legalComments: "none",
      logLevel: "silent",
      define: {
        __CODEX_BRIDGE_VERSION__: JSON.stringify(version),
        __CODEX_BRIDGE_FINGERPRINT__: JSON.stringify(PLACEHOLDERS.fingerprint),
        __CODEX_BRIDGE_BUILT_AT__: JSON.stringify(PLACEHOLDERS.builtAt),
        __CODEX_BRIDGE_RUNTIME_TARGET__: JSON.stringify(PLACEHOLDERS.runtimeTarget),
      },
    });
  } catch (err) {
    const failure = err as Partial<BuildFailure>;
    const messages = (failure.errors ?? [])
      .map((e) => `  ${e.location ? `${e.location.file}:${e.location.line}: ` : ""}${e.text}`)
      .join("\n");
    throw new BuildError(`esbuild bundle of ${ENTRY} failed:\n${messages || (err as Error).message}`);
  }
  const file = result.outputFiles.find((f) => f.path.endsWith(BUNDLE_NAME));
  if (!file) throw new BuildError("esbuild produced no bundle");
  let template = file.text;
  if (!template.startsWith("#!")) template = `#!/usr/bin/env node\n${template}`;
  return {
    template,
    fingerprint: sha256(template),
    embedsBuildInfo: template.includes(JSON.stringify(PLACEHOLDERS.fingerprint)),
  };
}

function bunExecutable(): string {
  if (process.versions.bun) return process.execPath;
  const local = path.join(ROOT, "node_modules", ".bin", process.platform === "win32" ? "bun.exe" : "bun");
  if (fs.existsSync(local)) return local;
  throw new BuildError("Bun is needed to compile executables: run `bun build.ts` (npm run build) or npm ci first");
}

function bunVersion(bun: string): string {
  if (process.versions.bun && bun === process.execPath) return process.versions.bun;
  return run(bun, ["--version"], "bun --version").trim();
}

/** The target's Bun runtime from npm (`npm pack`, so an npm cache or mirror makes it work offline). */
function fetchRuntime(spec: TargetSpec, version: string): string {
  const cacheRoot = path.join(ROOT, ".cache", "bun-runtimes");
  const dirName = `${spec.runtimePackage.replace("@", "").replace("/", "-")}-${version}`;
  const finalDir = path.join(cacheRoot, dirName);
  const binary = path.join(finalDir, "package", spec.runtimeBinary);
  if (fs.existsSync(binary)) return binary;

  fs.mkdirSync(cacheRoot, { recursive: true });
  const work = fs.mkdtempSync(path.join(cacheRoot, `.fetch-${dirName}-`));
  try {
    const packed = run(
      "npm",
      ["pack", `${spec.runtimePackage}@${version}`, "--pack-destination", work, "--prefer-offline", "--silent"],
      `fetching the ${spec.bunTarget} runtime (npm pack ${spec.runtimePackage}@${version})`,
    )
      .trim()
      .split("\n")
      .pop();
    if (!packed) throw new BuildError(`npm pack ${spec.runtimePackage}@${version} printed no file name`);
    run("tar", ["-xzf", path.join(work, packed), "-C", work], `unpacking ${packed}`);
    const manifest = JSON.parse(fs.readFileSync(path.join(work, "package", "package.json"), "utf8")) as {
      version?: string;
    };
    if (manifest.version !== version) {
      throw new BuildError(`${spec.runtimePackage} unpacked as version ${manifest.version}, expected ${version}`);
    }
    if (!fs.existsSync(path.join(work, "package", spec.runtimeBinary))) {
      throw new BuildError(`${spec.runtimePackage}@${version} has no ${spec.runtimeBinary}`);
    }
    fs.rmSync(path.join(work, packed));
    try {
      fs.renameSync(work, finalDir);
    } catch (err) {
      // Another build unpacked the same runtime meanwhile; theirs is as good as ours.
      if (!fs.existsSync(binary)) throw err;
      fs.rmSync(work, { recursive: true, force: true });
    }
  } catch (err) {
    fs.rmSync(work, { recursive: true, force: true });
    throw err;
  }
  return binary;
}

interface Output {
  label: string;
  file: string;
  bytes: number;
  sha256: string;
  seconds: number;
}

/**
 * macOS runs only executables whose code signature verifies; Bun's darwin-x64 cross-compile keeps the runtime's own
 * signature, which no longer matches. Both darwin executables are signed ad hoc here, then checked page by page.
 */
function signDarwin(file: string, identifier: string): void {
  const signed = adhocSign(fs.readFileSync(file), identifier);
  const check = verifySignature(signed);
  if (!check.ok) throw new BuildError(`the ad-hoc signature of ${file} does not verify: ${check.problems.join("; ")}`);
  fs.writeFileSync(file, signed, { mode: 0o755 });
}

function compile(
  bun: string,
  version: string,
  target: string,
  template: string,
  values: Record<keyof typeof PLACEHOLDERS, string>,
  outDir: string,
  bytecodeOrder: string | null,
): Output {
  const spec = TARGETS[target];
  const started = performance.now();
  const executablePath = target === hostTarget() ? null : fetchRuntime(spec, version);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "codex-bridge-build-"));
  try {
    const input = path.join(work, BUNDLE_NAME);
    fs.writeFileSync(input, substitute(template, values));
    const outfile = path.join(outDir, spec.fileName);
    const args = [
      "build",
      input,
      "--compile",
      `--target=${spec.bunTarget}`,
      `--outfile=${outfile}`,
      "--minify",
      "--bytecode",
      `--compile-jit-policy=${JIT_POLICY}`,
      "--format=esm",
      "--no-compile-autoload-dotenv",
      "--no-compile-autoload-bunfig",
      // Bun folds the variable specifier of platform/sqlite-libsql.ts into a literal; compiled binaries use bun:sqlite.
      "--external=libsql",
    ];
    if (executablePath) args.push(`--compile-executable-path=${executablePath}`);
    if (bytecodeOrder) args.push(`--bytecode-order=${bytecodeOrder}`);
    // cwd is the scratch dir so no bunfig.toml of the caller's tree leaks into the compile.
    run(bun, args, `bun build --compile for ${target}`, work);
    if (!fs.existsSync(outfile)) throw new BuildError(`bun build --compile for ${target} wrote no ${outfile}`);
    if (target.startsWith("darwin-")) signDarwin(outfile, spec.fileName);
    const data = fs.readFileSync(outfile);
    return {
      label: target,
      file: outfile,
      bytes: data.byteLength,
      sha256: sha256(data),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The order in which a start-up runs the bundle's functions, from a training run of a host executable built for the
 * purpose (compiled with it, the bytecode a start-up needs sits together: about 3 MiB less resident). Null, with a
 * warning, when this host cannot build or run one.
 */
async function startupOrder(bun: string, version: string, template: string, values: { fingerprint: string; builtAt: string }, dir: string): Promise<string | null> {
  const host = hostTarget();
  if (!(host in TARGETS)) {
    console.warn(`warning: no executable for this host (${host}) to record the start-up's bytecode order; built without it`);
    return null;
  }
  const trainee = compile(bun, version, host, template, { ...values, runtimeTarget: TARGETS[host].bunTarget }, dir, null);
  const recorded = await recordStartupOrder(trainee.file, dir);
  if ("file" in recorded) return recorded.file;
  console.warn(`warning: recording the start-up's bytecode order failed (${recorded.error}); built without it`);
  return null;
}

function printTable(outputs: Output[]): void {
  const rows = outputs.map((o) => [
    o.label,
    path.relative(process.cwd(), o.file) || o.file,
    `${(o.bytes / (1024 * 1024)).toFixed(1)} MiB`,
    `${o.seconds.toFixed(1)} s`,
    o.sha256.slice(0, 16),
  ]);
  const header = ["target", "file", "size", "time", "sha256"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const row of [header, ...rows]) console.log(row.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd());
}

/** What a BUILD-INFO.json records of one executable. */
interface BinaryRecord {
  target: string;
  file: string;
  bytes: number;
  sha256: string;
  /** Fingerprint and build time of the build that wrote it (null: a file kept from a build that did not record it). */
  fingerprint: string | null;
  builtAt: string | null;
}

/**
 * Readies the executables' dir and returns what its BUILD-INFO.json said. The requested targets' executables are
 * removed (a build of every target removes every codex-bridge-* file), so a failed compile never leaves an old one
 * behind; other targets' executables stay. SHA256SUMS and BUILD-INFO.json are removed and written afresh at the end.
 */
function prepareBinariesDir(dir: string, targets: string[]): BinaryRecord[] {
  fs.mkdirSync(dir, { recursive: true });
  const previous = readPreviousRecords(path.join(dir, "BUILD-INFO.json"));
  const full = Object.keys(TARGETS).every((t) => targets.includes(t));
  const rebuilt = new Set(targets.map((t) => TARGETS[t].fileName));
  for (const name of fs.readdirSync(dir)) {
    if (rebuilt.has(name) || (full && name.startsWith("codex-bridge-")) || name === "SHA256SUMS" || name === "BUILD-INFO.json") {
      fs.rmSync(path.join(dir, name), { force: true });
    }
  }
  return previous;
}

function readPreviousRecords(file: string): BinaryRecord[] {
  try {
    const info = JSON.parse(fs.readFileSync(file, "utf8")) as {
      fingerprint?: string;
      builtAt?: string;
      binaries?: Partial<BinaryRecord>[];
    };
    return (info.binaries ?? []).flatMap((b) =>
      typeof b.file === "string" && typeof b.sha256 === "string" && typeof b.target === "string"
        ? [{
            target: b.target,
            file: b.file,
            bytes: Number(b.bytes ?? 0),
            sha256: b.sha256,
            fingerprint: b.fingerprint ?? info.fingerprint ?? null,
            builtAt: b.builtAt ?? info.builtAt ?? null,
          }]
        : [],
    );
  } catch {
    return [];
  }
}

/**
 * Every executable (codex-bridge-*) now in `dir`, hashed afresh: this build's, and those kept from earlier builds
 * (described by their earlier BUILD-INFO.json record when the file is unchanged since).
 */
function presentBinaries(dir: string, built: Output[], builtAt: string, fingerprint: string, previous: BinaryRecord[]): BinaryRecord[] {
  const records: BinaryRecord[] = [];
  for (const name of fs.readdirSync(dir).sort((a, b) => a.localeCompare(b))) {
    const file = path.join(dir, name);
    if (!name.startsWith("codex-bridge-") || !fs.statSync(file).isFile()) continue;
    const data = fs.readFileSync(file);
    const hash = sha256(data);
    const target =
      Object.keys(TARGETS).find((t) => TARGETS[t].fileName === name) ?? name.slice("codex-bridge-".length).replace(/\.exe$/, "");
    const fresh = built.some((b) => path.basename(b.file) === name && b.sha256 === hash);
    const earlier = previous.find((p) => p.file === name && p.sha256 === hash);
    records.push({
      target,
      file: name,
      bytes: data.byteLength,
      sha256: hash,
      fingerprint: fresh ? fingerprint : (earlier?.fingerprint ?? null),
      builtAt: fresh ? builtAt : (earlier?.builtAt ?? null),
    });
  }
  return records;
}

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version?: string };
  if (!pkg.version) throw new BuildError("package.json has no version");
  const version = pkg.version;
  const builtAt = process.env.SOURCE_DATE_EPOCH
    ? new Date(Number(process.env.SOURCE_DATE_EPOCH) * 1000).toISOString()
    : new Date().toISOString();

  const started = performance.now();
  const { template, fingerprint, embedsBuildInfo } = await bundle(version);
  if (!embedsBuildInfo) {
    console.warn(`warning: ${ENTRY} does not reach src/build-info.ts; --version cannot report the fingerprint`);
  }
  fs.mkdirSync(opts.distDir, { recursive: true });
  const bundlePath = path.join(opts.distDir, BUNDLE_NAME);
  const bundleText = substitute(template, { fingerprint, builtAt, runtimeTarget: BUNDLE_RUNTIME_TARGET });
  fs.writeFileSync(bundlePath, bundleText, { mode: 0o755 });
  fs.chmodSync(bundlePath, 0o755);
  const info = { version, fingerprint, builtAt, bundleRuntimeTarget: BUNDLE_RUNTIME_TARGET, placeholders: PLACEHOLDERS };
  fs.writeFileSync(path.join(opts.distDir, "build-info.json"), `${JSON.stringify(info, null, 2)}\n`);
  const outputs: Output[] = [
    {
      label: "bundle",
      file: bundlePath,
      bytes: Buffer.byteLength(bundleText),
      sha256: sha256(bundleText),
      seconds: (performance.now() - started) / 1000,
    },
  ];

  if (!opts.bundleOnly) {
    const bun = bunExecutable();
    const bunVer = bunVersion(bun);
    const previous = prepareBinariesDir(opts.binariesDir, opts.targets);
    const orderDir = fs.mkdtempSync(path.join(os.tmpdir(), "codex-bridge-order-"));
    const binaries: Output[] = [];
    try {
      const order = await startupOrder(bun, bunVer, template, { fingerprint, builtAt }, orderDir);
      for (const target of opts.targets) {
        const values = { fingerprint, builtAt, runtimeTarget: TARGETS[target].bunTarget };
        binaries.push(compile(bun, bunVer, target, template, values, opts.binariesDir, order));
      }
    } finally {
      fs.rmSync(orderDir, { recursive: true, force: true });
    }
    // A partial build keeps the other targets' executables, so the sums cover every executable in the dir.
    const present = presentBinaries(opts.binariesDir, binaries, builtAt, fingerprint, previous);
    const sums = present.map((b) => `${b.sha256}  ${b.file}\n`).join("");
    fs.writeFileSync(path.join(opts.binariesDir, "SHA256SUMS"), sums);
    const release = { ...info, bun: bunVer, binaries: present };
    fs.writeFileSync(path.join(opts.binariesDir, "BUILD-INFO.json"), `${JSON.stringify(release, null, 2)}\n`);
    outputs.push(...binaries);
  }

  printTable(outputs);
  console.log(`version ${version}  fingerprint ${fingerprint}`);
  console.log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

const invokedDirectly =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  main().catch((err: unknown) => {
    const message = err instanceof BuildError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
    console.error(`build failed: ${message}`);
    process.exit(1);
  });
}
