// The live Streamable HTTP sessions of `serve --http`: each holds an McpServer, so idle ones are closed after a
// timeout and their number is capped; without both, every `initialize` a client ever sent stayed in memory.
/** A session nobody used for this long is closed; a client that comes back gets 404 and re-initializes. */
export const DEFAULT_SESSION_IDLE_MS = 10 * 60 * 1000;
/** Live sessions at most; one more `initialize` is refused with 503 until one is closed or expires. */
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
   * Reserves room for one new session (sweeping expired ones first when full); false at the cap. Call the returned
   * release once the initialize ended, whether or not it registered a session.
   */
  reserve(): (() => void) | null {
    if (this.sessions.size + this.reserved >= this.limits.maxSessions) this.sweep();
    if (this.sessions.size + this.reserved >= this.limits.maxSessions) return null;
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
