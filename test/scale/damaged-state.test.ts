// test:scale, damaged state: the real bridge process on a state built by real tasks and grown through the store's own
// code, then damaged the ways a disk or a person damages it. Every damage is said (the file, the cause, what to do),
// never served silently: an emptied file and a damaged page are refused at start-up (the check's time is printed),
// damage met at run time is reported as state_corrupt while the bridge keeps answering, and doctor finds it.
import { spawnSync } from "node:child_process";
import { closeSync, copyFileSync, openSync, statSync, truncateSync, writeSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { redactor } from "../../src/policy/redact.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { openStateDatabase } from "../../src/store/open.ts";
import { Repo } from "../../src/store/repo.ts";
import { bridgeCommand, bridgeFixture, callTool, type BridgeSetup } from "../support/bridge-process.ts";
import { PROJECT_ROOT } from "../support/real-codex.ts";
import type { TunnelEmulator } from "../support/tunnel-emulator.ts";

const QUICK = process.env.SCALE_QUICK === "1";
const EXTRA_EVENTS = QUICK ? 20_000 : 200_000;

const fixture = bridgeFixture();
const running: TunnelEmulator[] = [];
afterEach(() => {
  running.splice(0);
});

function overwrite(path: string, offset: number, length: number): void {
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, Buffer.alloc(length, 0xa5), 0, length, offset);
  } finally {
    closeSync(fd);
  }
}

/** Starts a bridge on `state` and says how it ended: the exit code and what it said, within 60 s. */
function startRefused(setup: BridgeSetup, state: string): { code: number | null; stderr: string; ms: number } {
  const run = bridgeCommand(["serve"]);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...setup.env, CODEX_BRIDGE_STATE: state })) if (v !== undefined) env[k] = v;
  const t0 = Date.now();
  const r = spawnSync(run.command, run.args, { cwd: PROJECT_ROOT, env, input: "", encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stderr: r.stderr, ms: Date.now() - t0 };
}

