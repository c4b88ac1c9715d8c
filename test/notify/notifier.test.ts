// The notifier's rules, over a real PersonService on an in-memory state with a scripted app-server connection:
// content-free by default, text only with include_text and redacted even then, one event per request, rate-limited
// with the count of what was held back, a failing sink logged once, and a stopping bridge with live work announced.
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import type { AppServerClient } from "../../src/codex/client.ts";
import { desktopSink } from "../../src/notify/sinks.ts";
import { tempDir } from "../support/temp-dir.ts";
import { resolveNotify, type NotifyInput } from "../../src/config/notify-schema.ts";
import type { LogFields } from "../../src/log.ts";
import type { NotifyEvent } from "../../src/notify/event.ts";
import { Notifier, type NoticeSource } from "../../src/notify/notifier.ts";
import type { TaskNotice } from "../../src/service/person.ts";
import type { Sink } from "../../src/notify/sinks.ts";
import { poll } from "../support/poll.ts";
import { fakePerson, ROOT, TASK, THREAD, type FakePerson } from "../control/fake-person.ts";

let fake: FakePerson | null = null;
afterEach(() => {
  fake?.store.close();
  fake = null;
});

const SECRET = `sk-${"a1B2c3D4".repeat(5)}`;

function recorder(name: Sink["name"] = "command"): Sink & { got: NotifyEvent[] } {
  const got: NotifyEvent[] = [];
  return { name, got, deliver: async (e) => void got.push(e) };
}

async function setup(input: NotifyInput, sinks: Sink[], approvals: "person" | "supervisor" = "person") {
  fake = await fakePerson(approvals);
  const logs: { event: string; fields?: LogFields }[] = [];
  const n = new Notifier(resolveNotify(input), sinks, fake.person, (_level, event, fields) => logs.push({ event, fields }));
  n.start();
  return { fake, n, logs };
}

describe("the notifier", () => {
  it("sends ids, project, state and kind only by default; include_text adds the command, redacted", async () => {
    const plain = recorder();
    const s = await setup({}, [plain]);
    const id = s.fake.ask(1, `curl -H "Authorization: Bearer ${SECRET}" https://example.invalid`);
    await poll(() => plain.got.length === 1, { timeoutMs: 10_000, what: "the request event" });
    expect(plain.got[0]).toMatchObject({ v: 1, event: "request_pending", task_id: TASK, project_id: "demo", state: "waiting_for_approval", request_id: id, request_kind: "command" });
    const text = JSON.stringify(plain.got[0]);
    for (const leak of ["curl", ROOT, "run the tests", "build it", SECRET]) expect(text).not.toContain(leak);
    // The same request does not notify again on later changes.
    s.fake.ask(2);
    await poll(() => plain.got.length === 2, { timeoutMs: 10_000, what: "the second request's event" });
    expect(plain.got.map((e) => e.request_id)).toEqual([id, expect.not.stringMatching(id)]);

    fake!.store.close();
    const wordy = recorder();
    const w = await setup({ include_text: true }, [wordy]);
    w.fake.ask(3, `curl -H "Authorization: Bearer ${SECRET}" https://example.invalid`);
    await poll(() => wordy.got.length === 1, { timeoutMs: 10_000, what: "the request event with text" });
    expect(wordy.got[0]!.text).toMatchObject({ command: expect.stringContaining("curl"), cwd: `${ROOT}/pkg`, reason: "run the tests" });
    expect(JSON.stringify(wordy.got[0])).not.toContain(SECRET);
  });

  it("does not call the person for a request the supervisor answers (approvals = supervisor)", async () => {
    const sink = recorder();
    const s = await setup({}, [sink], "supervisor");
    s.fake.ask(1);
    // Codex ends the turn: the completion still notifies, and it comes after the request, which was passed over.
    s.fake.sup.onNotification(s.fake.codex as never, { method: "turn/completed", params: { threadId: THREAD, turn: { id: "turn-1", status: "completed", items: [] } } } as never);
    await poll(() => sink.got.length === 1, { timeoutMs: 10_000, what: "the completion event" });
    expect(sink.got.map((e) => e.event)).toEqual(["task_ended"]);
    expect(sink.got[0]).toMatchObject({ task_id: TASK, state: "completed" });
  });

  it("rate-limits (logging it once), and a failing sink is logged once, not per event", async () => {
    const sink = recorder();
    const broken: Sink = { name: "webhook", deliver: async () => Promise.reject(Object.assign(new Error("refused"), { code: "ECONNREFUSED" })) };
    const s = await setup({ max_per_minute: 2 }, [sink, broken]);
    for (let i = 1; i <= 4; i++) s.fake.ask(i);
    await poll(() => sink.got.length === 2 && s.logs.some((l) => l.event === "notify_failed"), { timeoutMs: 10_000, what: "two events and the failure log" });
    await new Promise((r) => setImmediate(r));
    expect(s.logs.filter((l) => l.event === "notify_rate_limited")).toHaveLength(1);
    expect(s.logs.filter((l) => l.event === "notify_failed")).toEqual([{ event: "notify_failed", fields: { sink: "webhook", error: "ECONNREFUSED", event: "request_pending" } }]);
  });

  it("a stopping bridge with a live task says so, with the task ids and the open requests", async () => {
    const sink = recorder();
    const s = await setup({}, [sink]);
    s.fake.ask(1);
    await poll(() => sink.got.length === 1, { timeoutMs: 10_000, what: "the request event" });
    await s.n.stopping(1_000);
    expect(sink.got[1]).toMatchObject({ event: "bridge_stopping", live_tasks: [TASK], pending_requests: 1 });
  });
});

