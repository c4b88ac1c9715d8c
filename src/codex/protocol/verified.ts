// The Codex versions whose protocol surface the bridge was verified against (one module each); any other version
// gets the start-up protocol check and is reported as unverified.
import { VERIFIED_0_171_0 } from "./verified-0.171.0.ts";
import type { VerifiedProtocol } from "./reliance.ts";

export const VERIFIED_PROTOCOLS: readonly VerifiedProtocol[] = [VERIFIED_0_171_0];
export const VERIFIED_CODEX_VERSIONS: readonly string[] = VERIFIED_PROTOCOLS.map((v) => v.version);
