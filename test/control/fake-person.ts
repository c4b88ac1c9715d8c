// Test support: a PersonService over an in-memory state and a scripted app-server connection (for what the real
// Codex cannot be made to do on demand: the endpoint's permissions, a hung notifier), with one running task.
import { PersonService } from "../../src/service/person.ts";
import type { OpenedStore } from "../../src/store/open.ts";
import { Repo } from "../../src/store/repo.ts";
import { viewReads } from "../../src/views/reads.ts";
import { TaskDomain } from "../../src/tasks/domain.ts";
import type { FakeClient } from "../support/fake-codex-client.ts";
import { runningTask } from "../support/running-task.ts";

export const TASK = "t_00000000ab";
export const THREAD = "thread-person";
export const ROOT = "/tmp/person-project";

export interface FakePerson {
  store: OpenedStore;
  repo: Repo;
  sup: TaskDomain;
  codex: FakeClient;
  person: PersonService;
  /** Codex asks to run `command`; returns the request id the bridge gave it. */
  ask(rpcId: number, command?: string): string;
}

export async function fakePerson(approvals: "supervisor" | "person" | "either" = "person"): Promise<FakePerson> {
  const { store, repo, codex, domain: sup, settings, ask } = await runningTask({ task: TASK, thread: THREAD, root: ROOT, connectionId: "conn-person", approvals });
  return {
    store,
    repo,
    sup,
    codex,
    person: new PersonService(sup, viewReads(sup, repo, settings)),
    ask,
  };
}
