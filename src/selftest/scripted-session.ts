// Shared by `demo` and `relay-fixture`: strict flag parsing, a whole-run deadline that still cleans up, and typed
// readings of the structuredContent the bridge's own tools return (the MCP boundary, so parsed with zod).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CodexNotFoundError } from "./harness.ts";

/** Checks every argument against the flags a command accepts; returns the set given, or a message naming the offender. */
export function parseFlags(command: string, args: string[], accepted: readonly string[]): { flags: Set<string> } | { error: string } {
  const flags = new Set<string>();
  for (const a of args) {
    if (!accepted.includes(a)) {
      const what = a.startsWith("-") ? `unknown option ${a}` : `unexpected argument "${a}"`;
      const usage = accepted.length ? `accepted: ${accepted.join(", ")}` : "it takes no options";
      return { error: `codex-bridge ${command}: ${what}; ${usage} (see codex-bridge ${command} --help)` };
    }
    flags.add(a);
  }
  return { flags };
}

export class DeadlineError extends Error {}

/**
 * Runs `body` with a deadline. On expiry (or Ctrl+C) the returned promise rejects with a DeadlineError and `abort` is
 * started to tear down what is running; `body` is abandoned. The caller awaits the same teardown before exiting.
 */
export async function withDeadline<T>(ms: number, what: string, body: () => Promise<T>, abort: () => Promise<void>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onSigint: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    // Rejected before the teardown starts, so the abandoned body's "connection closed" cannot win the race.
    timer = setTimeout(() => {
      reject(new DeadlineError(`${what} did not finish within ${Math.round(ms / 1000)} s`));
      void abort();
    }, ms);
    onSigint = () => {
      reject(new DeadlineError(`${what} was interrupted (Ctrl+C)`));
      void abort();
    };
    process.once("SIGINT", onSigint);
  });
  const running = body();
  // The abandoned body may reject once its connection is torn down; that is expected, not unhandled.
  running.catch(() => {});
  try {
    return await Promise.race([running, stopped]);
  } finally {
    clearTimeout(timer);
    if (onSigint) process.off("SIGINT", onSigint);
  }
}

// Only the fields these commands read are typed; the tools send more.
const RequestViewSchema = z.looseObject({
  request_id: z.string(),
  kind: z.string(),
  command: z.string().optional(),
  decisions: z.array(z.string()).optional(),
  tool: z.looseObject({ capability: z.unknown(), operation: z.unknown(), request: z.string() }).optional(),
});
type RequestView = z.infer<typeof RequestViewSchema>;

export const WaitSchema = z.looseObject({
  state: z.string(),
  next_cursor: z.string().optional(),
  messages: z.array(z.string()).optional(),
  requests: z.array(RequestViewSchema).optional(),
  tool_requests: z.array(RequestViewSchema).optional(),
  turn: z.looseObject({ status: z.string(), error: z.string().optional() }).optional(),
});
export type WaitView = z.infer<typeof WaitSchema>;

export const TaskSchema = z.looseObject({
  task_id: z.string(),
  state: z.string(),
  turn_id: z.string().optional(),
  thread_id: z.string().optional(),
  error: z.string().optional(),
});

export const AnswerSchema = z.looseObject({ request_id: z.string(), state: z.string() });

export const ResultSchema = z.looseObject({
  task_id: z.string(),
  state: z.string(),
  final_message: z.string().optional(),
  evidence: z
    .looseObject({
      commands: z.array(z.looseObject({ command: z.string(), exit_code: z.number().optional(), status: z.string() })).optional(),
      file_changes: z.array(z.looseObject({ path: z.string(), kind: z.string() })).optional(),
      host_reports: z.looseObject({ items: z.array(z.looseObject({ request_id: z.string(), status: z.string().optional(), state: z.string() })) }).optional(),
      git: z.looseObject({ status: z.array(z.string()), status_count: z.number() }).optional(),
    })
    .optional(),
});
export type ResultView = z.infer<typeof ResultSchema>;

export const ArtifactSchema = z.looseObject({ path: z.string(), size: z.number(), sha256: z.string(), mime: z.string() });

/** Settled states: the turn is over, or the bridge can say no more about it. */
export const SETTLED = new Set(["completed", "failed", "interrupted", "connection_lost", "unknown"]);

/** The text blocks of a tool result joined: what a supervisor reads. */
export function textOf(r: CallToolResult): string {
  return r.content
    .filter((c): c is { type: "text"; text: string } => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

/** Text carried by embedded resources (codex_artifact puts a text file's content there). */
export function resourceTextOf(r: CallToolResult): string | undefined {
  for (const c of r.content) {
    if (c.type === "resource" && "text" in c.resource && typeof c.resource.text === "string") return c.resource.text;
  }
  return undefined;
}

/** structuredContent read through a schema; a tool error or an unexpected shape becomes an Error with the tool's words. */
export function structured<S extends z.ZodType>(tool: string, r: CallToolResult, schema: S): z.infer<S> {
  if (r.isError) throw new Error(`${tool} failed: ${textOf(r)}`);
  const parsed = schema.safeParse(r.structuredContent);
  if (!parsed.success) throw new Error(`${tool} answered in an unexpected shape: ${parsed.error.message}`);
  return parsed.data;
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Adds the way out when, and only when, the failure is that no Codex executable was found (a message that merely
 * mentions codex_artifact and "does not exist" is no reason to reinstall Codex).
 */
export function withCodexHint(err: unknown): string {
  const message = errorText(err);
  if (!(err instanceof CodexNotFoundError)) return message;
  return `${message}\nTo fix: run \`npm ci\` in the codex-bridge checkout (it installs the pinned Codex), or set CODEX_BIN to the absolute path of the native codex executable.`;
}

/**
 * A TMPDIR of the run's own for Codex: its sandbox leaves helper directories in TMPDIR (e.g. bwrap mount targets),
 * and a command that promises to clean up everything it created must not leave those behind either.
 */
export function runTmpDir(prefix: string): { env: Record<string, string | undefined>; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-tmp-`));
  return {
    env: { ...process.env, TMPDIR: dir, TMP: dir, TEMP: dir },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