describe("a lost task", () => {
  it("is told when its app-server exits mid-turn: task_ended, state connection_lost, titled as lost", async () => {
    const sink = recorder();
    const s = await setup({}, [sink]);
    s.fake.ask(1);
    await poll(() => sink.got.length === 1, { timeoutMs: 10_000, what: "the request event" });
    s.fake.codex.exit = { code: 1, signal: null };
    s.fake.sup.onExit(s.fake.codex as unknown as AppServerClient);
    await poll(() => sink.got.length === 2, { timeoutMs: 10_000, what: "the lost task's event" });
    expect(sink.got[1]).toMatchObject({ event: "task_ended", task_id: TASK, state: "connection_lost", title: `codex-bridge: ${TASK} was lost` });
  });
});

describe("the desktop sink", () => {
  it("over a long run holds a bounded number of tasks, and still announces each request and each end once", async () => {
    const notices = new Map<string, TaskNotice>();
    let changed: (id: string) => void = () => {};
    const source: NoticeSource = {
      onChange: (fn) => ((changed = fn), () => {}),
      notice: (id) => notices.get(id),
      liveWork: () => ({ tasks: [], pending: 0 }),
    };
    const sink = recorder();
    const n = new Notifier(resolveNotify({ max_per_minute: 100_000 }), [sink], source, () => {});
    n.start();
    const base = { project_id: "demo", turn_count: 1, created_at: "2026-12-01T00:00:00.000Z", prompt: "p" };
    const settle = () => new Promise((r) => setImmediate(r));
    for (let i = 0; i < 3_000; i++) {
      const task_id = `task-${i}`;
      notices.set(task_id, { ...base, task_id, state: "waiting_for_approval", settled: false, awaiting: [{ request_id: `req-${i}`, kind: "command" }] });
      changed(task_id);
      await settle();
      notices.set(task_id, { ...base, task_id, state: "completed", settled: true, awaiting: [] });
      changed(task_id);
      changed(task_id);
      await settle();
      notices.delete(task_id);
    }
    expect(sink.got.filter((e) => e.event === "request_pending")).toHaveLength(3_000);
    expect(sink.got.filter((e) => e.event === "task_ended")).toHaveLength(3_000);
    expect(n.trackedTasks).toBeLessThanOrEqual(1_000);
  });

  it("uses notify-send where it is on PATH, with the content-free title and message", async () => {
    const dir = tempDir("notify-desktop-");
    const record = join(dir, "args.txt");
    const fake = join(dir, "notify-send");
    writeFileSync(fake, `#!/bin/sh\nprintf '%s\\n' "$@" > ${JSON.stringify(record)}\n`);
    chmodSync(fake, 0o755);
    const path = process.env.PATH;
    process.env.PATH = `${dir}:${path ?? ""}`;
    try {
      const sink = desktopSink(await getPlatform(), "linux");
      expect(sink?.name).toBe("desktop");
      await sink!.deliver({ v: 1, event: "task_ended", at: "2026-01-01T00:00:00Z", title: "codex-bridge: t_0000000001 completed", message: "task t_0000000001 in project demo completed" });
      expect(readFileSync(record, "utf8")).toBe("--app-name=codex-bridge\ncodex-bridge: t_0000000001 completed\ntask t_0000000001 in project demo completed\n");
    } finally {
      process.env.PATH = path;
    }
    process.env.PATH = "/nonexistent";
    try {
      expect(desktopSink(await getPlatform(), "linux")).toBeNull();
    } finally {
      process.env.PATH = path;
    }
  });
});
