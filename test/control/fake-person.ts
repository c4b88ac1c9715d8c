// Test support: a PersonService over an in-memory state and a scripted app-server connection (for what the real
// Codex cannot be made to do on demand: the endpoint's permissions, a hung notifier), with one running task.
import { getPlatform } from "../../platform/index.ts";
import type { AppServerClient } from "../../src/codex/client.ts";
import { builtinProfile } from "../../src/config/schema.ts";
import { redactor } from "../../src/policy/redact.ts";
import type { CodexRuntime } from "../../src/runtime/app-server.ts";
import { RuntimePool } from "../../src/runtime/pool.ts";
import { PersonService } from "../../src/service/person.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { openStateDatabase, type OpenedStore } from "../../src/store/open.ts";
import { Repo } from "../../src/store/repo.ts";
import { viewReads } from "../../src/views/reads.ts";
import { TaskDomain } from "../../src/tasks/domain.ts";
import { fakeClient, type FakeClient } from "../support/fake-codex-client.ts";

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
  const platform = await getPlatform();
  const store = await openStateDatabase(platform, ":memory:", MIGRATIONS);
  const repo = new Repo(store.db, redactor);
  const codex = fakeClient("conn-person");
  const runtime = { current: codex, loadedThreads: new Set<string>() };
  const runtimes = new RuntimePool({ profiles: {}, env: {}, userHome: "/home/nobody", make: () => runtime as unknown as CodexRuntime });
  const settings = {
    projects: { demo: { id: "demo", cwd: ROOT } },
    profiles: { default: { ...builtinProfile("default"), approvals } },
    relay: { enabled: true, max_result_bytes: 4096 },
    ackTimeoutMs: 1000,
    maxWaitSeconds: 60,
  };
  const sup = new TaskDomain(repo, runtimes, settings);
  repo.insertTask({ id: TASK, project_id: "demo", profile_id: "default", prompt: "build it", relay: true, model: null, effort: null, state: "completed" });
  repo.updateTask(TASK, { thread_id: THREAD });
  sup.recoverAfterRestart();
  repo.updateTask(TASK, { state: "running", turn_id: "turn-1", connection_id: codex.connectionId });
  return {
    store,
    repo,
    sup,
    codex,
    person: new PersonService(sup, viewReads(sup, repo, settings)),
    ask(rpcId, command = "npm test") {
      sup.onServerRequest(codex as unknown as AppServerClient, {
        id: rpcId,
        method: "item/commandExecution/requestApproval",
        params: { threadId: THREAD, turnId: "turn-1", itemId: `call_${rpcId}`, command, cwd: `${ROOT}/pkg`, reason: "run the tests", availableDecisions: ["accept", "decline", "cancel"] },
      });
      return repo.interactions(TASK).find((x) => x.rpc_id === rpcId)!.id;
    },
  };
}
