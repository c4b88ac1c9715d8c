// Entry point for every runtime and for the compiled binary. Each command's modules are loaded only when it runs, and
// `serve` on stdio starts reading at once and answers initialize as soon as it knows it will start, before it loads
// the MCP server and the rest.
import { getPlatform } from "../../platform/index.ts";
import { BUILD_INFO, versionLine } from "../build-info.ts";
import { startEarlyStdio } from "./early-stdio.ts";
import { HELP, commandHelp } from "./help.ts";
import { takeLogOptions } from "./log-options.ts";
import { Logger } from "../log.ts";

const stderr = new Logger();

// A client writes initialize right after the spawn; this long the loading waits for it, so it is answered first.
const FIRST_LINE_GRACE_MS = 50;

/** `serve` on stdio: config and state first (what can refuse to start), then the early answer, then the rest. */
async function serveStdio(logger: Logger): Promise<number> {
  const early = startEarlyStdio(BUILD_INFO.version);
  const platform = await getPlatform();
  const { openStateForServe } = await import("../app/open-state.ts");
  const opened = await openStateForServe(platform, logger);
  if (!opened) {
    early.release();
    return 1;
  }
  early.open();
  // Loading the rest blocks for a while: a first line on its way is read (and answered) before.
  await early.firstLine(FIRST_LINE_GRACE_MS);
  const { runServe } = await import("./serve.ts");
  const code = await runServe(platform, [], { logger, early, opened });
  // A serve that did not start must not be kept alive by the early reader.
  if (code >= 0) early.release();
  return code;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === "--version" || cmd === "-V" || cmd === "version") {
    process.stdout.write(versionLine() + "\n");
    return 0;
  }
  if (cmd === "--help" || cmd === "-h" || cmd === "help") {
    process.stdout.write((rest[0] ? commandHelp(rest[0]) ?? HELP : HELP) + "\n");
    return 0;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    const h = commandHelp(cmd ?? "serve");
    if (h) {
      process.stdout.write(h + "\n");
      return 0;
    }
  }
  if (cmd === undefined || cmd === "serve") {
    // Logging flags alone still take the fast path; anything else (--http, a typo) goes the ordinary way.
    const setup = takeLogOptions(rest);
    if (!("error" in setup) && setup.rest.length === 0) return serveStdio(setup.logger);
  }
  const platform = await getPlatform();
  switch (cmd) {
    case undefined:
    case "serve": {
      const { runServe } = await import("./serve.ts");
      return runServe(platform, rest);
    }
    case "doctor": {
      const { runDoctor } = await import("./doctor.ts");
      return runDoctor(platform, rest);
    }
    case "prune": {
      const { runPrune } = await import("./prune.ts");
      return runPrune(platform, rest);
    }
    case "init": {
      const { runInit } = await import("./init.ts");
      return runInit(platform, rest);
    }
    case "login":
    case "logout": {
      const { runAccount } = await import("./login.ts");
      return runAccount(platform, cmd, rest);
    }
    case "service": {
      const { runService } = await import("./autostart/command.ts");
      return runService(platform, rest);
    }
    case "tasks":
    case "watch":
    case "pending":
    case "approve":
    case "decline":
    case "answer":
    case "cancel": {
      const { runPerson } = await import("./person/commands.ts");
      return runPerson(platform, cmd, rest);
    }
    case "projects": {
      const { runProjects } = await import("./projects.ts");
      return runProjects(platform, rest);
    }
    case "demo": {
      const { runDemo } = await import("../selftest/demo.ts");
      return runDemo(platform, rest);
    }
    case "relay-fixture": {
      const { runRelayFixture } = await import("../selftest/relay-fixture.ts");
      return runRelayFixture(platform, rest);
    }
    default:
      stderr.plain(`codex-bridge: unknown command "${cmd}". Commands: serve, doctor, prune, init, login, logout, service, projects, tasks, watch, pending, approve, decline, answer, cancel, demo, relay-fixture (see --help)`);
      return 2;
  }
}

void BUILD_INFO;
main(process.argv.slice(2)).then(
  (code) => {
    // serve keeps running on its own; the others end here.
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    stderr.plain(`codex-bridge: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
