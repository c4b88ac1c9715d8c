// OS facts shared by every runtime: Node, Bun and Deno all provide node:os, node:fs and process.
import { lstatSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { OsDirs } from "./types.ts";

export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  // A zombie still answers signal 0, yet it will never release anything it held.
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  if (process.platform !== "linux") return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "Z" || state === "X";
  } catch {
    return false;
  }
}

export function osDirs(env: Record<string, string | undefined> = process.env, platform: string = process.platform, home: string = homedir()): OsDirs {
  const nonEmpty = (v: string | undefined): string | undefined => (v && v.trim() !== "" ? v : undefined);
  if (platform === "win32") {
    const roaming = nonEmpty(env.APPDATA) ?? join(home, "AppData", "Roaming");
    const local = nonEmpty(env.LOCALAPPDATA) ?? join(home, "AppData", "Local");
    return { config: roaming, data: local, home };
  }
  if (platform === "darwin") {
    const support = join(home, "Library", "Application Support");
    return { config: support, data: support, home };
  }
  // XDG says relative values are invalid and must be ignored.
  const xdg = (v: string | undefined): string | undefined => {
    const value = nonEmpty(v);
    return value && value.startsWith("/") ? value : undefined;
  };
  return {
    config: xdg(env.XDG_CONFIG_HOME) ?? join(home, ".config"),
    data: xdg(env.XDG_DATA_HOME) ?? join(home, ".local", "share"),
    home,
  };
}

export function isReparsePoint(path: string, platform: string = process.platform): boolean {
  if (platform !== "win32") return false;
  try {
    // Node, Bun and Deno report Windows junctions and symlinks alike as symbolic links from lstat.
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
