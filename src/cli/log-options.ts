// The logging flags every server command accepts (`--log-level error|warn|info|debug`, `--log-file PATH`), taken
// out of the argument list before the command reads the rest, and the logger they configure.
import { LOG_LEVELS, Logger, parseLogLevel, type LogLevel } from "../log.ts";

export const LOG_FLAGS_HELP = `--log-level error|warn|info|debug (default info); --log-file PATH writes the log there instead of stderr
(errors still reach stderr), rotated at 5 MiB keeping PATH.1 to PATH.3. A log line is: time, level, event code, ids
and numbers (e.g. turn_failed task=t_… code=auth_rejected); never prompts, messages, output, file contents or tokens.`;

export type LogSetup = { logger: Logger; rest: string[] } | { error: string };

export function takeLogOptions(args: string[]): LogSetup {
  let level: LogLevel = "info";
  let file: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = a.indexOf("=");
    const flag = a.startsWith("--") && eq > 0 ? a.slice(0, eq) : a;
    if (flag !== "--log-level" && flag !== "--log-file") {
      rest.push(a);
      continue;
    }
    const value = eq > 0 && a.startsWith("--") ? a.slice(eq + 1) : args[++i];
    if (value === undefined || value === "" || (eq < 0 && value.startsWith("--"))) return { error: `${flag} needs a value` };
    if (flag === "--log-file") {
      file = value;
      continue;
    }
    const parsed = parseLogLevel(value);
    if (!parsed) return { error: `--log-level must be one of ${LOG_LEVELS.join(", ")}, not "${value}"` };
    level = parsed;
  }
  return { logger: new Logger({ level, file }), rest };
}
