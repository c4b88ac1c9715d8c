// The live Streamable HTTP sessions of `serve --http`: each holds an McpServer, so idle ones are closed after a
// timeout and their number is capped; without both, every `initialize` a client ever sent stayed in memory.
/** A session nobody used for this long is closed; a client that comes back gets 404 and re-initializes. */
export const DEFAULT_SESSION_IDLE_MS = 10 * 60 * 1000;
/**
 * Live sessions at most. At the cap a new `initialize` closes the least recently used idle session (a client that
 * reconnects without DELETE leaves those behind); only when every session has a request in flight is it refused (503).
 */
export const DEFAULT_MAX_SESSIONS = 100;
/** The sweep runs this often at most (and more often for short idle timeouts, so they are honoured). */
const MAX_SWEEP_INTERVAL_MS = 60_000;

export interface SessionLimits {
  idleMs: number;
  maxSessions: number;
}

export interface Closable {
  close(): Promise<void>;
}

interface Entry<S> {
  session: S;
  lastSeen: number;
  /** HTTP exchanges for this session still open (a POST being answered, a GET stream): a busy session is not idle. */
  open: number;
}

export class SessionRegistry<S extends Closable> {
  private readonly sessions = new Map<string, Entry<S>>();
  /** Initializes admitted but not yet registered: they count against the cap. */
  private reserved = 0;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    readonly limits: SessionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  /**
   * Reserves room for one new session (when full: sweeping expired ones, then closing the least recently used idle
   * one); null when every session is busy. Call the returned release once the initialize ended, whether or not it
   * registered a session. `onEvicted` hears of a session closed to make room.
   */
  reserve(onEvicted?: (idleMs: number) => void): (() => void) | null {
    const full = () => this.sessions.size + this.reserved >= this.limits.maxSessions;
    if (full()) this.sweep();
    if (full()) {
      const victim = this.leastRecentlyUsedIdle();
      if (victim) {
        onEvicted?.(this.now() - victim[1].lastSeen);
        void this.close(victim[0]);
      }
    }
    if (full()) return null;
    this.reserved++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.reserved--;
    };
  }

  has(id: string): boolean {
    return this.sessions.has(id);
  }

  add(id: string, session: S): void {
    this.sessions.set(id, { session, lastSeen: this.now(), open: 0 });
  }

  /** The session for one HTTP exchange; call done() when the exchange ended (the response closed). */
  use(id: string): { session: S; done: () => void } | null {
    const e = this.sessions.get(id);
    if (!e) return null;
    e.open++;
    e.lastSeen = this.now();
    let finished = false;
    return {
      session: e.session,
      done: () => {
        if (finished) return;
        finished = true;
        e.open--;
        e.lastSeen = this.now();
      },
    };
  }

  /** Forgets a session that closed by itself (its transport's onclose). */
  forget(id: string): void {
    this.sessions.delete(id);
  }

  async close(id: string): Promise<void> {
    const e = this.sessions.get(id);
    if (!e) return;
    this.sessions.delete(id);
    await e.session.close().catch(() => {});
  }

  /** The idle session (no exchange open) used longest ago, if any. */
  private leastRecentlyUsedIdle(): [string, Entry<S>] | null {
    let oldest: [string, Entry<S>] | null = null;
    for (const entry of this.sessions) if (entry[1].open === 0 && (!oldest || entry[1].lastSeen < oldest[1].lastSeen)) oldest = entry;
    return oldest;
  }

  /** Closes every session idle (nothing open) for longer than the timeout; returns how many. */
  sweep(): number {
    const cutoff = this.now() - this.limits.idleMs;
    let n = 0;
    for (const [id, e] of this.sessions) {
      if (e.open === 0 && e.lastSeen < cutoff) {
        n++;
        void this.close(id);
      }
    }
    return n;
  }

  startSweeping(onSwept?: (n: number) => void): void {
    if (this.timer) return;
    const every = Math.min(MAX_SWEEP_INTERVAL_MS, Math.max(50, Math.floor(this.limits.idleMs / 4)));
    this.timer = setInterval(() => {
      const n = this.sweep();
      if (n > 0) onSwept?.(n);
    }, every);
    this.timer.unref?.();
  }

  async closeAll(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }
}
