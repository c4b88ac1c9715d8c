// Variables the app-server never needs and must not inherit: the tunnel's own credential above all.
const SCRUBBED = new Set(["CONTROL_PLANE_API_KEY", "CODEX_BRIDGE_HTTP_TOKEN"]);

export function appServerEnv(base: Record<string, string | undefined>, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined || SCRUBBED.has(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}
