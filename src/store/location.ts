// Where the state database lives: explicit env, else the data dir (or the pre-rename location a user already has),
// else a directory in the launch dir when the data dir cannot be created.
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export type StatePathSource = "env" | "legacy-env" | "default" | "legacy-default" | "fallback" | "memory";

export interface StateLocation {
  path: string;
  source: StatePathSource;
}

export interface ResolveStatePathInput {
  env: Record<string, string | undefined>;
  /** The platform's data dir (Platform.dirs().data). */
  dataDir: string;
  /** The launch directory, home of the fallback location. */
  cwd: string;
  /** Creates a directory and its parents; throws when it cannot. Injected by tests. */
  mkdir?: (path: string) => void;
}

export const MEMORY_PATH = ":memory:";
export const STATE_FILE_NAME = "state.sqlite3";
const APP_DIR = "codex-bridge";
const LEGACY_APP_DIR = "codex-supervisor-mcp";

const defaultMkdir = (path: string): void => {
  mkdirSync(path, { recursive: true, mode: 0o700 });
};

export function resolveStatePath(input: ResolveStatePathInput): StateLocation {
  const { env, dataDir, cwd } = input;
  const mkdir = input.mkdir ?? defaultMkdir;

  const fromEnv = (value: string | undefined, source: "env" | "legacy-env"): StateLocation | undefined => {
    if (value === undefined || value.trim() === "") return undefined;
    if (value === MEMORY_PATH) return { path: MEMORY_PATH, source: "memory" };
    return { path: resolve(cwd, value), source };
  };
  const explicit = fromEnv(env.CODEX_BRIDGE_STATE, "env") ?? fromEnv(env.CODEX_SUPERVISOR_STATE, "legacy-env");
  if (explicit) return explicit;

  const preferred = join(dataDir, APP_DIR, STATE_FILE_NAME);
  const legacy = join(dataDir, LEGACY_APP_DIR, STATE_FILE_NAME);
  // A user upgrading from codex-supervisor-mcp keeps their tasks until a codex-bridge database exists.
  if (!existsSync(preferred) && existsSync(legacy)) return { path: legacy, source: "legacy-default" };
  try {
    mkdir(dirname(preferred));
    return { path: preferred, source: "default" };
  } catch {
    return { path: join(resolve(cwd), ".supervisor", STATE_FILE_NAME), source: "fallback" };
  }
}
