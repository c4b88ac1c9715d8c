// The task card's server side: its ui:// resource and the two app-only tools it calls (codex_card for the snapshot,
// codex_card_respond for the person's decisions). App-only tools (_meta.ui.visibility ["app"]) are hidden from the
// model by MCP Apps hosts, and are neither listed nor callable for clients that show no views (Claude Code and Gemini
// CLI list every tool to their model). A decision counts as the person's only with the card's key (view-host.ts).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { BridgeService } from "../../service/bridge.ts";
import { TASK_CARD_HTML, TASK_CARD_URI } from "../apps/card/page.ts";
import { MCP_APP_MIME } from "../apps/uris.ts";
import { REQUEST_ID, TASK_ID, anyObject, idString, inputOf, listed, outputOf } from "./listing.ts";
import { MUTATING, ok, READ_ONLY, wrap } from "./result.ts";
import { answeredText, cardText } from "./render.ts";
import { forViewHostsOnly, withCardKeys } from "./view-host.ts";

const APP_ONLY = { ui: { visibility: ["app"] } };

const taskId = idString(TASK_ID, "a task id like t_0123456789");
const requestId = idString(REQUEST_ID, "a request id like r_0123456789 from the card");

export function registerCardTools(server: McpServer, service: BridgeService): void {
  server.registerResource(
    "task-card",
    TASK_CARD_URI,
    { title: "Codex task card", description: "MCP Apps view of one Codex task: progress, commands, diff, answer, and approvals a person can click.", mimeType: MCP_APP_MIME },
    async (): Promise<ReadResourceResult> => ({ contents: [{ uri: TASK_CARD_URI, mimeType: MCP_APP_MIME, text: TASK_CARD_HTML }] }),
  );

  const card = listed(server.registerTool(
    "codex_card",
    {
      title: "Task card data",
      description: "Task card only (not for the model).",
      inputSchema: inputOf({ task_id: taskId, since: z.string().max(200).optional() }),
      outputSchema: outputOf({ version: z.string().optional() }),
      annotations: READ_ONLY,
      _meta: APP_ONLY,
    },
    wrap(async (args) => {
      const c = service.card(args);
      if (c.unchanged) return ok(cardText(args.task_id, null), { unchanged: true, version: c.version });
      return ok(cardText(c.task_id, c), c as unknown as Record<string, unknown>);
    }),
  ));
  forViewHostsOnly(server, card);
  withCardKeys(server, card, (id) => service.cardKey(id));

  const respond = listed(server.registerTool(
    "codex_card_respond",
    {
      title: "The person's decision",
      description: "Task card only (not for the model): the person's answer.",
      inputSchema: inputOf({
        task_id: taskId,
        request_id: requestId,
        action: z.string().min(1).max(60),
        payload: anyObject().optional(),
        card_key: z.string().max(100).optional(),
      }),
      outputSchema: outputOf({ request_id: z.string().optional(), state: z.string().optional() }),
      annotations: MUTATING,
      _meta: APP_ONLY,
    },
    wrap(async (args) => {
      const r = await service.answerFromCard(args);
      return ok(answeredText(r, args.action, "person"), { request_id: r.interaction.id, state: r.interaction.state, answered_by: r.interaction.answered_by, ...(r.repeated ? { repeated: true } : {}) });
    }),
  ));
  forViewHostsOnly(server, respond);
}
