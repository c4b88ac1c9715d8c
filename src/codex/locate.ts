// Finding the codex executable to spawn as `codex app-server`: always the native binary, because the npm
// launcher (bin/codex.js) stays a wrapper process on Node 20 and the Windows .cmd/.ps1 shims need a shell.
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

export type CodexPlatform = "linux" | "darwin" | "win32";
export type CodexSource = "CODEX_BIN" | "CODEX_EXE" | "PATH" | "npm-native";

export interface CodexLocation {
  path: string;
  source: CodexSource;
  /** For "npm-native": the launcher or shim the native binary was found through. */
  launcher?: string;
}

export type LocateResult = CodexLocation | { error: string };

export interface LocateOptions {
  env: Record<string, string | undefined>;
  platform: CodexPlatform;
  /** Node-style arch ("x64", "arm64"); default the running process's. */
  arch?: string;
  exists?: (p: string) => boolean;
  /** Resolves symlinks; default fs.realpathSync (falls back to the path itself). */
  realpath?: (p: string) => string;
  /** Reads a small text file (shim scripts); undefined when unreadable or not a script. */
  readText?: (p: string) => string | undefined;
  /** Windows PATHEXT; only its binary extensions (.EXE, .COM) are used, shims are never returned. */
  pathExt?: string;
}

const INSTALL_HINT = "Install Codex (npm install -g @openai/codex) or set CODEX_BIN to the codex executable.";

const TRIPLES: Record<string, string> = {
  "linux-x64": "x86_64-unknown-linux-musl",
  "linux-arm64": "aarch64-unknown-linux-musl",
  "darwin-x64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin",
  "win32-x64": "x86_64-pc-windows-msvc",
  "win32-arm64": "aarch64-pc-windows-msvc",
};

