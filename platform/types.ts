// The one seam between the runtime-neutral source and Node, Bun or Deno.
// Everything runtime-specific (child processes, the SQLite driver, OS dirs) hides behind this.

export type SqlValue = string | number | bigint | null | Uint8Array;
export type Row = Record<string, SqlValue>;

export interface RunResult {
  changes: number;
  lastInsertRowid: number;
}

export interface Statement {
  run(...params: SqlValue[]): RunResult;
  /** A missing row is `undefined` under every driver. */
  get(...params: SqlValue[]): Row | undefined;
  all(...params: SqlValue[]): Row[];
}

export interface Database {
  exec(sql: string): void;
  prepare(sql: string): Statement;
  /** Runs fn inside BEGIN IMMEDIATE … COMMIT; rolls back and rethrows on error. Nested calls join the outer one. */
  transaction<T>(fn: () => T): T;
  close(): void;
}

export interface SpawnOptions {
  cwd?: string;
  env: Record<string, string>;
}

export interface ChildExit {
  code: number | null;
  signal: string | null;
}

export interface ChildHandle {
  readonly pid: number;
  /** Writes to the child's stdin; resolves once the data was handed to the OS, rejects when the pipe is gone. */
  write(data: string): Promise<void>;
  endStdin(): void;
  onStdout(cb: (chunk: string) => void): void;
  /** Stops reading the child's stdout (it blocks once the pipe is full) until resumeStdout. */
  pauseStdout?(): void;
  resumeStdout?(): void;
  onStderr(cb: (chunk: string) => void): void;
  /** Called exactly once. */
  onExit(cb: (exit: ChildExit) => void): void;
  /** Signals the whole process group (the child was started as its leader). */
  killTree(signal?: "SIGTERM" | "SIGKILL"): void;
  readonly exited: Promise<ChildExit>;
}

export interface OsDirs {
  config: string;
  data: string;
  home: string;
}

export interface Platform {
  readonly name: "node" | "bun" | "deno";
  spawn(command: string, args: string[], opts: SpawnOptions): ChildHandle;
  /**
   * A connection to an app-server's Unix control socket (WebSocket over the socket), presented like a child whose
   * stdout carries one JSON-RPC message per line; `killTree` and `endStdin` only drop the connection.
   */
  connectSocket(socketPath: string): Promise<ChildHandle>;
  openDatabase(path: string): Promise<Database>;
  /** true when a process with this pid exists (signal 0). */
  processAlive(pid: number): boolean;
  dirs(): OsDirs;
  /** On Windows: true when the path is a junction or other reparse point. Elsewhere false. */
  isReparsePoint(path: string): boolean;
  /**
   * A garbage collection that returns freed memory, where the runtime offers one (Bun): full and synchronous, or, with
   * `full` false, a quick one of what was allocated lately.
   */
  collectGarbage?(full: boolean): void;
}
