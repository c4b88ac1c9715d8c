// What the app-server tells the bridge is stored before anyone is told of it. When the state database refuses a write
// (a full disk, an I/O error) the write is held, in order, with every one after it; reading from the app-server pauses
// so no more arrives than memory already holds; and the writes are retried until the disk takes them again.
import type { EventLog } from "../log.ts";
import type { RuntimePool } from "../runtime/pool.ts";
import { StoreError } from "../store/errors.ts";

/** First retry after this long, then doubling up to the cap: a freed disk is noticed within the cap. */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 2_000;

export interface HeldWritesHooks {
  /** Stop taking input whose writes would only pile up in memory (the app-server's stdout); tell the waiters. */
  pause(): void;
  resume(): void;
  /** Every wait looks again: a condition of the whole bridge began or ended. */
  wake?(): void;
}

interface Held {
  what: string;
  run: () => void;
}

export class HeldWrites {
  private readonly queue: Held[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private delayMs = FIRST_RETRY_MS;
  private heldSince = 0;
  private lastError: StoreError | null = null;
  private hooks: HeldWritesHooks | null = null;
  private inside = false;

  constructor(private readonly log: EventLog) {}

  /** Set once the runtime exists (it is built after the task context). */
  attach(hooks: HeldWritesHooks): this {
    this.hooks = hooks;
    return this;
  }

  /** Wakes every wait (an app-server went silent or answered again). */
  wakeWaiters(): void {
    this.hooks?.wake?.();
  }

  /** Writes waiting for the disk; 0 when nothing is held. */
  get size(): number {
    return this.queue.length;
  }

  /** Why writes are held, while they are. */
  get reason(): StoreError | null {
    return this.queue.length ? this.lastError : null;
  }

  /**
   * Runs a write now, or, while earlier ones are held, after them. `fn` must be safe to run again after it failed:
   * one transaction whose rollback puts back what it took from memory (Repo.onRollback).
   */
  run(what: string, fn: () => void): void {
    // A write inside another is part of it: it fails, is held and is retried with the enclosing one.
    if (this.inside) return fn();
    if (this.queue.length) {
      this.queue.push({ what, run: fn });
      return;
    }
    this.inside = true;
    try {
      fn();
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      this.queue.push({ what, run: fn });
      this.hold(err, what);
    } finally {
      this.inside = false;
    }
  }

  /** When the writes now held began to be held. */
  get heldSinceIso(): string {
    return new Date(this.heldSince).toISOString();
  }

  /** Tries the held writes now (also on a timer); true when none is left. */
  retry(): boolean {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.queue.length) {
      const head = this.queue[0]!;
      this.inside = true;
      try {
        head.run();
      } catch (err) {
        if (err instanceof StoreError) {
          this.lastError = err;
          this.schedule();
          return false;
        }
        // Not the disk: a defect in that write. Dropping it keeps the rest flowing; the log names it.
        this.log("error", "held_write_failed", { what: head.what, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
      } finally {
        this.inside = false;
      }
      this.queue.shift();
    }
    this.delayMs = FIRST_RETRY_MS;
    this.log("info", "storage_resumed", { held_ms: Date.now() - this.heldSince });
    this.hooks?.resume();
    return true;
  }

  private hold(err: StoreError, what: string): void {
    this.lastError = err;
    this.heldSince = Date.now();
    this.log("error", "storage_write_held", { what, cause: err.storageCause, error: err.message });
    this.hooks?.pause();
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.retry(), this.delayMs);
    (this.timer as { unref?: () => void }).unref?.();
    this.delayMs = Math.min(this.delayMs * 2, MAX_RETRY_MS);
  }

  /** Stops retrying (the bridge is closing); what is held stays unwritten. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** While writes are held nothing more is read from any app-server (what it sends waits in its pipe, unacknowledged). */
export function pauseReadingWhileHeld(runtimes: RuntimePool, wakeAll: () => void): HeldWritesHooks {
  return {
    pause: () => {
      for (const s of runtimes.all()) s.runtime.current?.pauseReading();
      wakeAll();
    },
    resume: () => {
      for (const s of runtimes.all()) s.runtime.current?.resumeReading();
      wakeAll();
    },
    wake: wakeAll,
  };
}
