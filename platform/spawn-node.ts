// node:child_process implementation of Platform.spawn. Bun and Deno implement node:child_process too,
// so all three runtimes share this one.
import { spawn as nodeSpawn, type ChildProcess } from "node:child_process";
import type { ChildExit, ChildHandle, SpawnOptions } from "./types.ts";

const isWindows = process.platform === "win32";

// 'close' waits for stdio to drain, but a grandchild that inherited stdout can keep it open for ever;
// after 'exit' we give the pipes this long to drain before reporting the exit anyway.
const DRAIN_GRACE_MS = 250;

export class SpawnError extends Error {
  constructor(
    readonly command: string,
    message: string,
  ) {
    super(message);
    this.name = "SpawnError";
  }
}

export function spawnChild(command: string, args: string[], opts: SpawnOptions): ChildHandle {
  const child = nodeSpawn(command, args, {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ["pipe", "pipe", "pipe"],
    // Own process group on POSIX so killTree reaches grandchildren. On Windows 'detached' would open a console.
    detached: !isWindows,
    windowsHide: true,
  });
  // Spawn failures (ENOENT, EACCES) surface only as an async 'error'; without a listener they crash the process.
  child.on("error", () => {});
  if (child.pid === undefined) {
    throw new SpawnError(command, `cannot start "${command}": not found or not executable${opts.cwd ? ` (cwd ${opts.cwd})` : ""}`);
  }
  return new NodeChildHandle(child, child.pid);
}

class NodeChildHandle implements ChildHandle {
  readonly exited: Promise<ChildExit>;
  private exitInfo: ChildExit | undefined;
  private readonly exitCallbacks: Array<(exit: ChildExit) => void> = [];
  private stdinGone = false;

  constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
  ) {
    const stdin = child.stdin!;
    // EPIPE and friends arrive here; swallowing them keeps a dead child from killing the bridge.
    stdin.on("error", () => {
      this.stdinGone = true;
    });
    stdin.on("close", () => {
      this.stdinGone = true;
    });
    child.stdout!.setEncoding("utf8");
    child.stderr!.setEncoding("utf8");
    child.stdout!.on("error", () => {});
    child.stderr!.on("error", () => {});

    this.exited = new Promise<ChildExit>((resolve) => {
      let exitSeen: ChildExit | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = (exit: ChildExit): void => {
        if (this.exitInfo) return;
        if (timer) clearTimeout(timer);
        this.exitInfo = exit;
        resolve(exit);
        for (const cb of this.exitCallbacks.splice(0)) this.safeCall(cb, exit);
      };
      child.on("exit", (code, signal) => {
        exitSeen = { code, signal: signal ?? null };
        this.stdinGone = true;
        timer = setTimeout(() => settle(exitSeen!), DRAIN_GRACE_MS);
      });
      child.on("close", (code, signal) => {
        settle(exitSeen ?? { code: typeof code === "number" && code >= 0 ? code : null, signal: signal ?? null });
      });
    });
  }

  write(data: string): Promise<void> {
    const stdin = this.child.stdin!;
    if (this.stdinGone || stdin.destroyed || !stdin.writable) {
      return Promise.reject(new Error(`cannot write to process ${this.pid}: its stdin is closed`));
    }
    return new Promise<void>((resolve, reject) => {
      try {
        stdin.write(data, "utf8", (err) => {
          if (err) {
            this.stdinGone = true;
            reject(new Error(`cannot write to process ${this.pid}: ${err.message}`));
          } else resolve();
        });
      } catch (err) {
        this.stdinGone = true;
        reject(new Error(`cannot write to process ${this.pid}: ${(err as Error).message}`));
      }
    });
  }

  endStdin(): void {
    this.stdinGone = true;
    try {
      this.child.stdin!.end();
    } catch {
      // already closed
    }
  }

  onStdout(cb: (chunk: string) => void): void {
    this.child.stdout!.on("data", (chunk: string) => cb(chunk));
  }

  pauseStdout(): void {
    this.child.stdout!.pause();
  }

  resumeStdout(): void {
    this.child.stdout!.resume();
  }

  onStderr(cb: (chunk: string) => void): void {
    this.child.stderr!.on("data", (chunk: string) => cb(chunk));
  }

  onExit(cb: (exit: ChildExit) => void): void {
    if (this.exitInfo) {
      const exit = this.exitInfo;
      queueMicrotask(() => this.safeCall(cb, exit));
    } else {
      this.exitCallbacks.push(cb);
    }
  }

  killTree(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): void {
    if (isWindows) {
      // taskkill /T walks the child tree; Windows has no process groups to signal.
      try {
        const killer = nodeSpawn("taskkill", ["/T", "/F", "/PID", String(this.pid)], { stdio: "ignore", windowsHide: true });
        killer.on("error", () => this.killChildOnly(signal));
      } catch {
        this.killChildOnly(signal);
      }
      return;
    }
    try {
      // The group outlives its leader: this still reaches grandchildren after the child itself exited.
      process.kill(-this.pid, signal);
    } catch {
      this.killChildOnly(signal);
    }
  }

  private killChildOnly(signal: "SIGTERM" | "SIGKILL"): void {
    try {
      this.child.kill(signal);
    } catch {
      // already gone
    }
  }

  private safeCall(cb: (exit: ChildExit) => void, exit: ChildExit): void {
    try {
      cb(exit);
    } catch (err) {
      // A throwing listener must not stop the others, nor turn into an unhandled exception inside a child event.
      queueMicrotask(() => {
        throw err;
      });
    }
  }
}