const LAUNCHER_TAIL = /[\\/]@openai[\\/]codex[\\/]bin[\\/]codex\.js$/i;
// How npm, pnpm and cmd-shim scripts name the launcher relative to their own directory.
const SHIM_TARGET = /(?:\$basedir|%~?dp0%?|\$PSScriptRoot)[\\/]+((?:[^"'\s\\/]+[\\/]+)*@openai[\\/]+codex[\\/]+bin[\\/]+codex\.js)/i;

interface Fs {
  exists: (p: string) => boolean;
  realpath: (p: string) => string;
  readText: (p: string) => string | undefined;
}

function defaultReadText(p: string): string | undefined {
  try {
    const st = statSync(p);
    if (!st.isFile() || st.size > 64 * 1024) return undefined;
    return readFileSync(p, "utf8");
  } catch {
    return undefined;
  }
}

function defaultRealpath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function fsFrom(opts: LocateOptions): Fs {
  return {
    exists: opts.exists ?? ((p) => existsSync(p)),
    realpath: opts.realpath ?? defaultRealpath,
    readText: opts.readText ?? defaultReadText,
  };
}

function nativeName(platform: CodexPlatform): string {
  return platform === "win32" ? "codex.exe" : "codex";
}

/** The `<triple>` vendor directory name and `@openai/codex-<platform>-<arch>` package for a machine. */
export function nativeTarget(platform: CodexPlatform, arch: string): { triple: string; packageName: string } | undefined {
  const triple = TRIPLES[`${platform}-${arch}`];
  return triple ? { triple, packageName: `@openai/codex-${platform}-${arch}` } : undefined;
}

/** Given the npm launcher `.../@openai/codex/bin/codex.js`, the native binary installed with it, if any. */
export function nativeFromLauncher(launcher: string, platform: CodexPlatform, arch: string, fs: Partial<Fs> = {}): string | undefined {
  const f = { ...fsFrom({ env: {}, platform }), ...fs };
  const target = nativeTarget(platform, arch);
  if (!target) return undefined;
  const packageRoot = dirname(dirname(f.realpath(launcher)));
  const platformDir = target.packageName.split("/")[1];
  // npm nests optional deps under the package or hoists them beside it (pnpm's store layout is the "beside" case);
  // old releases shipped vendor/ inside the main package.
  const vendorRoots = [
    join(packageRoot, "node_modules", "@openai", platformDir, "vendor"),
    join(dirname(packageRoot), platformDir, "vendor"),
    join(packageRoot, "vendor"),
  ];
  for (const vendor of vendorRoots) {
    const candidate = join(vendor, target.triple, "bin", nativeName(platform));
    if (f.exists(candidate)) return candidate;
  }
  return undefined;
}

/** The launcher a PATH entry leads to: a symlink to it, the file itself, or a shim script naming it. */
function launcherBehind(entry: string, f: Fs): string | undefined {
  const real = f.realpath(entry);
  if (LAUNCHER_TAIL.test(real)) return real;
  const text = f.readText(entry);
  if (text === undefined) return undefined;
  const m = SHIM_TARGET.exec(text);
  if (!m) return undefined;
  const launcher = resolve(dirname(entry), m[1].replace(/[\\/]+/g, "/"));
  return f.exists(launcher) ? launcher : undefined;
}

type Candidate = { found: CodexLocation } | { launcherWithoutNative: string } | undefined;

function examine(entry: string, source: CodexSource, platform: CodexPlatform, arch: string, f: Fs): Candidate {
  const launcher = launcherBehind(entry, f);
  if (launcher === undefined) return { found: { path: entry, source } };
  const native = nativeFromLauncher(launcher, platform, arch, f);
  return native ? { found: { path: native, source: "npm-native", launcher: entry } } : { launcherWithoutNative: launcher };
}

function binaryExtensions(pathExt: string | undefined): string[] {
  const fromPathExt = (pathExt ?? ".COM;.EXE;.BAT;.CMD")
    .split(";")
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e === ".exe" || e === ".com");
  // .exe first: that is what the codex packages ship.
  return [".exe", ...fromPathExt.filter((e) => e !== ".exe")];
}

function fromPath(opts: LocateOptions, arch: string, f: Fs): LocateResult {
  const { env, platform } = opts;
  const pathValue = env.PATH ?? env.Path ?? env.path ?? "";
  const dirs = pathValue.split(platform === "win32" ? ";" : ":").filter((d) => d.trim() !== "");
  const brokenLaunchers: string[] = [];
  for (const rawDir of dirs) {
    const dir = rawDir.replace(/^"(.*)"$/, "$1");
    if (platform === "win32") {
      for (const ext of binaryExtensions(opts.pathExt ?? env.PATHEXT)) {
        const exe = join(dir, `codex${ext}`);
        if (f.exists(exe)) return { path: exe, source: "PATH" };
      }
      // Only shims here: follow them to the npm package and its native codex.exe; never return the shim.
      for (const shim of ["codex.cmd", "codex.ps1", "codex"].map((n) => join(dir, n))) {
        if (!f.exists(shim)) continue;
        const c = examine(shim, "PATH", platform, arch, f);
        if (c && "found" in c && c.found.source === "npm-native") return c.found;
        if (c && "launcherWithoutNative" in c) brokenLaunchers.push(c.launcherWithoutNative);
      }
      const globalLauncher = join(dir, "node_modules", "@openai", "codex", "bin", "codex.js");
      if (f.exists(globalLauncher)) {
        const native = nativeFromLauncher(globalLauncher, platform, arch, f);
        if (native) return { path: native, source: "npm-native", launcher: globalLauncher };
        brokenLaunchers.push(globalLauncher);
      }
      continue;
    }
    const entry = join(dir, "codex");
    if (!f.exists(entry)) continue;
    const c = examine(entry, "PATH", platform, arch, f);
    if (c && "found" in c) return c.found;
    if (c && "launcherWithoutNative" in c) brokenLaunchers.push(c.launcherWithoutNative);
  }
  if (brokenLaunchers.length > 0) {
    return {
      error:
        `Found the npm launcher of Codex (${brokenLaunchers[0]}) but not its native binary for ${platform}-${arch}. ` +
        `Reinstall it (npm install -g @openai/codex) or set CODEX_BIN to the native codex executable.`,
    };
  }
  return { error: `Codex was not found: no CODEX_BIN, no CODEX_EXE and no codex on PATH. ${INSTALL_HINT}` };
}

export function locateCodex(opts: LocateOptions): LocateResult {
  const f = fsFrom(opts);
  const arch = opts.arch ?? process.arch;
  for (const variable of ["CODEX_BIN", "CODEX_EXE"] as const) {
    const value = opts.env[variable]?.trim();
    if (!value) continue;
    if (!isAbsolute(value) && !/^[A-Za-z]:[\\/]/.test(value)) {
      return { error: `${variable} must be an absolute path to the codex executable (got "${value}").` };
    }
    if (!f.exists(value)) {
      return { error: `${variable} points to "${value}", which does not exist. Fix or unset ${variable}; ${INSTALL_HINT}` };
    }
    const c = examine(value, variable, opts.platform, arch, f);
    if (c && "found" in c) {
      const shim = /\.(cmd|ps1|bat)$/i.test(c.found.path);
      if (opts.platform === "win32" && shim) {
        return { error: `${variable} points to the npm shim "${value}"; set it to the native codex.exe instead.` };
      }
      return c.found;
    }
    if (c && "launcherWithoutNative" in c) {
      return { error: `${variable} points to the npm launcher "${value}", whose native binary for ${opts.platform}-${arch} is missing. Set ${variable} to the native codex executable.` };
    }
  }
  return fromPath(opts, arch, f);
}

/**
 * The native codex binary of the `@openai/codex` dev-dependency under `projectRoot`, for this machine;
 * undefined when it is not installed.
 */
export function findBundledCodex(projectRoot: string, platform: CodexPlatform = hostPlatform(), arch: string = process.arch): string | undefined {
  const launcher = join(projectRoot, "node_modules", "@openai", "codex", "bin", "codex.js");
  if (!existsSync(launcher)) return undefined;
  return nativeFromLauncher(launcher, platform, arch);
}

export function hostPlatform(): CodexPlatform {
  const p = process.platform;
  return p === "win32" || p === "darwin" ? p : "linux";
}
