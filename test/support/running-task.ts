// Test support: the task domain over an in-memory state and a scripted app-server connection, with one task running
// on a thread (what the real Codex cannot be made to hold still for), and Codex asking it for a command approval.
import { getPlatform } from "../../platform/index.ts";
import type { AppServerClient } from "../../src/codex/client.ts";
import { builtinProfile } from "../../src/config/schema.ts";
import { redactor } from "../../src/policy/redact.ts";
import type { CodexRuntime } from "../../src/runtime/app-server.ts";
import { RuntimePool } from "../../src/runtime/pool.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { openStateDatabase, type OpenedStore } from "../../src/store/open.ts";
import { Repo } from "../../src/store/repo.ts";
import { TaskDomain } from "../../src/tasks/domain.ts";
import { fakeClient, type FakeClient } from "./fake-codex-client.ts";

export interface RunningTask {
  store: OpenedStore;
  repo: Repo;
  codex: FakeClient;
  domain: TaskDomain;
  settings: ConstructorParameters<typeof TaskDomain>[2];
  /** Codex asks to run `command`; returns the request id the bridge gave it. */
  ask(rpcId: number, command?: string): string;
}

export async function runningTask(o: { task: string; thread: string; root: string; connectionId: string; approvals: "supervisor" | "person" | "either" }): Promise<RunningTask> {
  const store = await openStateDatabase(await getPlatform(), ":memory:", MIGRATIONS);
  const repo = new Repo(store.db, redactor);
  const codex = fakeClient(o.connectionId);
  const runtime = { current: codex, loadedThreads: new Set<string>() };
  const runtimes = new RuntimePool({ profiles: {}, env: {}, userHome: "/home/nobody", make: () => runtime as unknown as CodexRuntime });
  const settings = {
    projects: { demo: { id: "demo", cwd: o.root } },
    profiles: { default: { ...builtinProfile("default"), approvals: o.approvals } },
    relay: { enabled: true, max_result_bytes: 4096 },
    ackTimeoutMs: 1000,
    maxWaitSeconds: 60,
  };
  const domain = new TaskDomain(repo, runtimes, settings);
  repo.insertTask({ id: o.task, project_id: "demo", profile_id: "default", prompt: "build it", relay: true, model: null, effort: null, state: "completed" });
  repo.updateTask(o.task, { thread_id: o.thread });
  domain.recoverAfterRestart();
  repo.updateTask(o.task, { state: "running", turn_id: "turn-1", connection_id: codex.connectionId });
  return {
    store,
    repo,
    codex,
    domain,
    settings,
    ask(rpcId, command = "npm test") {
      domain.onServerRequest(codex as unknown as AppServerClient, {
        id: rpcId,
        method: "item/commandExecution/requestApproval",
        params: { threadId: o.thread, turnId: "turn-1", itemId: `call_${rpcId}`, command, cwd: `${o.root}/pkg`, reason: "run the tests", availableDecisions: ["accept", "decline", "cancel"] },
      });
      return repo.interactions(o.task).find((x) => x.rpc_id === rpcId)!.id;
    },
  };
}
