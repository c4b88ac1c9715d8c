// The --help texts of every command, written once so `--help` and the README can be checked against each other.
import { LOG_FLAGS_HELP } from "./log-options.ts";

export const HELP = `codex-bridge: a local MCP server that lets an AI supervisor drive the real Codex (codex app-server).

Usage:
  codex-bridge [serve] [--log-level LEVEL] [--log-file PATH]
                                    run the MCP server on stdio (stdout carries only MCP messages)
  codex-bridge serve --http HOST:PORT [--token-file F] [--allow-non-loopback]
                                    run it over Streamable HTTP instead (loopback only by default)
  codex-bridge doctor [--json]      check Codex, login, app-server, models, projects, SQLite; exit 0 only when healthy
  codex-bridge prune [--older-than DAYS] [--dry-run] [--json]
                                    compact finished tasks older than retention_days now and shrink the state file
  codex-bridge init [--project-id ID] [--cwd DIR] [--config FILE] [--force]
                                    write a commented starter config and print the tunnel-client line
  codex-bridge login [--profile NAME] [--browser | --with-api-key]
                                    Codex's own login into a profile's codex_home (never your own Codex home)
  codex-bridge logout [--profile NAME]
                                    remove that login
  codex-bridge service install|status|logs|start|stop|uninstall [--tunnel-profile NAME] [--tunnel-client FILE]
                       [--key-file FILE] [--lines COUNT]
                                    keep tunnel-client running with this bridge as a per-user service
  codex-bridge projects add ID DIR [--alias NAME]… | list [--json] | remove ID
                                    edit the config's projects in place (comments and other keys kept)
  codex-bridge tasks [--all] [--json]
                                    the running bridge's tasks: id, project, state, age, what each is doing now
  codex-bridge watch [TASK]         follow tasks live, one line per message, command, file change, request, ending
  codex-bridge pending [--json]     every request awaiting a decision, in full
  codex-bridge approve REQUEST [--for-session]
  codex-bridge decline REQUEST
  codex-bridge answer REQUEST TEXT  decide as the person at the machine (the profile's approvals must allow "person")
  codex-bridge cancel TASK          stop a task's turn
  codex-bridge demo                 run a whole supervised task against the real Codex with a built-in mock model
  codex-bridge relay-fixture [--mock-provider] [--json]
                                    prove the web-tool relay: a real Codex turn calls bridge_web_tool and uses the answer
  codex-bridge --version | --help [command]

Environment:
  CODEX_BRIDGE_CONFIG (legacy CODEX_SUPERVISOR_CONFIG)  config file (default: <config dir>/codex-bridge/config.toml)
  CODEX_BRIDGE_STATE  (legacy CODEX_SUPERVISOR_STATE)   SQLite state file, or :memory:
  CODEX_BIN           (legacy CODEX_EXE)                the native codex executable (default: codex on PATH)`;

