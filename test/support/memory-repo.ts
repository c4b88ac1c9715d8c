// A Repo over a fresh in-memory state database (all migrations applied, the built-in redactor) holding one task.
import { getPlatform } from "../../platform/index.ts";
import { openStateDatabase, type OpenedStore } from "../../src/store/open.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { Repo } from "../../src/store/repo.ts";
import { redactor } from "../../src/policy/redact.ts";
import type { TaskState } from "../../src/store/rows.ts";

export async function memoryRepo(taskId: string, state: TaskState): Promise<{ store: OpenedStore; repo: Repo }> {
  const store = await openStateDatabase(await getPlatform(), ":memory:", MIGRATIONS);
  const repo = new Repo(store.db, redactor);
  repo.insertTask({ id: taskId, project_id: "p", profile_id: "default", prompt: "go", relay: true, model: null, effort: null, state });
  return { store, repo };
}
