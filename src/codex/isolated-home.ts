// A throwaway CODEX_HOME that points codex at the loopback mock provider and makes no other network call.
// Used by `demo`, `relay-fixture --mock-provider` and the integration tests; never by the user's real runs.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type IsolatedApprovalPolicy = "on-request" | "never";
export type IsolatedSandboxMode = "read-only" | "workspace-write" | "danger-full-access";

export interface IsolatedCodexHomeOptions {
  dir: string;
  /** The mock's base URL, `http://127.0.0.1:PORT/v1`. */
  providerBaseUrl: string;
  /** An unknown slug keeps codex on classic function tools (`exec_command`); default "mock-model". */
  model?: string;
  /** "untrusted" is not allowed here: in config.toml it is a fatal startup error. Pass it per thread instead. */
  approvalPolicy?: IsolatedApprovalPolicy;
  sandboxMode?: IsolatedSandboxMode;
  /** Make Codex treat the mock like OpenAI's own provider: a login is needed, and sent as a bearer token. */
  requiresOpenaiAuth?: boolean;
  /** Extra `[features]` switches, e.g. the ones that make Codex ask permission or user-input questions. */
  features?: Record<string, boolean>;
  /** TOML appended as is (whole tables only), e.g. an `[mcp_servers.<name>]` a test starts. */
  extraToml?: string;
}

export interface IsolatedCodexHome {
  codexHome: string;
  configPath: string;
}

// TOML basic strings accept JSON's escapes (\" \\ \n \uXXXX), so JSON.stringify is a correct encoder.
const tomlString = (s: string): string => JSON.stringify(s);

export function isolatedConfigToml(opts: Omit<IsolatedCodexHomeOptions, "dir">): string {
  const approval: string = opts.approvalPolicy ?? "on-request";
  if (approval !== "on-request" && approval !== "never") {
    throw new Error(`approvalPolicy must be "on-request" or "never" in config.toml (got ${JSON.stringify(approval)}); set "untrusted" per thread`);
  }
  const sandbox: string = opts.sandboxMode ?? "workspace-write";
  if (!["read-only", "workspace-write", "danger-full-access"].includes(sandbox)) {
    throw new Error(`unknown sandboxMode ${JSON.stringify(sandbox)}`);
  }
  const url = new URL(opts.providerBaseUrl);
  if (url.hostname !== "127.0.0.1" && url.hostname !== "localhost" && url.hostname !== "[::1]") {
    throw new Error(`the isolated home only talks to a loopback provider, not ${url.hostname}`);
  }
  return [
    "# Written by codex-bridge for an offline run against its loopback mock provider.",
    `model = ${tomlString(opts.model ?? "mock-model")}`,
    `model_provider = "mock"`,
    `approval_policy = ${tomlString(approval)}`,
    `sandbox_mode = ${tomlString(sandbox)}`,
    "check_for_update_on_startup = false",
    // Codex warns on every turn about switches still under development; a run that turns one on knows it.
    ...(opts.features ? ["suppress_unstable_features_warning = true"] : []),
    "",
    "[analytics]",
    "enabled = false",
    "",
    "[otel]",
    `exporter = "none"`,
    `trace_exporter = "none"`,
    `metrics_exporter = "none"`,
    "",
    "# No env_key: the mock needs no Authorization header, so no API key is read from anywhere.",
    "[model_providers.mock]",
    `name = "Mock Responses provider"`,
    `base_url = ${tomlString(opts.providerBaseUrl)}`,
    `wire_api = "responses"`,
    "# Retries would turn a scripted HTTP error into several requests and a slow backoff.",
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "supports_websockets = false",
    ...(opts.requiresOpenaiAuth ? ["requires_openai_auth = true"] : []),
    "",
    "# plugins = false is what stops the startup plugin sync (github.com, chatgpt.com); the rest trims tools and traffic.",
    "[features]",
    "plugins = false",
    "remote_plugin = false",
    "apps = false",
    "tool_suggest = false",
    "shell_snapshot = false",
    "goals = false",
    "image_generation = false",
    "memories = false",
    ...Object.entries(opts.features ?? {}).map(([k, v]) => `${k} = ${v}`),
    "",
    "[agents]",
    "enabled = false",
    "",
    ...(opts.extraToml ? [opts.extraToml, ""] : []),
  ].join("\n");
}

export function writeIsolatedCodexHome(opts: IsolatedCodexHomeOptions): IsolatedCodexHome {
  const toml = isolatedConfigToml(opts);
  mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  const configPath = join(opts.dir, "config.toml");
  writeFileSync(configPath, toml, { mode: 0o600 });
  return { codexHome: opts.dir, configPath };
}

// Kept from the caller's environment: what processes need to start, find tools and print text.
// Everything else (API keys, proxies that could capture 127.0.0.1 traffic, profile hooks) is left out.
const KEPT = new Set([
  "PATH",
  "TMPDIR",
  "TMP",
  "TEMP",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TERM",
  "SYSTEMROOT",
  "SYSTEMDRIVE",
  "WINDIR",
  "COMSPEC",
  "PATHEXT",
  "PROGRAMDATA",
  "PROGRAMFILES",
  "NUMBER_OF_PROCESSORS",
  "PROCESSOR_ARCHITECTURE",
]);

export interface IsolatedEnvOptions {
  codexHome: string;
  /** Scratch HOME so `bash -lc` does not source the user's profile; default `<codexHome>/home` (created). */
  home?: string;
}

export function isolatedCodexEnv(baseEnv: Record<string, string | undefined>, opts: IsolatedEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(baseEnv)) {
    if (value === undefined) continue;
    // Windows spells these in any case (Path, SystemRoot); keep the caller's spelling.
    if (KEPT.has(name.toUpperCase()) || name.startsWith("LC_")) env[name] = value;
  }
  const home = opts.home ?? join(opts.codexHome, "home");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  env.CODEX_HOME = opts.codexHome;
  env.HOME = home;
  env.USERPROFILE = home;
  env.RUST_LOG = "warn";
  return env;
}