describe("test:scale damaged state", () => {
  it("an emptied file, a damaged page at start and damage met at run time are each said, never served", async () => {
    const setup = await fixture.prepare({ approvalPolicy: "never" });
    // Real tasks first, through the bridge.
    const t = await fixture.start(setup);
    await t.initialize();
    const ids: string[] = [];
    for (const text of ["first answer", "second answer"]) {
      setup.provider.enqueue({ kind: "output", items: [{ type: "message", text }] });
      const s = await callTool(t, "codex_start", { project_id: "demo", prompt: text });
      expect(s.isError, s.text).toBe(false);
      ids.push(s.structured.task_id as string);
      for (let i = 0; i < 20; i++) {
        const w = await callTool(t, "codex_wait", { task_id: s.structured.task_id, timeout_seconds: 20 });
        if (w.structured.state === "completed") break;
      }
    }
    await t.stop();
    // Then history, through the store's own code: the first task's events grow to many pages at the file's end.
    const platform = await getPlatform();
    const store = await openStateDatabase(platform, setup.statePath, MIGRATIONS);
    const repo = new Repo(store.db, redactor);
    for (let done = 0; done < EXTRA_EVENTS; done += 1000) {
      repo.tx(() => repo.appendEvents(ids[0]!, Array.from({ length: 1000 }, (_, i) => ({ turn_id: null, kind: "message_delta", item_id: "m", data: { text: `history ${done + i} `.padEnd(400, ".") } }))));
    }
    store.close();
    const good = `${setup.statePath}.good`;
    copyFileSync(setup.statePath, good);
    const size = statSync(good).size;
    const figures: string[] = [`state: ${(size / 1048576).toFixed(1)} MiB, ${EXTRA_EVENTS.toLocaleString("en-US")} extra events`];
    for (const integrity of ["quick", "full"] as const) {
      const t1 = Date.now();
      (await openStateDatabase(platform, good, MIGRATIONS, { integrity })).close();
      figures.push(`open with the ${integrity === "quick" ? "start-up" : "doctor's"} integrity check: ${Date.now() - t1} ms`);
    }

    // A sound file: start-up with the integrity check, to ready.
    const sound = await fixture.start(setup);
    const t0 = Date.now();
    await sound.initialize();
    expect((await callTool(sound, "codex_health", {})).structured.sqlite.ok).toBe(true);
    figures.push(`sound file: initialize answered after ${Date.now() - t0} ms (start-up integrity check included)`);
    await sound.stop();

    // Emptied: refused, named, left as it is.
    const empty = `${setup.statePath}.empty`;
    copyFileSync(good, empty);
    truncateSync(empty, 0);
    const e = startRefused(setup, empty);
    expect(e.code, e.stderr).not.toBe(0);
    expect(e.stderr).toContain(empty);
    expect(e.stderr).toMatch(/empty \(0 bytes\)/);
    expect(statSync(empty).size).toBe(0);
    figures.push(`0-byte file: refused in ${e.ms} ms, naming it`);

    // One damaged page of the tasks table: refused at start-up, as damage with its remedy, not as permissions.
    const damaged = `${setup.statePath}.damaged`;
    copyFileSync(good, damaged);
    const root = rootPage(good, "tasks");
    overwrite(damaged, (root - 1) * 4096 + 8, 4000);
    const d = startRefused(setup, damaged);
    expect(d.code, d.stderr).not.toBe(0);
    expect(d.stderr).toContain(damaged);
    expect(d.stderr).toMatch(/damaged \(state_corrupt\)/);
    expect(d.stderr).toMatch(/\.recover|backup/);
    expect(d.stderr).not.toMatch(/writable/);
    figures.push(`damaged tasks page: refused in ${d.ms} ms, naming the file, the damage and the remedy`);

    // Doctor checks every page and says the same.
    const doc = spawnSync(bridgeCommand(["doctor"]).command, bridgeCommand(["doctor"]).args, { cwd: PROJECT_ROOT, env: cleanEnv({ ...setup.env, CODEX_BRIDGE_STATE: damaged }), encoding: "utf8", timeout: 60_000 });
    expect(doc.status).toBe(1);
    expect(`${doc.stdout}${doc.stderr}`).toMatch(/damaged \(state_corrupt\)/);

    // Damage met at run time: the newest history pages go bad under a running bridge.
    copyFileSync(good, setup.statePath);
    const live = await fixture.start(setup);
    running.push(live);
    await live.initialize();
    expect((await callTool(live, "codex_health", {})).structured.sqlite.ok).toBe(true);
    overwrite(setup.statePath, Math.floor((size * 3) / 4 / 4096) * 4096, Math.floor(size / 4 / 4096) * 4096);
    let failed = 0;
    let calls = 0;
    for (let offset = EXTRA_EVENTS - 2000; offset < EXTRA_EVENTS; offset += 200) {
      const r = await callTool(live, "codex_inspect", { task_id: ids[0], kind: "raw_event", offset });
      calls++;
      if (r.isError) {
        failed++;
        expect(r.text).toContain(setup.statePath);
        expect(r.text).toMatch(/damaged/);
        expect(r.text).not.toMatch(/writable/);
      }
    }
    expect(failed, "no read met the damaged pages").toBeGreaterThan(0);
    const health = await callTool(live, "codex_health", {});
    expect(health.structured.sqlite.problem).toBe("state_corrupt");
    expect(health.text).toMatch(/state_corrupt/);
    // Still answering what is sound.
    const other = await callTool(live, "codex_status", { task_id: ids[1] });
    expect(other.isError, other.text).toBe(false);
    expect(other.text).toMatch(/bridge state_corrupt/);
    expect(live.exit).toBeNull();
    figures.push(`damage at run time: ${failed} of ${calls} reads met it, each named state_corrupt with the file; codex_health says state_corrupt; the bridge kept answering`);
    console.log(["==== test:scale damaged state ====", ...figures].join("\n"));
  });
});

function cleanEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/** The page number of a table's b-tree root, read with the sqlite3 driver the tests already use. */
function rootPage(path: string, table: string): number {
  const r = spawnSync(process.execPath, ["-e", `const D=require("libsql");const d=new D(${JSON.stringify(path)},{readonly:true});console.log(d.prepare("SELECT rootpage FROM sqlite_master WHERE name=?").get(${JSON.stringify(table)}).rootpage)`], { cwd: PROJECT_ROOT, encoding: "utf8" });
  const n = Number(r.stdout.trim());
  if (!Number.isInteger(n) || n < 1) throw new Error(`no root page for ${table}: ${r.stderr}`);
  return n;
}
