// `codex-bridge prune` as a user runs it: compacts the finished tasks past the age, reports what the file lost (and the
// file lost exactly that), switches a file from before retention to incremental vacuum once, counts only on --dry-run,
// and refuses beside a running bridge, naming it.
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { migrate } from "../../src/store/migrate.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { openStateDatabase } from "../../src/store/open.ts";
import { Repo } from "../../src/store/repo.ts";
import { redactor } from "../../src/policy/redact.ts";
import { tempDir } from "../support/temp-dir.ts";
import { runCli } from "./run-cli.ts";

const DAY = 86_400_000;

/** A state file as an earlier codex-bridge left it (no incremental vacuum), holding `old` tasks finished 30 days ago. */
async function earlierState(dir: string, old: number, recent: number): Promise<{ env: Record<string, string>; path: string }> {
  const path = join(dir, "state.sqlite3");
  const db = await (await getPlatform()).openDatabase(path);
  db.exec("PRAGMA journal_mode=WAL");
  migrate(db, MIGRATIONS);
  const repo = new Repo(db, redactor);
  const output = "line of build output\n".repeat(300);
  db.transaction(() => {
    for (let i = 0; i < old + recent; i++) {
      const id = `t_${String(i).padStart(10, "0")}`;
      repo.insertTask({ id, project_id: "p", profile_id: "default", prompt: "build it", relay: false, model: null, effort: null, state: "running" });
      repo.appendEvents(id, Array.from({ length: 20 }, (_, k) => ({ turn_id: "tu", kind: "message_delta", item_id: "m", data: { text: `chunk ${k} `.repeat(40) } })));
      for (let c = 0; c < 5; c++) repo.upsertItem({ task_id: id, item_id: `c${c}`, turn_id: "tu", type: "commandExecution", status: "completed", data: { command: "make", exit_code: 0, output } });
      repo.updateTask(id, { state: "completed", turn_id: "tu", final_message: "built" });
      const at = new Date(Date.now() - (i < old ? 30 : 1) * DAY).toISOString();
      db.prepare(`UPDATE tasks SET updated_at = ? WHERE id = ?`).run(at, id);
    }
  });
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  const config = join(dir, "config.toml");
  writeFileSync(config, "retention_days = 7\n");
  return { path, env: { CODEX_BRIDGE_STATE: path, CODEX_BRIDGE_CONFIG: config } };
}

const size = (path: string) => statSync(path).size + (() => { try { return statSync(`${path}-wal`).size; } catch { return 0; } })();

describe("codex-bridge prune", () => {
  it("compacts what is due, and the file shrinks by what it reports; a dry run only counts", async () => {
    const { env, path } = await earlierState(tempDir("prune-"), 60, 10);
    const untouched = size(path);
    const dry = await runCli(["prune", "--dry-run", "--json"], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, tasks: 60, events: 60 * 20, outputs: 60 * 5 });
    expect(JSON.parse((await runCli(["prune", "--dry-run", "--json"], { env })).stdout).tasks).toBe(60);
    const before = size(path);
    expect(before).toBe(untouched);

    const run = await runCli(["prune", "--json"], { env });
    expect(run.code, run.stderr).toBe(0);
    const r = JSON.parse(run.stdout);
    expect(r).toMatchObject({ tasks: 60, events: 60 * 20, outputs: 60 * 5, vacuum: "rewritten", bytes_before: before });
    expect(r.bytes_after).toBe(size(path));
    expect(r.bytes_freed).toBe(before - size(path));
    expect(r.bytes_freed).toBeGreaterThan(before / 2);

    // Now incremental: nothing more is due at 7 days; at 0 days the 10 recent ones go, in place.
    const again = JSON.parse((await runCli(["prune", "--json"], { env })).stdout);
    expect(again).toMatchObject({ tasks: 0, vacuum: "incremental" });
    // The last 10 tasks hold most of what is left: the file is rewritten again rather than moved page by page.
    const all = JSON.parse((await runCli(["prune", "--older-than", "0", "--json"], { env })).stdout);
    expect(all).toMatchObject({ tasks: 10, vacuum: "rewritten" });
    expect(all.bytes_freed).toBe(all.bytes_before - size(path));
    expect(all.bytes_freed).toBeGreaterThan(0);

    const text = await runCli(["prune"], { env });
    expect(text.stdout).toMatch(/^prune: compacted 0 finished task\(s\) older than 7 day\(s\) in .*: removed 0 raw event\(s\)/);
  }, 120_000);

  it("refuses beside a running bridge, naming it, and touches nothing", async () => {
    const { env, path } = await earlierState(tempDir("prune-locked-"), 5, 0);
    const held = await openStateDatabase(await getPlatform(), path, MIGRATIONS);
    try {
      const before = size(path);
      const run = await runCli(["prune"], { env });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`in use by the running codex-bridge PID ${process.pid}`);
      expect(run.stderr).toMatch(/compacts finished tasks older than retention_days by itself.*stop it and run prune again/);
      expect(size(path)).toBe(before);
    } finally {
      held.close();
    }
  }, 60_000);

  it("refuses a bad --older-than with a usage error", async () => {
    const run = await runCli(["prune", "--older-than", "soon"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--older-than needs a whole number of days");
  });
});
