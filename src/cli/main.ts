// Entry point for every runtime and for the compiled binary.
import { getPlatform } from "../../platform/index.ts";
import { BUILD_INFO, versionLine } from "../build-info.ts";
import { runDoctor } from "./doctor.ts";
import { HELP, commandHelp } from "./help.ts";
import { runInit } from "./init.ts";
import { runServe } from "./serve.ts";
import { Logger } from "../log.ts";

const stderr = new Logger();

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
  const platform = await getPlatform();
  switch (cmd) {
    case undefined:
    case "serve":
      return runServe(platform, rest);
    case "doctor":
      return runDoctor(platform, rest);
    case "init":
      return runInit(platform, rest);
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
