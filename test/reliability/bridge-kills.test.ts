// Reliability: kill -9 of the bridge process at random points (while it starts, mid-call, mid-stream, with approvals
// and tool calls open, while a checkpoint is written) across many tasks. After each kill the database passes its
// integrity check as the crash left it, and the next bridge on it still has everything it acknowledged (every task,
// every confirmed answer and checkpoint), leaves nothing live, and its app-server child did not outlive it.
import { describe, expect, it } from "vitest";
import { callTool, prepareBridge, processGone } from "../support/bridge-process.ts";
import { poll } from "../support/poll.ts";
import { answerRequests, faultResponder, integrityOfCopy, LIVE_STATES, newAcknowledged, promptFor, TASK_KINDS, type Acknowledged, type Call } from "../support/fault-tasks.ts";
import { holdForPhase, killQuietly, recordFigures, Responsiveness, scale, seeded, type Random } from "../support/reliability.ts";

const held = holdForPhase();

/** At least this many kills, and at least this many tasks started across them. */
const KILLS = scale(20, 4);
const TASKS = scale(50, 10);
const TASKS_PER_ROUND = 3;

interface Verdict {
  lostTasks: string[];
  stuckLive: string[];
  lostAnswers: string[];
  lostCheckpoints: string[];
}

/** What a fresh bridge on the database says about everything acknowledged so far. */
async function verify(call: Call, ack: Acknowledged): Promise<Verdict> {
  const v: Verdict = { lostTasks: [], stuckLive: [], lostAnswers: [], lostCheckpoints: [] };
  const recent = await call("codex_status", {});
  for (const t of (recent.structured.tasks ?? []) as { task_id: string; state: string }[]) if (LIVE_STATES.has(t.state)) v.stuckLive.push(`${t.task_id} ${t.state}`);
  for (const id of ack.tasks) {
    const s = await call("codex_status", { task_id: id });
    if (s.isError) v.lostTasks.push(id);
    else if (LIVE_STATES.has(s.structured.state)) v.stuckLive.push(`${id} ${s.structured.state}`);
  }
  for (const [id, goal] of ack.checkpoints) {
    const c = await call("codex_checkpoint", { action: "read", task_id: id });
    if (c.structured.checkpoint?.goal !== goal) v.lostCheckpoints.push(`${id}: ${JSON.stringify(c.structured.checkpoint)} != ${goal}`);
  }
  // An identical repeat of a recorded answer is answered from the ledger; a lost one would be "pending" and refused
  // as stale instead.
  for (const [id, a] of ack.answers) {
    const again = await call(a.tool, a.args);
    if (again.isError || again.structured.repeated !== true) v.lostAnswers.push(`${id}: ${again.text.slice(0, 160)}`);
  }
  return v;
}

/** Random supervision until the kill lands: waits, answers, checkpoints, cancels, more tasks. */
async function supervise(call: Call, tasks: string[], r: Random, ack: Acknowledged, stop: () => boolean): Promise<void> {
  while (!stop()) {
    const id = r.pick(tasks);
    const roll = r.next();
    if (roll < 0.55) {
      const w = await call("codex_wait", { task_id: id, timeout_seconds: r.int(0, 1) });
      if (!w.isError) await answerRequests(call, id, w.structured, r, ack);
    } else if (roll < 0.8) {
      const goal = `goal ${r.int(1, 1e9)}`;
      const c = await call("codex_checkpoint", { action: "update", task_id: id, goal });
      if (!c.isError) ack.checkpoints.set(id, goal);
    } else if (roll < 0.9) {
      await call("codex_cancel", { task_id: id, reason: "changed plans" });
    } else {
      await call("codex_status", { task_id: id });
    }
  }
}

