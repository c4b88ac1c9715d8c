// Entry point for every runtime and for the compiled binary. Each command's modules are loaded only when it runs, and
// `serve` on stdio starts reading (and answers initialize) before it loads anything heavy.
import { getPlatform } from "../../platform/index.ts";
import { BUILD_INFO, versionLine } from "../build-info.ts";
import { startEarlyStdio, type EarlyStdio } from "./early-stdio.ts";
import { HELP, commandHelp } from "./help.ts";
import { Logger } from "../log.ts";

const stderr = new Logger();

// A client writes initialize right after the spawn; this long the loading waits for it so it can be answered first.
const FIRST_LINE_GRACE_MS = 50;

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
  let early: EarlyStdio | undefined;
  if ((cmd === undefined || cmd === "serve") && rest.length === 0) {
    early = startEarlyStdio(BUILD_INFO.version);
    await early.firstLine(FIRST_LINE_GRACE_MS);
  }
  const platform = await getPlatform();
  switch (cmd) {
    case undefined:
    case "serve": {
      const { runServe } = await import("./serve.ts");
      const code = await runServe(platform, rest, early);
      // A serve that did not start must not be kept alive by the early reader.
      if (code >= 0) early?.release();
      return code;
    }
    case "doctor": {
      const { runDoctor } = await import("./doctor.ts");
      return runDoctor(platform, rest);
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
      const { runService } = await import("./service/command.ts");
      return runService(platform, rest);
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
      stderr.plain(`codex-bridge: unknown command "${cmd}". Commands: serve, doctor, init, login, logout, service, demo, relay-fixture (see --help)`);
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
