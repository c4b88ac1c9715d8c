// The bridge's one logger: one line per event (time, level, event code, ids), never content. A shared leaf, so the
// command line, the assembly and the task domain all write through it instead of printing on their own.
import { appendFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";

export const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFields = Record<string, string | number | boolean | null | undefined>;

/** What every part of the bridge is handed: log an event by code, with ids and numbers only. */
export type EventLog = (level: LogLevel, event: string, fields?: LogFields) => void;

// A field value is shown only when it looks like an id, a code, a number or a loopback URL; anything else (a prompt,
// a message, command output, a path with spaces) is replaced by its length. This is the net under the callers' care.
const SAFE_VALUE = /^[A-Za-z0-9_.:@+\/\[\]-]{1,160}$/;
const EVENT_NAME = /^[a-z][a-z0-9_]{0,63}$/;
const FIELD_NAME = /^[a-z][a-z0-9_]{0,31}$/;

export const DEFAULT_LOG_FILE_BYTES = 5 * 1024 * 1024;
export const DEFAULT_LOG_FILES = 3;

export interface LoggerOptions {
  level?: LogLevel;
  /** Writes one finished line (newline included); default: the process's stderr. */
  stderr?: (line: string) => void;
  /** Events go to this file instead of stderr (errors go to both); rotated by size. */
  file?: string;
  maxFileBytes?: number;
  /** Rotated files kept beside the current one (PATH.1 … PATH.N). */
  keepFiles?: number;
  now?: () => Date;
}

function formatValue(v: LogFields[string]): string {
  if (v === null || v === undefined) return "none";
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return SAFE_VALUE.test(v) ? v : `<${v.length}ch>`;
}

/** One log line, without the newline: `2026-01-02T03:04:05.678Z warn turn_failed task=t_… code=auth_rejected`. */
export function formatEvent(at: Date, level: LogLevel, event: string, fields: LogFields = {}): string {
  const parts = [at.toISOString(), level, EVENT_NAME.test(event) ? event : "event"];
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined || !FIELD_NAME.test(k)) continue;
    parts.push(`${k}=${formatValue(v)}`);
  }
  return parts.join(" ");
}

export class Logger {
  private readonly level: number;
  private readonly out: (line: string) => void;
  private readonly now: () => Date;

  constructor(private readonly opts: LoggerOptions = {}) {
    this.level = LOG_LEVELS.indexOf(opts.level ?? "info");
    this.out = opts.stderr ?? ((line) => void process.stderr.write(line));
    this.now = opts.now ?? (() => new Date());
    if (opts.file) mkdirSync(dirname(opts.file), { recursive: true, mode: 0o700 });
  }

  /** The EventLog to hand to the rest of the bridge. */
  readonly log: EventLog = (level, event, fields) => {
    if (LOG_LEVELS.indexOf(level) > this.level) return;
    this.write(level, formatEvent(this.now(), level, event, fields) + "\n");
  };

  /** An event the person who started the bridge must see even when the log goes to a file (the server is ready). */
  announce(event: string, fields?: LogFields): void {
    this.write("error", formatEvent(this.now(), "info", event, fields) + "\n");
  }

  /**
   * A sentence from the bridge itself, for the person at the terminal: why it cannot start, a bad flag. It may name
   * the bridge's own config or state files, never anything a task produced.
   */
  say(level: LogLevel, event: string, text: string): void {
    if (LOG_LEVELS.indexOf(level) > this.level) return;
    this.write(level, `${formatEvent(this.now(), level, event)} ${text.replace(/\s*\n\s*/g, " ")}\n`);
  }

  /** A one-shot command's message to the person who ran it (a usage error), as plain text on stderr. */
  plain(text: string): void {
    this.out(text.endsWith("\n") ? text : `${text}\n`);
  }

  /** Writes a finished line; `error` lines also reach stderr when the log goes to a file. */
  private write(level: LogLevel, line: string): void {
    const file = this.opts.file;
    if (!file) return this.out(line);
    try {
      this.rotateIfFull(file, Buffer.byteLength(line));
      appendFileSync(file, line, { mode: 0o600 });
    } catch {
      // A full disk or a removed directory must not stop the bridge; stderr still gets the line.
      return this.out(line);
    }
    if (level === "error") this.out(line);
  }

  private rotateIfFull(file: string, adding: number): void {
    const max = this.opts.maxFileBytes ?? DEFAULT_LOG_FILE_BYTES;
    let size = 0;
    try {
      size = statSync(file).size;
    } catch {
      return;
    }
    if (size + adding <= max) return;
    const keep = this.opts.keepFiles ?? DEFAULT_LOG_FILES;
    rmSync(`${file}.${keep}`, { force: true });
    for (let i = keep - 1; i >= 1; i--) if (existsSync(`${file}.${i}`)) renameSync(`${file}.${i}`, `${file}.${i + 1}`);
    renameSync(file, `${file}.1`);
  }
}

/** For callers that log nothing (doctor's quiet assembly, tests). */
export const silentLog: EventLog = () => {};

/** Parses `--log-level`; undefined when the value is not a level. */
export function parseLogLevel(v: string): LogLevel | undefined {
  return (LOG_LEVELS as readonly string[]).includes(v) ? (v as LogLevel) : undefined;
}
