import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { HealthReport } from "../supervisor/health.ts";
import { BridgeError } from "../supervisor/errors.ts";
import type { Supervisor } from "../supervisor/supervisor.ts";
import { MUTATING, ok, READ_ONLY, wrap } from "./tool-result.ts";
import { inputOf, listed, outputOf } from "./listing.ts";

const CHECKPOINT_FIELD = z.string().max(2000);

export function registerAdminTools(server: McpServer, sup: Supervisor, health: () => Promise<HealthReport>): void {
  listed(server.registerTool(
    "codex_health",
    {
      title: "Bridge health",
      description: "Config, projects, profiles, SQLite, Codex app-server, login, live models; the bridge's version, build fingerprint, PID, uptime.",
      inputSchema: inputOf({}),
      outputSchema: outputOf({ healthy: z.boolean().optional() }),
      annotations: READ_ONLY,
    },
    wrap(async () => {
      const h = await health();
      return ok(renderHealth(h), h as unknown as Record<string, unknown>);
    }),
  ));

  listed(server.registerTool(
    "codex_models",
    {
      title: "Live model list",
      description: "One page of this Codex's live model/list (no cache).",
      inputSchema: inputOf({ cursor: z.string().max(200).optional(), include_hidden: z.boolean().optional() }),
      outputSchema: outputOf({ models: z.array(z.unknown()).optional() }),
      annotations: READ_ONLY,
    },
    wrap(async (args) => {
      const client = await sup.runtime.ensure();
      const res = await client.request<{ data?: Record<string, unknown>[]; nextCursor?: string | null }>("model/list", {
        includeHidden: args.include_hidden ?? false,
        ...(args.cursor ? { cursor: args.cursor } : {}),
      });
      const models = (res.data ?? []).map((m) => ({
        model: String(m.model ?? m.id),
        ...(m.isDefault ? { default: true } : {}),
        efforts: Array.isArray(m.supportedReasoningEfforts) ? m.supportedReasoningEfforts.map((e) => (typeof e === "string" ? e : (e as Record<string, unknown>).reasoningEffort)) : [],
      }));
      const text = models.map((m) => `${m.model}${m.default ? " (default)" : ""}: ${m.efforts.join("/")}`).join("\n") + (res.nextCursor ? `\nnext_cursor ${res.nextCursor}` : "");
      return ok(text || "no models", { models, next_cursor: res.nextCursor ?? null });
    }),
  ));

  listed(server.registerTool(
    "codex_threads",
    {
      title: "Native Codex threads",
      description: "list: native Codex threads, also ones the bridge did not start; read: one thread's turns. Adopt one with codex_start thread_id.",
      inputSchema: inputOf({
        action: z.enum(["list", "read"]),
        thread_id: z.string().max(100).optional(),
        cursor: z.string().max(200).optional(),
        limit: z.number().int().min(1).max(50).optional(),
      }),
      outputSchema: outputOf({ threads: z.array(z.unknown()).optional(), turns: z.array(z.unknown()).optional() }),
      annotations: READ_ONLY,
    },
    wrap(async (args) => {
      const client = await sup.runtime.ensure();
      if (args.action === "list") {
        const res = await client.request<{ data?: Record<string, unknown>[]; nextCursor?: string | null }>("thread/list", {
          limit: args.limit ?? 20,
          ...(args.cursor ? { cursor: args.cursor } : {}),
        });
        const threads = (res.data ?? []).map((t) => {
          const task = sup.repo.taskByThread(String(t.id));
          return { thread_id: String(t.id), preview: String(t.preview ?? "").slice(0, 120), cwd: t.cwd, ...(task ? { task_id: task.id } : {}) };
        });
        const text = threads.map((t) => `${t.thread_id}${t.task_id ? ` (${t.task_id})` : ""} ${String(t.cwd ?? "")}: ${t.preview}`).join("\n");
        return ok(text || "no threads", { threads, next_cursor: res.nextCursor ?? null });
      }
      if (!args.thread_id) throw new BridgeError("thread_id is required for action read; codex_threads action=list shows them", "thread_id");
      const res = await client.request<{ data?: Record<string, unknown>[]; nextCursor?: string | null }>("thread/turns/list", {
        threadId: args.thread_id,
        itemsView: "summary",
        sortDirection: "asc",
        ...(args.cursor ? { cursor: args.cursor } : {}),
      });
      const turns = (res.data ?? []).map((t) => ({ turn_id: String(t.id), status: t.status }));
      return ok(turns.map((t) => `${t.turn_id} ${String(t.status)}`).join("\n") || "no turns", { turns, next_cursor: res.nextCursor ?? null });
    }),
  ));

  listed(server.registerTool(
    "codex_checkpoint",
    {
      title: "Supervisory checkpoint",
      description: "Read or update a task's short supervisory anchor: goal, constraints, state, next step.",
      inputSchema: inputOf({
        action: z.enum(["read", "update"]),
        task_id: z.string().regex(/^t_[0-9a-f]{10}$/, "a task id from codex_start"),
        goal: CHECKPOINT_FIELD.optional(),
        constraints: CHECKPOINT_FIELD.optional(),
        state: CHECKPOINT_FIELD.optional(),
        next_step: CHECKPOINT_FIELD.optional(),
      }),
      outputSchema: outputOf({ checkpoint: z.looseObject({}).optional() }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    wrap(async (args) => {
      sup.task(args.task_id);
      const cur = sup.repo.checkpoint(args.task_id) ?? {};
      if (args.action === "update") {
        const next = { ...cur };
        for (const k of ["goal", "constraints", "state", "next_step"] as const) if (args[k] !== undefined) next[k] = args[k];
        sup.repo.setCheckpoint(args.task_id, next);
        return ok(`checkpoint of ${args.task_id} saved`, { checkpoint: next });
      }
      const text = Object.entries(cur).map(([k, v]) => `${k}: ${String(v)}`).join("\n");
      return ok(text || "no checkpoint yet", { checkpoint: cur });
    }),
  ));

  listed(server.registerTool(
    "codex_runtime",
    {
      title: "Managed app-server",
      description: "Status of the managed Codex app-server, or restart it (refused while a task is active, a request pending or an outcome UNKNOWN).",
      inputSchema: inputOf({ action: z.enum(["status", "restart"]) }),
      outputSchema: outputOf({ state: z.string().optional() }),
      annotations: MUTATING,
    },
    wrap(async (args) => {
      const counts = sup.activeCounts();
      if (args.action === "restart") {
        if (counts.active || counts.pending || counts.unknown) {
          throw new BridgeError(`restart refused: ${counts.active} active task(s), ${counts.pending} open request(s), ${counts.unknown} UNKNOWN outcome(s); wait, cancel or settle them first`, "action");
        }
        await sup.runtime.restart();
      }
      const info = sup.runtime.info();
      const view = { state: info.state, pid: info.pid, restarts: info.restarts, uptime_s: info.uptimeMs === null ? null : Math.round(info.uptimeMs / 1000), ...counts, ...(sup.runtime.lastExit ? { last_exit: sup.runtime.lastExit } : {}) };
      return ok(`app-server ${info.state} pid ${info.pid ?? "-"} · restarts ${info.restarts} · active ${counts.active} · pending ${counts.pending} · unknown ${counts.unknown}`, view);
    }),
  ));
}

export function renderHealth(h: HealthReport): string {
  const lines = [`${h.healthy ? "healthy" : "UNHEALTHY"} · codex-bridge ${h.bridge.version} (${h.bridge.fingerprint.slice(0, 12)}) pid ${h.bridge.pid} up ${h.bridge.uptime_s}s`];
  for (const c of h.checks) lines.push(`${c.ok ? "ok " : "ERR"} ${c.name}: ${c.detail}`);
  return lines.join("\n");
}