const COMMANDS: Record<string, string> = {
  serve: `codex-bridge serve [--http HOST:PORT] [--token-file FILE] [--allow-non-loopback] [--session-idle-seconds SECONDS] [--max-sessions COUNT]
                    [--max-wait-seconds SECONDS] [--log-level LEVEL] [--log-file PATH]

Runs the MCP server. Without --http it speaks MCP over stdin/stdout (for tunnel-client --mcp-command or any MCP
client); diagnostics go to stderr. It exits within a second on stdin EOF, SIGTERM or a second SIGINT, stopping its
Codex app-server. With --http it serves Streamable HTTP at http://HOST:PORT/mcp; HOST must be a loopback address
unless --allow-non-loopback is given; --token-file makes it require "Authorization: Bearer <file contents>".
Every request but initialize needs the Mcp-Session-Id it returned; a session unused for --session-idle-seconds SECONDS
(default 600) is closed, and at most --max-sessions COUNT (default 100) are open at once (at the cap a new
initialize closes the least recently used idle session; 503 only when every session has a request in flight).
A codex_wait never holds longer than max_wait_seconds in the config (55 unless raised, under the hosts' ~60 s
tool-call limits; a larger timeout_seconds is shortened and the answer says so). Over HTTP it holds that long by
default (--max-wait-seconds SECONDS sets another limit); over stdio 25 s by default, since tunnel-client serializes
every conversation's calls on the one pipe.
On stdio a line over 16 MiB is refused with a JSON-RPC error and discarded; the server keeps serving.
${LOG_FLAGS_HELP}`,
  doctor: `codex-bridge doctor [--json]

Checks the config (and each project), the SQLite state file (every page: damage is named with what to do; a 0-byte
file is refused), the Codex executable and version, app-server initialize,
login availability (never identity or secrets) and the live model list. Prints one line per check, or a JSON report
with --json. Exit code 0 only when every check passes; 1 otherwise. A bridge already serving on the same state file
is reported with its PID (running_bridge in --json), not counted as a fault; the other checks run beside it.`,
  prune: `codex-bridge prune [--older-than DAYS] [--dry-run] [--json]

Compacts the finished tasks last changed more than DAYS days ago (default: retention_days in the config, 7 unless
set): their final answer, evidence (commands with exit codes, file changes, diffs), request ledger, checkpoint,
messages (each bounded to what a codex_inspect transcript page shows) and warnings stay; streamed and raw events and
command output go, and codex_inspect says so when asked for them. Running tasks, UNKNOWN outcomes and tasks with open
requests are never touched. Then it hands the freed pages back to the file system and prints what it compacted and
how much the file shrank (--json: one object). When much of the file is free, or the file was made before retention
existed (to switch on incremental vacuum), it is rewritten (VACUUM) instead. A running bridge compacts by itself, in
small steps whenever no turn runs, so prune refuses while one holds the state file, naming it. --dry-run only counts
what would go. Exit 0 on success, 1 on failure, 2 on a usage error.`,
  init: `codex-bridge init [--project-id ID] [--cwd DIR] [--force] [--config FILE]

Writes a commented starter config with one project (default: id "default", the current directory) to the config
location (CODEX_BRIDGE_CONFIG or <config dir>/codex-bridge/config.toml). Refuses to overwrite an existing file
without --force. Prints the tunnel-client init line with this binary's absolute path.`,
  login: `codex-bridge login [--profile NAME] [--browser | --with-api-key]

Runs Codex's own login (codex login) with CODEX_HOME set to the codex_home of the profile (default: the profile
"default"). Nothing else in the environment changes, and your own Codex home (~/.codex, or $CODEX_HOME) is never
touched: a profile without codex_home is refused. The directory is created (mode 0700) when missing.
Without an option Codex's device-code flow runs: it prints a web address and a one-time code to enter in a browser on
any device. --browser uses Codex's browser sign-in on this machine instead; --with-api-key reads an API key from stdin
(printenv OPENAI_API_KEY | codex-bridge login --profile NAME --with-api-key).
codex-bridge doctor (and the codex_health tool) shows per profile its home, whether a login is present there (never who
or which key) and how many models it lists live. Exit status: Codex's own; 1 when it could not run; 2 on a usage error.`,
  logout: `codex-bridge logout [--profile NAME]

Runs Codex's own logout (codex logout) with CODEX_HOME set to the codex_home of the profile (default: the profile
"default"), removing the login stored there. A profile without codex_home is refused, so your own Codex login is never
removed. Exit status: Codex's own; 1 when it could not run; 2 on a usage error.`,
  service: `codex-bridge service install|status|logs|start|stop|uninstall [--tunnel-profile NAME] [--tunnel-client FILE] [--key-file FILE] [--lines COUNT]

Keeps tunnel-client running as a per-user service, with this bridge as its stdio MCP command: a systemd user unit on
Linux, a launchd agent on macOS, a Task Scheduler task (started at logon) on Windows. Every path in it is absolute,
it is restarted whenever it ends (tunnel-client ends with status 0 when the bridge does), and its output is appended
to a log in your log directory (~/.local/state/codex-bridge, ~/Library/Logs/codex-bridge or
%LOCALAPPDATA%\\codex-bridge\\logs).
  install    write the definition and start it (again, when it was installed already)
  status     whether the service is installed and running, and whether the tunnel-client process runs
  logs       the last --lines COUNT lines of its log (default 50)
  start, stop, uninstall
             as named; uninstall keeps the log
  --tunnel-profile NAME  the tunnel-client profile to run (default codex-bridge, as codex-bridge init suggests)
  --tunnel-client FILE   the tunnel-client executable (default: the one on PATH)
  --key-file FILE        a file holding only the control-plane key, mode 0600: tunnel-client reads it itself.
                         The key is never written into the definition; without this option the tunnel-client profile
                         must name the key itself (api_key: file:...), since a service has no key in its environment.
The Codex executable, CODEX_BRIDGE_CONFIG and CODEX_BRIDGE_STATE are recorded as they are now (not secret). Exit
status: 0 on success (status: running), 3 when status finds it not installed or not running, 1 on failure, 2 on a usage
error.`,
  demo: `codex-bridge demo

Runs a whole supervised task through the bridge's own MCP surface against the real Codex, with a built-in loopback
mock of the model (no account, no network): start, wait, a web-tool relay, a command approval, the result with
evidence and the written file as an artifact. Prints each MCP call and the bridge's answer as it goes, then a summary.
Everything is created in a temporary directory and removed afterwards. Takes no options. Exit 0 when every step
happened; 1 with the reason otherwise (e.g. Codex not found: run npm ci or set CODEX_BIN).`,
  "relay-fixture": `codex-bridge relay-fixture [--mock-provider] [--json]

Creates a temporary Git project and config, runs the bridge's MCP server, starts a real Codex task whose model calls
bridge_web_tool, answers with a random marker through codex_submit_tool_result, and checks that the same turn's final
answer contains the marker. Progress goes to stderr; stdout gets one verdict line (relay-fixture: PASS ... or
relay-fixture: FAIL: <reason>).
  --mock-provider  use a built-in loopback mock of the Responses API and an isolated CODEX_HOME (offline, no quota).
                   Without it your own Codex login is used and a little quota is spent (one short turn).
  --json           print one JSON object instead: {ok, marker, task_id, turn_id, final_message_excerpt, seconds, reason?}
Gives up after 120 s (mock) or 300 s and cleans up everything it created. Exit 0 on PASS, 1 on FAIL, 2 on a usage error.`,
};

