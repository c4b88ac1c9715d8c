// How one Codex request (approval, permission, question, elicitation, web-tool call) is shown to the supervisor:
// what it asks, where, why, and the decisions it offers.
import type { InteractionRow } from "../store/rows.ts";
import { offeredDecisions } from "../policy/decisions.ts";

export interface RequestView {
  request_id: string;
  kind: string;
  command?: string;
  cwd?: string;
  reason?: string;
  decisions?: string[];
  questions?: { id: string; question: string; options?: string[] }[];
  message?: string;
  tool?: { capability: unknown; operation: unknown; request: string; context?: unknown };
  paths?: string[];
}

export function requestView(i: InteractionRow): RequestView {
  const p = i.params;
  const v: RequestView = { request_id: i.id, kind: i.kind };
  const str = (x: unknown) => (typeof x === "string" && x ? x : undefined);
  switch (i.kind) {
    case "command": {
      const actions = Array.isArray(p.commandActions) ? (p.commandActions as Record<string, unknown>[]) : [];
      const raw = actions.length === 1 ? str(actions[0]!.command) : undefined;
      v.command = raw ?? str(p.command);
      v.cwd = str(p.cwd);
      v.reason = str(p.reason);
      v.decisions = offeredDecisions(p);
      break;
    }
    case "fileChange":
      v.reason = str(p.reason);
      if (str(p.grantRoot)) v.paths = [String(p.grantRoot)];
      v.decisions = ["accept", "acceptForSession", "decline", "cancel"];
      break;
    case "permissions": {
      v.reason = str(p.reason);
      const fsPerm = ((p.permissions as Record<string, unknown> | undefined)?.fileSystem ?? {}) as Record<string, unknown>;
      v.paths = [...(Array.isArray(fsPerm.read) ? fsPerm.read : []), ...(Array.isArray(fsPerm.write) ? fsPerm.write : [])].map(String);
      v.decisions = ["accept", "decline"];
      break;
    }
    case "userInput":
      v.questions = (Array.isArray(p.questions) ? (p.questions as Record<string, unknown>[]) : []).map((q) => ({
        id: String(q.id),
        question: String(q.question ?? q.header ?? ""),
        ...(Array.isArray(q.options) ? { options: (q.options as Record<string, unknown>[]).map((o) => String(o.label ?? o.value ?? "")) } : {}),
      }));
      v.decisions = ["answer", "decline", "cancel"];
      break;
    case "elicitation":
      v.message = str(p.message) ?? str(p.description);
      v.decisions = ["accept", "decline", "cancel"];
      break;
    case "tool": {
      const a = (p.arguments ?? {}) as Record<string, unknown>;
      v.tool = { capability: a.capability, operation: a.operation, request: String(a.request ?? "") };
      if (a.context !== undefined) v.tool.context = a.context;
      break;
    }
    default:
      v.message = `unsupported request ${i.method}`;
      v.decisions = ["decline", "cancel"];
  }
  return v;
}
