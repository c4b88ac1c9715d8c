// Where the control endpoint of a running bridge lives, derived from its state database so that the bridge and the
// `codex-bridge tasks|watch|pending|approve…` commands find the same one: a Unix domain socket in an owner-only
// directory beside the database (never a network port), or on Windows a named pipe named after the user and the file.
import { createHash } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { basename, dirname, join } from "node:path";

// sun_path holds 104 bytes on macOS and 108 on Linux, the terminating NUL included.
const MAX_SOCKET_PATH = 100;

export interface ControlEndpoint {
  /** The socket path or pipe name to listen on and connect to. */
  path: string;
  /** The owner-only directory holding the socket (absent for a Windows pipe). */
  dir?: string;
}

const userTag = (): string => {
  const u = process.platform === "win32" ? userInfo().username : String(process.getuid?.() ?? userInfo().username);
  return u.replace(/[^A-Za-z0-9._-]/g, "_");
};

/** The endpoint of the bridge using `databasePath` (its real path, symlinks resolved). */
export function controlEndpoint(databasePath: string, platform: string = process.platform): ControlEndpoint {
  const digest = createHash("sha256").update(databasePath).digest("hex").slice(0, 16);
  if (platform === "win32") return { path: `\\\\.\\pipe\\codex-bridge-${userTag()}-${digest}` };
  const dir = join(dirname(databasePath), `${basename(databasePath)}.control`);
  const path = join(dir, "socket");
  if (Buffer.byteLength(path) <= MAX_SOCKET_PATH) return { path, dir };
  // Too long for a socket address: a per-user owner-only directory in the temp dir, named after the database.
  const tmp = join(tmpdir(), `codex-bridge-control-${userTag()}`);
  return { path: join(tmp, `${digest}.sock`), dir: tmp };
}

/**
 * Creates the endpoint's directory owner-only (0700) or checks the one there: it must be a real directory (not a
 * symlink) owned by this user. Throws a sentence naming the directory otherwise.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory (a symlink or file is in the way); remove it so the bridge can create its control directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) throw new Error(`${dir} belongs to another user (uid ${st.uid}); remove it or set CODEX_BRIDGE_STATE elsewhere`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}
