// Tells the person when it matters: a request awaits them, a task ended (completed, failed, interrupted or lost), or
// the bridge stops with work live. It follows every task's stored changes, reads each changed task once off the
// intake's path, and hands events to the sinks through a per-sink queue: a slow or failing sink delays no tool answer
// and no other sink. Rate-limited; each sink's failure is logged once (until it works again).
import type { NotifySettings } from "../config/notify-schema.ts";
import type { EventLog } from "../log.ts";
import type { TaskNotice } from "../service/person.ts";
import { endEvent, requestEvent, stoppingEvent, type NotifyEvent } from "./event.ts";
import type { Sink } from "./sinks.ts";

const WINDOW_MS = 60_000;
// Tasks whose last state and announcements are remembered; past this the least recently changed is forgotten, so a
// bridge that runs for months holds a bounded set. A forgotten task that changes again is met as new: its open
// requests may be announced once more, an end is announced only if it is a new turn's or a new state.
const TRACKED_MAX = 1_000;
// Events waiting for one sink beyond this are dropped (oldest first): a sink that is down must not hold memory.
const QUEUE_MAX = 50;

/** What the notifier reads of the bridge: the PersonService, as an interface so tests can count calls. */
export interface NoticeSource {
  onChange(fn: (taskId: string) => void): () => void;
  notice(taskId: string): TaskNotice | undefined;
  liveWork(): { tasks: string[]; pending: number };
}

interface Tracked {
  state: string | undefined;
  /** Request ids, and `end:<turn>:<state>` keys, already announced for this task. */
  announced: Set<string>;
}

interface Lane {
  sink: Sink;
  queue: NotifyEvent[];
  running: boolean;
  failing: boolean;
}

export class Notifier {
  private readonly lanes: Lane[];
  private readonly tracked = new Map<string, Tracked>();
  private readonly due = new Set<string>();
  private readonly sent: number[] = [];
  private dropped = 0;
  private limitedLogged = false;
  private scheduled = false;
  private off: (() => void) | null = null;

  constructor(
    private readonly settings: NotifySettings,
    sinks: Sink[],
    private readonly source: NoticeSource,
    private readonly log: EventLog,
  ) {
    this.lanes = sinks.map((sink) => ({ sink, queue: [], running: false, failing: false }));
  }

  start(): void {
    if (this.lanes.length === 0) return;
    this.off = this.source.onChange((id) => {
      this.due.add(id);
      if (this.scheduled) return;
      this.scheduled = true;
      // Never on the intake's path: the check reads the database, after the write that woke us is done.
      setImmediate(() => this.check());
    });
  }

  /** The bridge stops: says so when work is live, then gives deliveries up to `ms` to finish. */
  async stopping(ms: number): Promise<void> {
    this.off?.();
    this.off = null;
    if (this.lanes.length === 0) return;
    const live = this.source.liveWork();
    if (live.tasks.length > 0 || live.pending > 0) this.emit(stoppingEvent(live));
    const deadline = Date.now() + ms;
    while (this.lanes.some((l) => l.running || l.queue.length) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  }

  private check(): void {
    this.scheduled = false;
    const ids = [...this.due];
    this.due.clear();
    for (const id of ids) {
      try {
        this.checkTask(id);
      } catch (err) {
        this.log("warn", "notify_check_failed", { task: id, error: err instanceof Error ? err.constructor.name : "unknown" });
      }
    }
  }

  private checkTask(id: string): void {
    const n = this.source.notice(id);
    if (!n) return;
    const t = this.track(id);
    for (const r of n.awaiting) {
      if (t.announced.has(r.request_id)) continue;
      t.announced.add(r.request_id);
      this.emit(requestEvent(n, r, this.settings.include_text));
    }
    const before = t.state;
    t.state = n.state;
    if (!n.settled) return;
    // An end seen as it happens: a stored change of a task this bridge had not seen, or seen in another state (tasks
    // a restart settled are settled before the notifier starts, so they never wake it). Once per turn and state.
    const key = `end:${n.turn_count}:${n.state}`;
    if (before === n.state || t.announced.has(key)) return;
    // A settled task's requests are answered or gone: only this end needs remembering.
    t.announced = new Set([key]);
    this.emit(endEvent(n, this.settings.include_text));
  }

  /** This task's record, now the most recently changed; the least recently changed one goes past TRACKED_MAX. */
  private track(id: string): Tracked {
    const t = this.tracked.get(id) ?? { state: undefined, announced: new Set<string>() };
    this.tracked.delete(id);
    this.tracked.set(id, t);
    if (this.tracked.size > TRACKED_MAX) this.tracked.delete(this.tracked.keys().next().value!);
    return t;
  }

  /** How many tasks' states and announcements are held (bounded). */
  get trackedTasks(): number {
    return this.tracked.size;
  }

  private emit(e: NotifyEvent): void {
    if (!this.settings.events.includes(e.event)) return;
    const now = Date.now();
    while (this.sent.length && now - this.sent[0]! >= WINDOW_MS) this.sent.shift();
    if (this.sent.length >= this.settings.max_per_minute) {
      this.dropped++;
      if (!this.limitedLogged) this.log("warn", "notify_rate_limited", { per_minute: this.settings.max_per_minute });
      this.limitedLogged = true;
      return;
    }
    this.sent.push(now);
    this.limitedLogged = false;
    const out: NotifyEvent = { ...e, ...(this.dropped ? { dropped: this.dropped } : {}), ...(this.settings.topic ? { topic: this.settings.topic } : {}) };
    this.dropped = 0;
    for (const lane of this.lanes) {
      // The topic is the webhook's business only.
      const mine = lane.sink.name === "webhook" || !out.topic ? out : { ...out, topic: undefined };
      lane.queue.push(mine);
      if (lane.queue.length > QUEUE_MAX) lane.queue.shift();
      void this.drain(lane);
    }
  }

  private async drain(lane: Lane): Promise<void> {
    if (lane.running) return;
    lane.running = true;
    try {
      for (let e = lane.queue.shift(); e; e = lane.queue.shift()) {
        try {
          await lane.sink.deliver(e);
          if (lane.failing) this.log("info", "notify_recovered", { sink: lane.sink.name });
          lane.failing = false;
        } catch (err) {
          if (!lane.failing) this.log("warn", "notify_failed", { sink: lane.sink.name, error: reason(err), event: e.event });
          lane.failing = true;
        }
      }
    } finally {
      lane.running = false;
    }
  }
}

function reason(err: unknown): string {
  if (!(err instanceof Error)) return "unknown";
  const code = (err as NodeJS.ErrnoException).code ?? (err.cause as NodeJS.ErrnoException | undefined)?.code;
  return code ?? (/^[a-z0-9_]{1,40}$/.test(err.message) ? err.message : err.name);
}