describe("reliability: bridge killed", () => {
  it(`kill -9 at ${KILLS}+ random points across ${TASKS}+ tasks: integrity, nothing acknowledged lost, nothing stuck live`, async () => {
    const r = seeded("bridge-kills");
    const s = (held.setup = await prepareBridge({ approvalPolicy: "on-request" }));
    s.provider.setResponder((req) => faultResponder(req));
    const ack = newAcknowledged();
    const live = new Responsiveness();
    const stats = { kills: 0, survived: 0, tasks: 0, integrityFailures: [] as string[], orphans: 0, restartMs: 0, verdicts: [] as string[], killedDuring: new Map<string, number>() };
    let n = 0;

    for (let round = 0; ; round++) {
      const started = Date.now();
      const t = await s.spawn({ deadlineMs: 30_000, stopGraceMs: 10_000 });
      held.tunnel = t;
      const call: Call = (name, args) => callTool(t, name, args);
      // The first call after a kill is the recovery check: everything acknowledged is there and nothing is live.
      const v = await verify(call, ack);
      stats.restartMs = Math.max(stats.restartMs, Date.now() - started);
      const problems = [...v.lostTasks.map((x) => `lost task ${x}`), ...v.stuckLive.map((x) => `stuck ${x}`), ...v.lostAnswers.map((x) => `lost answer ${x}`), ...v.lostCheckpoints.map((x) => `lost checkpoint ${x}`)];
      if (round > 0 && problems.length === 0) stats.survived++;
      stats.verdicts.push(...problems.map((p) => `round ${round}: ${p}`));
      if (stats.kills >= KILLS && stats.tasks >= TASKS) {
        await live.ping(t);
        await live.stop(t);
        break;
      }

      // A kill while the bridge is still starting, now and then.
      const early = r.chance(0.1);
      const killAfter = early ? r.int(0, 300) : r.int(300, 4000);
      r.note(`round ${round}: bridge killed after ${killAfter} ms`);
      const roundStart = Date.now();
      let killed = false;
      const killedAt = new Promise<void>((resolve) =>
        setTimeout(() => {
          killed = true;
          killQuietly(t.pid);
          resolve();
        }, killAfter),
      );
      const work = (async () => {
        try {
          const runtime = await call("codex_runtime", { action: "status" });
          const tasks: string[] = [];
          for (let i = 0; i < TASKS_PER_ROUND && !killed; i++) {
            const kind = r.pick(TASK_KINDS);
            const st = await call("codex_start", { project_id: "demo", prompt: promptFor(kind, n++) });
            if (!st.isError && typeof st.structured.task_id === "string") {
              ack.tasks.add(st.structured.task_id);
              tasks.push(st.structured.task_id);
              stats.tasks++;
            }
            if (i === 0) {
              const pid = (await call("codex_runtime", { action: "status" })).structured.pid;
              if (typeof pid === "number") held.pids.push(pid);
            }
          }
          void runtime;
          if (tasks.length) await supervise(call, tasks, r, ack, () => killed);
        } catch {
          // The kill cut a call short: it was never acknowledged.
        }
      })();
      await killedAt;
      await work;
      stats.kills++;
      const phase = early ? "startup" : Date.now() - roundStart < 1500 ? "task starts" : "supervision";
      stats.killedDuring.set(phase, (stats.killedDuring.get(phase) ?? 0) + 1);
      await t.exited;
      held.tunnel = null;
      // The app-server sees its stdin close and must go too.
      for (const pid of held.pids.splice(0)) {
        const gone = await poll(() => processGone(pid), { timeoutMs: 5_000, what: `app-server ${pid} to exit` }).catch(() => false);
        if (!gone) {
          stats.orphans++;
          killQuietly(pid);
        }
      }
      const integrity = await integrityOfCopy(s.statePath);
      if (!integrity.ok) stats.integrityFailures.push(`round ${round}: ${integrity.detail}`);
    }

    recordFigures("bridge kills", {
      kills: stats.kills,
      "kills survived": stats.survived,
      tasks: stats.tasks,
      "killed during": [...stats.killedDuring].map(([k, v]) => `${k} ${v}`).join(", "),
      "acknowledged answers": ack.answers.size,
      "acknowledged checkpoints": ack.checkpoints.size,
      "integrity failures": stats.integrityFailures.length,
      "acknowledged lost / stuck live": stats.verdicts.length,
      "orphaned app-servers": stats.orphans,
      "max restart + recovery check ms": stats.restartMs,
      ...live.figures(),
    });
    console.info(`[bridge-kills] seed ${r.seed}; problems: ${JSON.stringify(stats.verdicts.slice(0, 10))}; integrity: ${JSON.stringify(stats.integrityFailures)}`);
    expect(stats.tasks).toBeGreaterThanOrEqual(TASKS);
    expect(stats.integrityFailures).toEqual([]);
    expect(stats.verdicts).toEqual([]);
    expect(stats.orphans).toBe(0);
    expect(stats.survived).toBe(stats.kills);
    expect(live.hangs).toBe(0);
  });
});
