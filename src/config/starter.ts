// The commented starter file written by `codex-bridge init`. It must load as-is.
import { DEFAULT_PROFILE_ID, ID_PATTERN, ID_RULE } from "./schema.ts";

export interface StarterConfigOptions {
  projectId: string;
  /** Absolute directory of the first project. */
  cwd: string;
}

// JSON string escapes are a subset of TOML basic-string escapes, so this quotes any path safely.
const tomlString = (s: string) => JSON.stringify(s);

export function starterConfig(opts: StarterConfigOptions): string {
  if (!ID_PATTERN.test(opts.projectId)) {
    throw new Error(`Project id ${JSON.stringify(opts.projectId)} is not valid: ${ID_RULE}`);
  }
  return `# codex-bridge configuration.
# The supervisor (ChatGPT or another MCP client) can only choose among the ids defined here:
# it never supplies a path, a command, a provider or an environment.

# Largest file codex_artifact will transfer (bytes; default 32 MiB, at most 256 MiB).
# max_artifact_bytes = 33554432
# Files above this size are returned as links read in chunks (default 4 MiB).
# inline_artifact_bytes = 4194304

# Finished tasks older than this many days keep their answer and evidence but lose raw events
# and command output (default 7; 0 keeps every task whole). See codex-bridge prune --help.
# retention_days = 7

# Extra glob patterns that are never transferred as artifacts. Built-in patterns such as
# .env, *.pem, *.key, id_rsa*, .ssh/**, .aws/** always apply unless
# replace_default_sensitive_paths = true.
# sensitive_paths = ["*.sqlite", "private/**"]

# When set, every project directory must lie inside one of these directories.
# allowed_roots = [${tomlString(opts.cwd)}]

[projects.${opts.projectId}]
cwd = ${tomlString(opts.cwd)}
# aliases = ["other-name"]
# description = "What this project is"

# The profile used when the supervisor names none. Empty strings let Codex choose.
[profiles.${DEFAULT_PROFILE_ID}]
model = ""
effort = ""
service_tier = ""
# untrusted | on-request | never
approval_policy = "on-request"
# read-only | workspace-write | danger-full-access
sandbox_type = "workspace-write"
network_access = false
# How long one codex_wait call may hold the connection (1 to 300 seconds).
wait_timeout_seconds = 25
# Who answers Codex's approvals and questions: "supervisor" (the model), "person" (you, on the
# task card of an MCP Apps host such as ChatGPT, or with codex-bridge approve) or "either".
approvals = "supervisor"
# Extra regular expressions: matching commands are treated as high risk (never approved for
# the session) or forbidden (can only be declined).
# high_risk_patterns = ["\\\\bterraform\\\\s+apply\\\\b"]
# forbidden_patterns = ["\\\\bkubectl\\\\s+delete\\\\b"]
# A Codex home of its own, apart from yours (sign in with: codex-bridge login --profile <id>):
# codex_home = "/absolute/dir"
# What Codex inherits: "inherit" (default) or "minimal" (HOME, CODEX_HOME, TMPDIR, a system PATH,
# locale and env_allow only). The tunnel key and env_deny names never pass.
# child_env = "minimal"
# env_allow = ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"]
# env_deny = ["AWS_PROFILE"]
# "shared": attach to the Codex home's shared app-server (the one the Codex TUI uses), so the
# tasks are threads you can open from Codex; start_shared = true starts it when none runs.
# runtime = "shared"

# Other profiles take their unset values from [profiles.default].
# [profiles.fast]
# effort = "low"

# Web-side tools that Codex can ask the supervisor to run (bridge_web_tool).
[relay]
enabled = true
max_result_bytes = 262144

# Path to the codex executable; default: CODEX_BIN, else codex on PATH.
# [codex]
# bin = "/usr/local/bin/codex"
# An app-server that leaves a request unanswered this long counts as not answering (default 10 s), and is killed
# and replaced by itself after this long (default 120 s; 0 never; codex_runtime restart force=true does it at once).
# unresponsive_seconds = 10
# unresponsive_restart_seconds = 120
`;
}
