// What the task domain's parts share: the store, the runtime, the settings, live event state and which thread
// belongs to which task. One object so the task domain, the intake and the ledger see the same state.
import { randomBytes } from "node:crypto";
import type { RuntimePool } from "../runtime/pool.ts";
import type { TaskSettings } from "../config/settings.ts";
import type { EventLog } from "../log.ts";
import type { Repo } from "../store/repo.ts";
import { SETTLED_STATES, type TaskState } from "../store/rows.ts";
import type { HeldWrites } from "./held-writes.ts";
import type { TaskEvents } from "./events.ts";

export interface TaskContext {
  readonly repo: Repo;
  /** The app-servers, one per Codex home; a task stays on the connection it started on. */
  readonly runtimes: RuntimePool;
  readonly settings: TaskSettings;
  readonly events: TaskEvents;
  /** Writes held while the disk refuses them (the intake's go through it). */
  readonly writes: HeldWrites;
  /** Native thread id → the task that owns it (threads not listed here are not ours). */
  readonly threadTask: Map<string, string>;
  readonly log: EventLog;
}

export const newId = (prefix: string) => `${prefix}${randomBytes(5).toString("hex")}`;

/** Derives running / waiting_for_* from the open interactions. */
export function refreshState(ctx: TaskContext, taskId: string): void {
  const t = ctx.repo.task(taskId);
  if (!t || SETTLED_STATES.has(t.state) || t.state === "starting") return;
  const open = ctx.repo.pendingKinds(taskId);
  const next: TaskState = open.includes("tool") ? "waiting_for_tool" : open.length > 0 ? "waiting_for_approval" : "running";
  if (next !== t.state) ctx.repo.updateTask(taskId, { state: next });
}
