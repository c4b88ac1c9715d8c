// The schema of the state database, as numbered migrations applied in order.
import type { Migration } from "./migrate.ts";

// Append only: a shipped migration is never edited, a new version is added instead.
export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "tasks, events, items, interactions, cursors",
    sql: `
CREATE TABLE tasks (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  thread_id TEXT,
  turn_id TEXT,
  state TEXT NOT NULL,
  relay INTEGER NOT NULL DEFAULT 0,
  prompt TEXT NOT NULL,
  model TEXT,
  effort TEXT,
  turn_count INTEGER NOT NULL DEFAULT 0,
  last_seq INTEGER NOT NULL DEFAULT 0,
  final_message TEXT,
  error_json TEXT,
  unknown_json TEXT,
  connection_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX tasks_thread ON tasks(thread_id);
CREATE INDEX tasks_updated ON tasks(updated_at);

CREATE TABLE events (
  task_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  turn_id TEXT,
  kind TEXT NOT NULL,
  item_id TEXT,
  at TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (task_id, seq)
);

CREATE TABLE items (
  task_id TEXT NOT NULL,
  item_id TEXT NOT NULL,
  turn_id TEXT,
  type TEXT NOT NULL,
  status TEXT,
  data TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (task_id, item_id)
);

CREATE TABLE interactions (
  id TEXT PRIMARY KEY,
  task_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  method TEXT NOT NULL,
  rpc_id TEXT NOT NULL,
  connection_id TEXT NOT NULL,
  thread_id TEXT,
  turn_id TEXT,
  item_id TEXT,
  state TEXT NOT NULL,
  params TEXT NOT NULL,
  response TEXT,
  response_hash TEXT,
  note TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX interactions_task ON interactions(task_id, state);

CREATE TABLE cursors (
  connection_key TEXT NOT NULL,
  task_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (connection_key, task_id)
);

CREATE TABLE checkpoints (
  task_id TEXT PRIMARY KEY,
  data TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
`,
  },
  {
    version: 2,
    name: "requested vs native context per task",
    sql: `ALTER TABLE tasks ADD COLUMN context_json TEXT;`,
  },
  {
    version: 3,
    name: "who answered each interaction",
    sql: `ALTER TABLE interactions ADD COLUMN answered_by TEXT;`,
  },
  {
    version: 4,
    name: "app-server generations: cursors from before a managed restart are reported lost",
    sql: `
CREATE TABLE runtime_generations (
  generation INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  first_event_rowid INTEGER NOT NULL
);
ALTER TABLE cursors ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    version: 5,
    name: "checkpoints keyed by native thread or task",
    // One record per anchor: "thread:<id>" when the task has a native thread (or none is owned), else "task:<id>".
    // Where two tasks shared a thread, the newest record is kept.
    sql: `
CREATE TABLE supervisory_checkpoints (
  anchor TEXT PRIMARY KEY,
  task_id TEXT,
  data TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
INSERT OR IGNORE INTO supervisory_checkpoints (anchor, task_id, data, updated_at)
  SELECT CASE WHEN t.thread_id IS NOT NULL THEN 'thread:' || t.thread_id ELSE 'task:' || c.task_id END, c.task_id, c.data, c.updated_at
  FROM checkpoints c LEFT JOIN tasks t ON t.id = c.task_id
  ORDER BY c.updated_at DESC;
DROP TABLE checkpoints;
`,
  },
  {
    version: 6,
    name: "indexes for lookups by turn, state, unknown outcome, failure and connection (cost flat in history)",
    // Every per-call, per-turn and start-up lookup reads through an index; the partial ones hold only the rare rows
    // (UNKNOWN outcomes, failures), so they stay small however many tasks are stored.
    sql: `
CREATE INDEX tasks_turn ON tasks(turn_id);
CREATE INDEX tasks_state ON tasks(state);
CREATE INDEX tasks_unknown ON tasks(updated_at) WHERE unknown_json IS NOT NULL;
CREATE INDEX tasks_failure ON tasks(updated_at) WHERE error_json IS NOT NULL;
CREATE INDEX interactions_state ON interactions(state);
CREATE INDEX interactions_connection ON interactions(connection_id, state);
`,
  },
  {
    version: 7,
    name: "retention: when a finished task was compacted, and what it lost",
    // Only tasks not yet compacted are candidates, found through a partial index that compaction empties (a new turn
    // puts the task back). compaction_json keeps what was removed, so the task can say so when asked for it.
    sql: `
ALTER TABLE tasks ADD COLUMN compacted_at TEXT;
ALTER TABLE tasks ADD COLUMN compaction_json TEXT;
CREATE INDEX tasks_uncompacted ON tasks(updated_at) WHERE compacted_at IS NULL;
`,
  },
];
