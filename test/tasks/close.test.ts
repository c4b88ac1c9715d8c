// Closing the bridge stores what Codex sent and the task domain had not yet written, and leaves no flush behind to
// fire on a closed database (it once did: "The database connection is not open" from a timer, after a test ended).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
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
import { fakeClient } from "../support/fake-codex-client.ts";

const ROOT = process.cwd();
const samples = JSON.parse(readFileSync(join(ROOT, "test", "fixtures", "codex", "protocol-samples-0.171.0.json"), "utf8")) as Record<string, { msg: { method: string; params: Record<string, unknown> } }>;

let store: OpenedStore | null = null;
afterEach(() => {
  store?.close();
  store = null;
});

describe("closing the task domain", () => {
  it("stores a buffered message delta at once, and no timer touches the store after it closed", async () => {
    store = await openStateDatabase(await getPlatform(), ":memory:", MIGRATIONS);
    const repo = new Repo(store.db, redactor);
    const codex = fakeClient("conn-close");
    const runtimes = new RuntimePool({ profiles: {}, env: {}, userHome: "/home/nobody", make: () => ({ current: codex, loadedThreads: new Set<string>() }) as unknown as CodexRuntime });
    const domain = new TaskDomain(repo, runtimes, {
      projects: { demo: { id: "demo", cwd: ROOT } },
      profiles: { default: builtinProfile("default") },
      relay: { enabled: true, max_result_bytes: 4096 },
      ackTimeoutMs: 1000,
      maxWaitSeconds: 60,
    });
    const delta = structuredClone(samples["server notification item/agentMessage/delta"]!.msg);
    delta.params.delta = "Hello from Codex.\n";
    const threadId = String(delta.params.threadId);
    const turnId = String(delta.params.turnId);
    repo.insertTask({ id: "t_0000000001", project_id: "demo", profile_id: "default", prompt: "say hello", relay: true, model: null, effort: null, state: "completed" });
    repo.updateTask("t_0000000001", { thread_id: threadId });
    domain.recoverAfterRestart();
    repo.updateTask("t_0000000001", { state: "running", turn_id: turnId, connection_id: codex.connectionId });

    domain.onNotification(codex as unknown as AppServerClient, delta);
    domain.close();
    const stored = repo.events("t_0000000001", 0, 100).map((e) => [e.kind, e.data.text]);
    expect(stored).toContainEqual(["message_delta", "Hello from Codex.\n"]);

    store.close();
    store = null;
    // Longer than any flush delay: a flush left pending would now throw on the closed database.
    await new Promise((r) => setTimeout(r, 200));
  });
});