const ENDPOINT_NOTE = `These commands talk to the bridge running on your state database (CODEX_BRIDGE_STATE, or the default) over its
control endpoint: a Unix domain socket, mode 0600 in a 0700 directory beside the database (on Windows a named pipe),
never a network port, for the bridge's own user only. With no bridge running they say so and exit 3; nothing waits
more than 3 s to connect or 20 s for an answer. Exit status: 0 done, 1 refused by the bridge (the reason is printed),
2 usage error, 3 no bridge reachable.`;

const PERSON_COMMANDS: Record<string, string> = {
  projects: `codex-bridge projects add ID DIR [--alias NAME]… | list [--json] | remove ID

Edits the projects of the config file (CODEX_BRIDGE_CONFIG or <config dir>/codex-bridge/config.toml) in place:
add writes a [projects.ID] table with DIR's real path (and its aliases) after the last project; remove cuts that
table out. Comments, order and every other key stay as they are; the edit is written only when the bridge's own
loader reads the result and finds nothing else changed, so what init and the loader refuse (a bad id, an id or
alias in use, a missing directory, one outside allowed_roots) is refused here. list shows the projects as the bridge
loads them (and any it would not load, with why); --json prints them as JSON. A running bridge keeps the projects it
started with: restart it to use the change (the command says so when one runs). Exit status: 0 done, 1 refused,
2 usage error.`,
  tasks: `codex-bridge tasks [--all] [--json]

A table of the running bridge's tasks: TASK, PROJECT, STATE, AGE (since started) and NOW (what it is doing: the
request awaiting a decision, the command running, thinking, or how it ended). Without --all: live tasks and those that
ended in the last hour; --all: every task (the newest 500). --json prints the rows as JSON.
${ENDPOINT_NOTE}`,
  watch: `codex-bridge watch [TASK]

Follows tasks live until Ctrl-C: one line per finished message, command with its exit code, file change, request
(with the command to answer it), answer (and who gave it), turn start and ending. With TASK, that task's history is
printed first; without, every task from now on. Lines are "HH:MM:SS TASK  what happened" (local time).
${ENDPOINT_NOTE}`,
  pending: `codex-bridge pending [--json]

Every request that awaits a decision, in full: the command, its directory, Codex's reason, questions and options,
the decisions Codex offers, and the command that answers it. --json prints them as JSON.
${ENDPOINT_NOTE}`,
  approve: `codex-bridge approve REQUEST [--for-session]

Approves a command, file change, permission or MCP elicitation request as the person at the machine. The answer goes
through the same approval policy and interaction ledger as every other answer (answered_by "person at the machine"), so
it is taken only when the task's profile sets approvals = "person" or "either". --for-session approves it for the
rest of the session where Codex offers that.
${ENDPOINT_NOTE}`,
  decline: `codex-bridge decline REQUEST

Declines a request (or a question) as the person at the machine; the same rules as approve.
${ENDPOINT_NOTE}`,
  answer: `codex-bridge answer REQUEST TEXT
codex-bridge answer REQUEST --answer ID=TEXT [--answer ID=TEXT …]

Answers Codex's question(s) as the person at the machine: one TEXT when it asks one question, else --answer per
question id (codex-bridge pending lists them, with the options where Codex offers a choice). Same rules as approve.
${ENDPOINT_NOTE}`,
  cancel: `codex-bridge cancel TASK

Stops a task's running turn (as codex_cancel does) as the person at the machine, and waits up to 10 s for Codex to
confirm it.
${ENDPOINT_NOTE}`,
};

export function commandHelp(cmd: string): string | undefined {
  return COMMANDS[cmd] ?? PERSON_COMMANDS[cmd];
}
