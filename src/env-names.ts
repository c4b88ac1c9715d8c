// Environment variable names the bridge never hands to Codex, and what a name may look like. Shared by the config
// check (which refuses them in env_allow) and the child environment (which drops them in every mode).
export const ALWAYS_DROPPED_ENV: readonly string[] = ["CONTROL_PLANE_API_KEY", "CODEX_BRIDGE_HTTP_TOKEN"];

export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
