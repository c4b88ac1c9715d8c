// The Codex versions whose protocol surface the bridge was verified against (one module each), and the range of
// releases it supports: every stable release from the oldest to the newest verified one speaks the same surface (CI
// runs the core flows against both ends, from npm). A version inside the range is trusted as is; a newer one gets the
// start-up protocol check and is reported as unverified; an older one is refused.
import { VERIFIED_0_171_0 } from "./verified-0.171.0.ts";
import type { VerifiedProtocol } from "./reliance.ts";

export const VERIFIED_PROTOCOLS: readonly VerifiedProtocol[] = [VERIFIED_0_171_0];
export const VERIFIED_CODEX_VERSIONS: readonly string[] = VERIFIED_PROTOCOLS.map((v) => v.version);

/** Oldest and newest stable Codex releases the core flows were verified on. */
export const SUPPORTED_CODEX = { oldest: "0.147.0", newest: "0.171.0" } as const;

/** "0.147.0 to 0.171.0": how every refusal and report names the range. */
export const SUPPORTED_RANGE = `${SUPPORTED_CODEX.oldest} to ${SUPPORTED_CODEX.newest}`;

/** The way to a supported Codex, said with every refusal. */
export const SUPPORTED_HINT = `install a Codex from the supported range ${SUPPORTED_RANGE} (npm install -g @openai/codex@${SUPPORTED_CODEX.newest}) or point CODEX_BIN at one`;

function parts(v: string): [number, number, number] | null {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** Compares two stable x.y.z versions; null when either is not one (a pre-release, a build). */
function compareVersions(a: string, b: string): number | null {
  const x = parts(a);
  const y = parts(b);
  if (!x || !y) return null;
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

/** Where a version stands against the supported range; "unknown" for anything but a stable x.y.z. */
export function rangePosition(version: string): "older" | "inside" | "newer" | "unknown" {
  const lo = compareVersions(version, SUPPORTED_CODEX.oldest);
  const hi = compareVersions(version, SUPPORTED_CODEX.newest);
  if (lo === null || hi === null) return "unknown";
  return lo < 0 ? "older" : hi > 0 ? "newer" : "inside";
}
