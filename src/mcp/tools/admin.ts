// The bridge-wide tools (health, models, threads, checkpoint, runtime): parse, one service call, render.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { BridgeService } from "../../service/bridge.ts";
import { checkpointText, modelsText, renderHealth, runtimeText, threadsText, threadText } from "./render.ts";
import { MUTATING, ok, READ_ONLY, wrap } from "./result.ts";
import { TASK_ID, idString, inputOf, listed, outputOf } from "./listing.ts";

// Bounded by the domain, which names its limits per field and per record (the transport bounds the line).
const CHECKPOINT_FIELD = z.string();

export function registerAdminTools(server: McpServer, service: BridgeService): void {
  listed(server.registerTool(
    "codex_health",
    {
      title: "Bridge health",
      description: "Config, projects, SQLite, app-server, login, live models; bridge version, fingerprint, PID, uptime.",
      inputSchema: inputOf({}),
      outputSchema: outputOf({ healthy: z.boolean().optional() }),
      annotations: READ_ONLY,
    },
    wrap(async () => {
      const h = await service.health();
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
      const page = await service.models(args);
      return ok(modelsText(page), { models: page.models, next_cursor: page.next_cursor });
    }),
  ));

  listed(server.registerTool(
    "codex_threads",
    {
      title: "Native Codex threads",
      description: "list: native Codex threads (search, cwd: filters); read: a thread's status and turns, paged. Adopt one with codex_start thread_id.",
      inputSchema: inputOf({
        action: z.enum(["list", "read"]),
        thread_id: z.string().max(100).optional(),
        search: z.string().max(200).optional(),
        cwd: z.string().max(1000).optional(),
        cursor: z.string().max(200).optional(),
        limit: z.number().int().min(1).max(50).optional(),
      }),
      outputSchema: outputOf({ threads: z.array(z.unknown()).optional(), turns: z.array(z.unknown()).optional() }),
      annotations: READ_ONLY,
    },
    wrap(async (args) => {
      const r = await service.threads(args);
      if (r.action === "list") return ok(threadsText(r), { threads: r.threads, next_cursor: r.next_cursor, ...(r.note ? { note: r.note } : {}) });
      return ok(threadText(r), { thread_id: r.thread_id, status: r.status, turns: r.turns, next_cursor: r.next_cursor });
    }),
  ));

  listed(server.registerTool(
    "codex_checkpoint",
    {
      title: "Supervisory checkpoint",
      description:
        "Read/update the short anchor of a task or native thread, in your own words (no copied prompts, output or answers). goal, constraints: set once.",
      inputSchema: inputOf({
        action: z.enum(["read", "update"]),
        task_id: idString(TASK_ID, "a task id from codex_start").optional(),
        thread_id: z.string().max(100).optional(),
        goal: CHECKPOINT_FIELD.optional(),
        constraints: CHECKPOINT_FIELD.optional(),
        state: CHECKPOINT_FIELD.optional(),
        acceptance_status: CHECKPOINT_FIELD.optional(),
        current_understanding: CHECKPOINT_FIELD.optional(),
        next_step: CHECKPOINT_FIELD.optional(),
      }),
      outputSchema: outputOf({ checkpoint: z.looseObject({}).optional() }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    wrap(async (args) => {
      const r = service.checkpoint(args);
      return ok(checkpointText(r), { ...r.anchor, checkpoint: r.checkpoint });
    }),
  ));

  listed(server.registerTool(
    "codex_runtime",
    {
      title: "Managed app-server",
      description: "Managed app-server status or restart (refused while anything is active, pending, in flight, UNKNOWN; unless force).",
      inputSchema: inputOf({ action: z.enum(["status", "restart"]), force: z.boolean().optional() }),
      outputSchema: outputOf({ state: z.string().optional() }),
      annotations: MUTATING,
    },
    wrap(async (args) => {
      const v = await service.runtime(args.action, args.force === true);
      return ok(`${runtimeText(v)}${v.not_answering ? `\n${v.not_answering}` : ""}`, { ...v });
    }),
  ));
}
