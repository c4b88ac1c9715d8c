// The task tools (start, wait, status, send, respond, submit, result, inspect, cancel): parse, one service call, render.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { WaitHold } from "../server-identity.ts";
import { z } from "zod";
import { INSPECT_KINDS, MAX_WAIT_TASKS, PROMPT_MAX_CHARS, type BridgeService } from "../../service/bridge.ts";
import {
  alertLines,
  answeredText,
  cancelledText,
  inspectText,
  NO_RELAY_NOTE,
  notReadyText,
  recentText,
  renderResultText,
  renderWait,
  sentText,
  startedText,
  statusText,
  taskView,
  toolResultText,
  waitStructured,
} from "./render.ts";
import { deliveryHooksFor, isAttached } from "../delivery.ts";
import { MUTATING, ok, READ_ONLY, type ToolExtra, wrap } from "./result.ts";
import { REQUEST_ID, TASK_ID, anyObject, countFromZero, idString, inputOf, listed, outputOf } from "./listing.ts";
import { TASK_CARD_META } from "../apps/card/page.ts";
import { withCardKeys } from "./view-host.ts";
import type { RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";

const taskId = idString(TASK_ID, "a task id like t_0123456789 from codex_start or codex_status");
const requestId = idString(REQUEST_ID, "a request id like r_0123456789 from codex_wait");
const id = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "a configured id");
// Output schemas declare the keys a reader acts on and admit the rest: clients validate structuredContent against
// them, and every declared key costs tools/list characters that a model reads on each conversation.
const taskOut = outputOf({ task_id: z.string().optional(), state: z.string().optional() });
const requestOut = outputOf({ request_id: z.string().optional(), state: z.string().optional() });

