// Codex's shared background app-server of one CODEX_HOME (`codex app-server daemon`): where its socket is, whether it
// runs, and starting it. Facts in docs/SHARED-APP-SERVER-FACTS.md. The bridge never stops it: it belongs to the person.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { Platform } from "../../platform/types.ts";

/** The control socket every client of the home's shared server connects to (a symlink to a short path). */
export function sharedSocketPath(codexHome: string): string {
  return join(codexHome, "app-server-control", "app-server-control.sock");
}

/** The shared server's pid from its pid file, or null when there is none (never started, or unreadable). */
export function sharedServerPid(codexHome: string): number | null {
  try {
    const pid = (JSON.parse(readFileSync(join(codexHome, "app-server-daemon", "daemon.pid"), "utf8")) as { pid?: unknown }).pid;
    return typeof pid === "number" && Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

const DaemonAnswer = z.looseObject({
  status: z.string(),
  pid: z.number().int().optional(),
  socketPath: z.string().optional(),
  appServerVersion: z.string().optional(),
});
export type DaemonAnswer = z.infer<typeof DaemonAnswer>;

export class SharedServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SharedServerError";
  }
}

/**
 * Runs `codex app-server daemon start` (idempotent: "started" or "alreadyRunning") and returns its JSON answer.
 * The first start in a home installs a copy of Codex there, which takes a while.
 */
export async function startSharedServer(platform: Platform, codexBin: string, env: Record<string, string>): Promise<DaemonAnswer> {
  const child = platform.spawn(codexBin, ["app-server", "daemon", "start"], { env });
  let out = "";
  let err = "";
  child.onStdout((c) => (out = (out + c).slice(-64_000)));
  child.onStderr((c) => (err = (err + c).slice(-4_000)));
  child.endStdin();
  const exit = await child.exited;
  const last = out.trim().split("\n").pop() ?? "";
  let parsed: unknown;
  try {
    parsed = JSON.parse(last);
  } catch {
    parsed = null;
  }
  const answer = DaemonAnswer.safeParse(parsed);
  if (exit.code !== 0 || !answer.success) {
    const tail = err.trim().split("\n").slice(-3).join(" | ");
    throw new SharedServerError(`\`codex app-server daemon start\` failed (exit ${exit.code ?? exit.signal}): ${tail || "no output"}`);
  }
  return answer.data;
}
