// What this copy of codex-bridge is: the version, and a fingerprint of the exact code that runs.
// build.ts replaces the __CODEX_BRIDGE_*__ identifiers through esbuild's `define`; when the source runs
// directly (Deno, Bun, vitest) they are undeclared, so the fallbacks below describe "source".
import packageJson from "../package.json" with { type: "json" };

declare const __CODEX_BRIDGE_VERSION__: string | undefined;
declare const __CODEX_BRIDGE_FINGERPRINT__: string | undefined;
declare const __CODEX_BRIDGE_BUILT_AT__: string | undefined;
declare const __CODEX_BRIDGE_RUNTIME_TARGET__: string | undefined;

export interface BuildInfo {
  /** The package version, e.g. "0.1.0". */
  readonly version: string;
  /** SHA-256 (hex) of the bundled code, or "source" when running unbundled. */
  readonly fingerprint: string;
  /** ISO-8601 time of the build, or null when running unbundled. */
  readonly builtAt: string | null;
  /** e.g. "bun-linux-x64" for a compiled binary, "esm-bundle" for dist/codex-bridge.mjs, "source-bun" for unbundled source. */
  readonly runtimeTarget: string;
}

function sourceRuntime(): string {
  const versions = process.versions as Record<string, string | undefined>;
  if (versions.bun) return "source-bun";
  if (versions.deno) return "source-deno";
  return "source-node";
}

function packageVersion(): string {
  const version: unknown = (packageJson as { version?: unknown }).version;
  return typeof version === "string" && version.length > 0 ? version : "0.0.0-unknown";
}

export const BUILD_INFO: BuildInfo = Object.freeze({
  version: typeof __CODEX_BRIDGE_VERSION__ === "string" ? __CODEX_BRIDGE_VERSION__ : packageVersion(),
  fingerprint: typeof __CODEX_BRIDGE_FINGERPRINT__ === "string" ? __CODEX_BRIDGE_FINGERPRINT__ : "source",
  builtAt: typeof __CODEX_BRIDGE_BUILT_AT__ === "string" ? __CODEX_BRIDGE_BUILT_AT__ : null,
  runtimeTarget:
    typeof __CODEX_BRIDGE_RUNTIME_TARGET__ === "string" ? __CODEX_BRIDGE_RUNTIME_TARGET__ : sourceRuntime(),
});

/** The one line `codex-bridge --version` prints: version, full fingerprint, runtime target. */
export function versionLine(info: BuildInfo = BUILD_INFO): string {
  return `codex-bridge ${info.version} fingerprint=${info.fingerprint} target=${info.runtimeTarget}`;
}
