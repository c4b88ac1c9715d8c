import picomatch from "picomatch";

/** Names a supervisor must never read: secrets, keys, credentials. Config may replace this list. */
export const DEFAULT_SENSITIVE_PATHS: readonly string[] = [
  ".env",
  ".env.*",
  ".envrc",
  "*.pem",
  "*.key",
  "*.p12",
  "*.pfx",
  "*.jks",
  "*.keystore",
  "id_rsa*",
  "id_dsa*",
  "id_ecdsa*",
  "id_ed25519*",
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".kube",
  ".docker",
  ".netrc",
  "_netrc",
  ".npmrc",
  ".pypirc",
  ".pgpass",
  ".git-credentials",
  "credentials",
  "credentials.*",
  "*.credentials",
  "secrets.*",
  "auth.json",
  "*.kdbx",
];

export type SensitiveMatcher = (rel: string) => boolean;

const cache = new Map<string, SensitiveMatcher>();

/**
 * A matcher over project-relative paths ("a/b/c"). A path is sensitive when the path itself or any of its
 * ancestors matches, so a file inside `.ssh/` is as sensitive as `.ssh`. Globs without a slash match a
 * single name anywhere; matching ignores case because macOS and Windows file systems do.
 */
export function sensitiveMatcher(globs: readonly string[]): SensitiveMatcher {
  const key = JSON.stringify(globs);
  const hit = cache.get(key);
  if (hit) return hit;
  const cleaned = globs.map((g) => g.trim().replace(/\\/g, "/").replace(/^\.\/+/, "").replace(/\/+$/, "")).filter((g) => g !== "");
  const isMatch = cleaned.length ? picomatch(cleaned, { nocase: true, dot: true, basename: true }) : () => false;
  const matcher: SensitiveMatcher = (rel) => {
    const segments = rel.split("/").filter((s) => s !== "" && s !== ".");
    for (let i = 1; i <= segments.length; i++) {
      // Windows drops trailing dots and spaces from names, so ".env." opens ".env" there.
      const prefix = segments.slice(0, i).map((s) => s.replace(/[. ]+$/, "") || s);
      if (isMatch(prefix.join("/")) || isMatch(segments.slice(0, i).join("/"))) return true;
    }
    return false;
  };
  if (cache.size > 32) cache.clear();
  cache.set(key, matcher);
  return matcher;
}
