// Notices an app-server that is alive but answers nothing (stopped, wedged): a cheap probe when it has been quiet, a
// deadline on how long anything may wait for it, and, after a configurable time, its replacement.
import type { AppServerClient } from "../codex/client.ts";
import { threadLoadedList } from "../codex/protocol/thread.ts";
import type { EventLog } from "../log.ts";

export interface LivenessOptions {
  /** Silence (with something awaited) after which the app-server counts as not answering. Default 10 s. */
  unresponsiveMs?: number;
  /** Not answering this long: killed and replaced by itself. 0 never. Default 120 s. */
  restartAfterMs?: number;
  /** Whether a turn runs on it: a quiet app-server is probed only then (or while a request waits), not when idle. */
  busy?: () => boolean;
}

export const DEFAULT_UNRESPONSIVE_MS = 10_000;
export const DEFAULT_RESTART_AFTER_MS = 120_000;
/** A quiet app-server is asked something this often, so a stopped one is noticed even when nothing is awaited. */
const PROBE_AFTER_MS = 2_000;
const TICK_MS = 1_000;

export class LivenessWatch {
  private timer: ReturnType<typeof setInterval> | null = null;
  private probing = false;
  private replacing = false;
  readonly unresponsiveMs: number;
  readonly restartAfterMs: number;

  constructor(
    private readonly client: AppServerClient,
    private readonly opts: LivenessOptions,
    private readonly log: EventLog,
    /** Kills and replaces the app-server (the runtime's forced restart). */
    private readonly replace: (why: string) => Promise<unknown>,
    /** Told when it begins or stops counting as not answering. */
    private readonly changed: () => void = () => {},
  ) {
    this.unresponsiveMs = opts.unresponsiveMs ?? DEFAULT_UNRESPONSIVE_MS;
    this.restartAfterMs = opts.restartAfterMs ?? DEFAULT_RESTART_AFTER_MS;
    client.onAnswering = () => {
      this.log("info", "app_server_answering", { pid: client.pid });
      this.changed();
    };
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), TICK_MS);
    (this.timer as { unref?: () => void }).unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private tick(): void {
    const c = this.client;
    if (c.state === "exited") return this.stop();
    if (c.state !== "ready" || c.readingPaused) return;
    const now = Date.now();
    if (c.unresponsiveSince === null) {
      if (!this.probing && now - c.lastHeardAt >= PROBE_AFTER_MS && (c.diagnostics().pendingRequests > 0 || (this.opts.busy?.() ?? true))) {
        this.probing = true;
        // Its answer (any output at all) is what counts; the probe's own deadline is the watch's, not the request's.
        void threadLoadedList(c, { timeoutMs: 24 * 3_600_000 })
          .catch(() => {})
          .finally(() => (this.probing = false));
      }
      const silent = c.silentForMs(now);
      if (silent < this.unresponsiveMs) return;
      c.markUnresponsive(now - silent);
      this.log("warn", "app_server_unresponsive", { pid: c.pid, silent_s: Math.round(silent / 1000) });
      this.changed();
      return;
    }
    if (this.restartAfterMs > 0 && !this.replacing && now - c.unresponsiveSince >= this.restartAfterMs) {
      this.replacing = true;
      const why = `${c.silenceText(now)}, longer than the ${Math.round(this.restartAfterMs / 1000)} s after which it is replaced by itself`;
      this.log("error", "app_server_replaced", { pid: c.pid, silent_s: Math.round((now - c.unresponsiveSince) / 1000) });
      void this.replace(why).catch((err: unknown) => this.log("error", "app_server_replace_failed", { error: err instanceof Error ? err.name : "unknown" }));
    }
  }
}