export function registerTaskTools(server: McpServer, service: BridgeService, hold?: WaitHold): void {
  const connectionKey = (extra: ToolExtra) => extra.sessionId ?? "stdio";
  // The tools that open the task card also carry its key, in _meta, to clients that show views.
  const carded = (tool: RegisteredTool) => withCardKeys(server, tool, (id) => service.cardKey(id));

  carded(listed(server.registerTool(
    "codex_start",
    {
      title: "Start a Codex task",
      description: "Start a Codex task in a configured project (new thread + first turn), or adopt a native thread with thread_id. Then call codex_wait.",
      inputSchema: inputOf({
        project_id: id.optional(),
        prompt: z.string().min(1).max(PROMPT_MAX_CHARS),
        profile: id.optional(),
        model: z.string().max(100).optional(),
        effort: z.string().max(40).optional(),
        thread_id: z.string().max(100).optional(),
      }, { listStrict: true }),
      outputSchema: taskOut,
      annotations: MUTATING,
      _meta: TASK_CARD_META,
    },
    wrap(async (args, extra) => {
      const t = await service.start(args, connectionKey(extra));
      return ok(startedText(t), taskView(t));
    }),
  )));

  carded(listed(server.registerTool(
    "codex_wait",
    {
      title: "Wait for task progress",
      description:
        "Long-poll one task, several (task_ids) or all you started; returns at the first message, request, failure or turn end. Call until the turn ends, then codex_result.",
      inputSchema: inputOf({
        task_id: taskId.optional(),
        task_ids: z.array(taskId).min(1).max(MAX_WAIT_TASKS).optional(),
        cursor: z.string().max(400).optional(),
        timeout_seconds: z.number().int().min(0).max(300).optional(),
        mode: z.enum(["auto", "supervision", "raw"]).optional(),
      }),
      outputSchema: outputOf({ state: z.string().optional(), next_cursor: z.string().optional() }),
      annotations: READ_ONLY,
      _meta: TASK_CARD_META,
    },
    wrap(async (args, extra) => {
      const token = extra._meta?.progressToken;
      const answer = await service.wait(args, {
        connectionKey: connectionKey(extra),
        signal: extra.signal,
        hold,
        commitWhenDelivered: isAttached(server) && extra.requestId !== undefined ? (commit) => deliveryHooksFor(server).onDelivered(extra.requestId!, commit) : undefined,
        onProgress:
          token !== undefined && extra.sendNotification
            ? (elapsed, total, line) => {
                void extra
                  .sendNotification!({ method: "notifications/progress", params: { progressToken: token, progress: Math.round(elapsed / 1000), total: Math.round(total / 1000), message: line } })
                  .catch(() => {});
              }
            : undefined,
      });
      return ok(renderWait(answer), waitStructured(answer));
    }),
  )));

  carded(listed(server.registerTool(
    "codex_status",
    {
      title: "Task status",
      description: "One task's state now, or (without task_id) the active and recent tasks, for recovery after a reconnect.",
      inputSchema: inputOf({ task_id: taskId.optional() }),
      outputSchema: outputOf({ state: z.string().optional(), tasks: z.array(z.unknown()).optional() }),
      annotations: READ_ONLY,
      _meta: TASK_CARD_META,
    },
    wrap(async (args) => {
      if (args.task_id) {
        const { task: t, pending, context, unknown, alerts } = await service.status(args.task_id);
        const view = { ...taskView(t), ...(pending.length ? { pending } : {}), ...(context ? { context } : {}), ...(unknown ? { unknown } : {}), ...(alerts ? { alerts } : {}) };
        return ok([statusText({ task: t, pending, context, unknown }), ...alertLines(alerts)].join("\n"), view);
      }
      const tasks = service.recent();
      return ok(recentText(tasks), { tasks: tasks.map(taskView) });
    }),
  )));

  listed(server.registerTool(
    "codex_send",
    {
      title: "Steer or continue a task",
      description: "Steer the active turn, or start a new turn on the thread (recovery after connection_lost). model/effort/service_tier: new turns only.",
      inputSchema: inputOf({
        task_id: taskId,
        message: z.string().min(1).max(PROMPT_MAX_CHARS),
        model: z.string().max(100).optional(),
        effort: z.string().max(40).optional(),
        service_tier: z.string().max(40).optional(),
      }, { listStrict: true }),
      outputSchema: taskOut,
      annotations: MUTATING,
    },
    wrap(async (args) => {
      const r = await service.send(args);
      return ok(sentText(r), { ...taskView(r.task), action: r.action });
    }),
  ));

  listed(server.registerTool(
    "codex_respond",
    {
      title: "Answer a Codex request",
      description:
        "Answer a pending request by request_id. action: one of its decisions. payload: {scope} permissions, {answers:{id:answer}} questions, {content} elicitations.",
      inputSchema: inputOf({
        task_id: taskId,
        request_id: requestId,
        action: z.string().min(1).max(60),
        payload: anyObject().optional(),
      }),
      outputSchema: requestOut,
      annotations: MUTATING,
    },
    wrap(async (args) => {
      const r = await service.respond(args);
      return ok(answeredText(r, args.action), { request_id: r.interaction.id, state: r.interaction.state, ...(r.repeated ? { repeated: true } : {}) });
    }),
  ));

  listed(server.registerTool(
    "codex_submit_tool_result",
    {
      title: "Return a web-side tool result",
      description:
        "Answer a pending bridge_web_tool request with what YOUR tool really returned (text or JSON); never invent a result. Codex continues the same turn.",
      inputSchema: inputOf({
        task_id: taskId,
        request_id: requestId,
        status: z.enum(["success", "error", "unavailable", "declined"]),
        result: z.union([z.string(), anyObject(), z.array(z.unknown())]),
        sources: z.array(z.union([z.string(), anyObject()])).max(200).optional(),
        tool_used: z.string().max(200).optional(),
      }),
      outputSchema: requestOut,
      annotations: MUTATING,
    },
    wrap(async (args) => {
      const r = await service.submitToolResult(args);
      return ok(toolResultText(r, args.status), { request_id: r.interaction.id, state: r.interaction.state, ...(r.repeated ? { repeated: true } : {}) });
    }),
  ));

  carded(listed(server.registerTool(
    "codex_result",
    {
      title: "Task result with evidence",
      description: "After the turn ended: Codex's final message and evidence (exit codes, file changes, diff stat, Git checks).",
      inputSchema: inputOf({ task_id: taskId }),
      outputSchema: outputOf({ state: z.string().optional(), final_message: z.string().optional() }),
      annotations: READ_ONLY,
      _meta: TASK_CARD_META,
    },
    wrap(async (args) => {
      const answer = await service.result(args.task_id);
      const t = answer.task;
      if (!answer.ready) {
        return ok(notReadyText(t, answer.hint), { task_id: t.id, state: t.state, ...(t.failure ? { failure: t.failure } : {}) });
      }
      const result = answer.result;
      const noRelay = !t.relay && t.thread_id;
      return ok(renderResultText(result) + (noRelay ? `\n${NO_RELAY_NOTE}` : ""), { ...(result as unknown as Record<string, unknown>), ...(noRelay ? { relay: false } : {}) });
    }),
  )));

  listed(server.registerTool(
    "codex_inspect",
    {
      title: "Inspect task details",
      description:
        "Page through a task's stored detail of one kind; item_id selects one item (e.g. one command's output); follow next_offset.",
      inputSchema: inputOf({
        task_id: taskId,
        kind: z.enum(INSPECT_KINDS),
        item_id: z.string().max(200).optional(),
        offset: countFromZero().optional(),
        limit: z.number().int().min(1).max(32000).optional(),
      }),
      outputSchema: outputOf({ items: z.array(z.unknown()).optional(), next_offset: z.number().optional() }),
      annotations: READ_ONLY,
    },
    wrap(async (args) => {
      const page = service.inspect(args);
      return ok(inspectText(args.kind, args.task_id, page), page as unknown as Record<string, unknown>);
    }),
  ));

  listed(server.registerTool(
    "codex_cancel",
    {
      title: "Cancel a task's turn",
      description: "Interrupt the active turn, wait briefly for Codex's turn/completed, and stop the turn's background commands.",
      inputSchema: inputOf({ task_id: taskId, reason: z.string().max(2000).optional() }),
      outputSchema: taskOut,
      annotations: MUTATING,
    },
    wrap(async (args) => {
      const r = await service.cancel(args);
      return ok(cancelledText(r), { ...taskView(r.task), terminated: r.terminated });
    }),
  ));
}
