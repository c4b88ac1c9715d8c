// How this bridge is started again by something else (tunnel-client, a service manager): the absolute command, and
// the shell-style quoting tunnel-client's --mcp-command splitting understands.
import { resolve } from "node:path";

/** This binary, or the runtime plus the script when run as a script (node dist/codex-bridge.mjs, bun src/cli/main.ts). */
export function selfArgv(): string[] {
  const exe = process.execPath;
  const script = process.argv[1];
  const isRuntime = /(^|[\\/])(node|bun|deno)(\.exe)?$/i.test(exe);
  if (isRuntime && script && !script.startsWith("/$bunfs")) return [exe, resolve(script)];
  return [exe];
}

/** tunnel-client splits the command shell-style, without a shell: a word with anything unusual goes in single quotes. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=@+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'"'"'`)}'`;
}

export function selfCommand(): string {
  return selfArgv().map(shellWord).join(" ");
}

/**
 * How a person runs this bridge with `args` at a Windows prompt. cmd.exe and PowerShell share no quoting: a command
 * whose words need none is one line both run; otherwise one line for each (PowerShell needs `&` to run a quoted path).
 */
export function windowsRunLines(argv: readonly string[], args: string): string[] {
  if (argv.every((w) => /^[A-Za-z0-9_.\\:+-]+$/.test(w))) return [`${argv.join(" ")} ${args}`];
  const cmd = argv.map((w) => `"${w}"`).join(" ");
  const ps = argv.map((w) => `'${w.replace(/'/g, "''")}'`).join(" ");
  return [`${cmd} ${args}   (cmd.exe)`, `& ${ps} ${args}   (PowerShell)`];
}
