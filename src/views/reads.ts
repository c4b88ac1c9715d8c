// What the views read, declared by the views so they depend on nothing wider: the stored rows, the task domain's few
// read operations, a project's root and the longest wait. The composition root builds it; the task domain's parts
// (its store, runtimes and settings) stay its own.
import type { TaskSettings } from "../config/settings.ts";
import type { Repo } from "../store/repo.ts";
import type { TaskDomain } from "../tasks/domain.ts";
import type { BridgeAlert } from "../tasks/alerts.ts";

export interface ViewReads extends Pick<TaskDomain, "task" | "sync" | "profile" | "isTerminal" | "checkUnknown" | "addWaiter"> {
  /** The store, read; a wait also moves its own cursors there. */
  readonly rows: Repo;
  /** A project's directory (paths are shown relative to it), or undefined once the project left the config. */
  projectRoot(projectId: string): string | undefined;
  /** The longest any wait may hold (the bridge setting max_wait_seconds). */
  readonly maxWaitSeconds: number;
  /** Conditions of the whole bridge now (a full disk, a silent app-server), with what to do. */
  alerts(): BridgeAlert[];
}

/** The views' reads over the task domain, its store and its settings (built once, by the composition root). */
export function viewReads(domain: TaskDomain, rows: Repo, settings: Pick<TaskSettings, "projects" | "maxWaitSeconds">): ViewReads {
  return {
    rows,
    maxWaitSeconds: settings.maxWaitSeconds,
    projectRoot: (projectId) => settings.projects[projectId]?.cwd,
    task: (id) => domain.task(id),
    sync: (id) => domain.sync(id),
    profile: (id) => domain.profile(id),
    isTerminal: (state) => domain.isTerminal(state),
    checkUnknown: (id) => domain.checkUnknown(id),
    addWaiter: (id, fn) => domain.addWaiter(id, fn),
    alerts: () => domain.alerts(),
  };
}
