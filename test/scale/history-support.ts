// Test support for test:scale history cost: a large state built fast from real tasks (the real schema, rows copied from
// tasks the real app-server ran, multiplied in one transaction), and a bridge opened on a given state file, timed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Platform } from "../../platform/types.ts";
import { assembleBridge, mcpServerFor, type Bridge } from "../../src/app/assemble.ts";
import { connectMcp } from "../../src/mcp/delivery.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { openStateDatabase } from "../../src/store/open.ts";

const TASK_COLUMNS = `project_id, profile_id, state, relay, prompt, model, effort, turn_count, last_seq, final_message, error_json,
  unknown_json, connection_id, context_json`;

/**
 * Writes `count` finished tasks into a new state file at `path`, each a copy of one of `templates` (tasks of `source`,
 * round robin) with its events and items, under new ids, threads and turns; one in ten with an answered request.
 * Their ages spread evenly over the past `days` days, newest first.
 */
export async function buildHistory(platform: Platform, path: string, source: string, templates: string[], count: number, days = 365): Promise<void> {
  const store = await openStateDatabase(platform, path, MIGRATIONS);
  try {
    const db = store.db;
    db.exec(`ATTACH DATABASE '${source.replace(/'/g, "''")}' AS src`);
    const pick = `CASE n.i % ${templates.length} ${templates.map((t, k) => `WHEN ${k} THEN '${t}'`).join(" ")} END`;
    const series = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${count - 1})`;
    const id = `printf('t_h%08d', n.i)`;
    const at = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (n.i * ${days}.0 / ${count}) || ' days', '-1 hours')`;
    db.transaction(() => {
      db.exec(`${series} INSERT INTO tasks (id, thread_id, turn_id, created_at, updated_at, ${TASK_COLUMNS})
        SELECT ${id}, 'th_h' || n.i, 'tu_h' || n.i, ${at}, ${at}, ${TASK_COLUMNS} FROM n JOIN src.tasks t ON t.id = ${pick}`);
      db.exec(`${series} INSERT INTO events (task_id, seq, turn_id, kind, item_id, at, data)
        SELECT ${id}, e.seq, 'tu_h' || n.i, e.kind, e.item_id, e.at, e.data FROM n JOIN src.events e ON e.task_id = ${pick}`);
      db.exec(`${series} INSERT INTO items (task_id, item_id, turn_id, type, status, data, updated_at)
        SELECT ${id}, x.item_id, 'tu_h' || n.i, x.type, x.status, x.data, x.updated_at FROM n JOIN src.items x ON x.task_id = ${pick}`);
      db.exec(`${series} INSERT INTO interactions (id, task_id, kind, method, rpc_id, connection_id, thread_id, turn_id, item_id, state, params, created_at, updated_at)
        SELECT printf('r_h%08d', n.i), ${id}, 'command', 'item/commandExecution/requestApproval', n.i, 'c_old', 'th_h' || n.i, 'tu_h' || n.i, NULL,
          'resolved', '{}', ${at}, ${at} FROM n WHERE n.i % 10 = 0`);
    });
    db.exec("DETACH DATABASE src");
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    store.close();
  }
}

export { fileBytes } from "../../src/cli/prune.ts";

export interface TimedBridge {
  bridge: Bridge;
  /** From assembling (state opened, migrated, recovered) to the answer of tools/list. */
  readyMs: number;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** A whole bridge on `statePath` (otherwise the environment `env` describes), connected in-process, timed to ready. */
export async function openTimedBridge(platform: Platform, env: Record<string, string | undefined>, statePath: string): Promise<TimedBridge> {
  const t0 = performance.now();
  const bridge = await assembleBridge(platform, { env: { ...env, CODEX_BRIDGE_STATE: statePath }, cwd: process.cwd(), log: () => {} });
  const server = mcpServerFor(bridge);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connectMcp(server, serverSide);
  const client = new Client({ name: "history-cost", version: "1" });
  await client.connect(clientSide);
  await client.listTools();
  const readyMs = performance.now() - t0;
  return {
    bridge,
    readyMs,
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    async close() {
      await client.close().catch(() => {});
      await server.close().catch(() => {});
      await bridge.close();
    },
  };
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
