// A Codex request in full, as many times as the supervisor asks: a wait shows a request whole only once, and when that
// answer was lost on the way (a tunnel cut, a client retry) codex_status and codex_inspect kind=requests give the same
// command, cwd, reason, decisions (and an elicitation's form) again, so nobody answers blind.
import type { InteractionRow } from "../store/rows.ts";
import { requestView, type RequestView } from "./request-view.ts";

const SCHEMA_MAX_CHARS = 4_000;

export interface RequestDetail extends RequestView {
  state: InteractionRow["state"];
  /** An elicitation's form as the MCP server sent it: the fields, their types and bounds. */
  schema?: unknown;
  /** Codex asking whether an MCP server may run a tool (an elicitation with codex_approval_kind mcp_tool_call). */
  mcp_tool?: { server: unknown; tool: unknown; params: unknown };
  /** What the bridge sent back, once answered. */
  answer?: unknown;
  note?: string;
}

function bounded(v: unknown): unknown {
  const s = JSON.stringify(v ?? null);
  return s.length <= SCHEMA_MAX_CHARS ? v : `${s.slice(0, SCHEMA_MAX_CHARS - 1)}… (codex_inspect kind=requests item_id=… shows it whole)`;
}

export function requestDetail(i: InteractionRow, full = false): RequestDetail {
  const v: RequestDetail = { ...requestView(i), state: i.state };
  const p = i.params;
  if (i.kind === "elicitation") {
    if (p.requestedSchema !== undefined) v.schema = full ? p.requestedSchema : bounded(p.requestedSchema);
    const meta = (p._meta ?? null) as Record<string, unknown> | null;
    if (meta?.codex_approval_kind === "mcp_tool_call") v.mcp_tool = { server: p.serverName, tool: meta.tool_name, params: full ? meta.tool_params : bounded(meta.tool_params) };
  }
  if (i.response !== null && i.response !== undefined) v.answer = i.response;
  if (i.note) v.note = i.note;
  return v;
}
