import { BridgeError } from "./errors.ts";
import type { InteractionRow } from "./model.ts";
import { assessCommand, checkDecision, looksCredentialLike } from "./policy.ts";
import type { ProfileSpec } from "./settings.ts";

export interface RespondInput {
  task_id: string;
  request_id: string;
  action: string;
  payload?: Record<string, unknown>;
}

const COMMAND_ACTIONS = ["accept", "acceptForSession", "acceptWithExecpolicyAmendment", "decline", "cancel"];
const FILE_ACTIONS = ["accept", "acceptForSession", "decline", "cancel"];
const PERMISSION_ACTIONS = ["accept", "decline"];
const INPUT_ACTIONS = ["answer", "decline", "cancel"];
const ELICIT_ACTIONS = ["accept", "decline", "cancel"];

function requireAction(i: InteractionRow, action: string, allowed: string[]): void {
  if (!allowed.includes(action)) {
    throw new BridgeError(`action "${action}" does not fit a ${i.kind} request; use one of: ${allowed.join(", ")}`, "action");
  }
}

function refuse(reason: string): never {
  throw new BridgeError(`refused by the bridge's approval policy: ${reason}`, "action");
}

/** The decisions Codex offered for a command, as plain names. */
export function offeredDecisions(params: Record<string, unknown>): string[] {
  const raw = Array.isArray(params.availableDecisions) ? params.availableDecisions : ["accept", "acceptForSession", "decline", "cancel"];
  const names = raw.map((d) => (typeof d === "string" ? d : d && typeof d === "object" ? Object.keys(d)[0] ?? "?" : "?"));
  // Codex accepts decline even where it does not list it; the supervisor must always be able to say no.
  if (!names.includes("decline")) names.push("decline");
  return names;
}

/**
 * Validates the supervisor's answer against what Codex asked and the bridge's policy, and builds the exact JSON-RPC
 * result for it. Throws BridgeError naming the field and the fix.
 */
export function buildResponse(i: InteractionRow, input: RespondInput, ctx: { projectRoot: string; profile: ProfileSpec }): { response: unknown } {
  const p = i.params;
  const payload = input.payload ?? {};
  const action = input.action;
  switch (i.kind) {
    case "command": {
      requireAction(i, action, COMMAND_ACTIONS);
      const offered = offeredDecisions(p);
      const command = typeof p.command === "string" ? p.command : "";
      const assessment = assessCommand(command, {
        projectRoot: ctx.projectRoot,
        extraHighRisk: ctx.profile.high_risk_patterns,
        extraForbidden: ctx.profile.forbidden_patterns,
      });
      const verdict = checkDecision({ kind: "command", action, assessment, projectRoot: ctx.projectRoot });
      if (!verdict.ok) refuse(verdict.reason);
      if (action === "acceptWithExecpolicyAmendment") {
        const offer = (Array.isArray(p.availableDecisions) ? p.availableDecisions : []).find(
          (d) => d && typeof d === "object" && "acceptWithExecpolicyAmendment" in (d as Record<string, unknown>),
        );
        if (!offer) throw new BridgeError("acceptWithExecpolicyAmendment was not offered for this command; use accept or decline", "action");
        return { response: { decision: offer } };
      }
      if (action === "acceptForSession" && !offered.includes("acceptForSession")) {
        throw new BridgeError(`acceptForSession was not offered for this command; offered: ${offered.join(", ")}`, "action");
      }
      return { response: { decision: action } };
    }
    case "fileChange": {
      requireAction(i, action, FILE_ACTIONS);
      const grantRoot = typeof p.grantRoot === "string" ? p.grantRoot : null;
      const verdict = checkDecision({ kind: "fileChange", action, grantPaths: grantRoot ? [grantRoot] : [], projectRoot: ctx.projectRoot });
      if (!verdict.ok) refuse(verdict.reason);
      return { response: { decision: action } };
    }
    case "permissions": {
      requireAction(i, action, PERMISSION_ACTIONS);
      const scope = payload.scope ?? "turn";
      if (scope !== "turn" && scope !== "session") throw new BridgeError(`payload.scope must be "turn" or "session", not ${JSON.stringify(scope)}`, "payload.scope");
      if (action === "decline") return { response: { permissions: {}, scope: "turn" } };
      const perms = (p.permissions ?? {}) as Record<string, unknown>;
      const fs = (perms.fileSystem ?? null) as Record<string, unknown> | null;
      const paths = [...(Array.isArray(fs?.read) ? fs!.read : []), ...(Array.isArray(fs?.write) ? fs!.write : [])].map(String);
      const verdict = checkDecision({
        kind: "permissions",
        action: scope === "session" ? "acceptForSession" : "accept",
        grantPaths: paths,
        projectRoot: ctx.projectRoot,
        credentialLike: looksCredentialLike(JSON.stringify(p)),
      });
      if (!verdict.ok) refuse(verdict.reason);
      const granted: Record<string, unknown> = {};
      if (perms.network) granted.network = perms.network;
      if (fs) granted.fileSystem = fs;
      return { response: { permissions: granted, scope } };
    }
    case "userInput": {
      requireAction(i, action, INPUT_ACTIONS);
      const questions = Array.isArray(p.questions) ? (p.questions as Record<string, unknown>[]) : [];
      if (action !== "answer") return { response: { answers: {} } };
      const given = payload.answers;
      if (!given || typeof given !== "object" || Array.isArray(given)) {
        throw new BridgeError(`payload.answers must be an object mapping question id to an answer; questions: ${questions.map((q) => q.id).join(", ")}`, "payload.answers");
      }
      const answers: Record<string, { answers: string[] }> = {};
      for (const [qid, value] of Object.entries(given as Record<string, unknown>)) {
        const q = questions.find((x) => x.id === qid);
        if (!q) throw new BridgeError(`payload.answers has unknown question id "${qid}"; questions: ${questions.map((x) => x.id).join(", ")}`, "payload.answers");
        const list = Array.isArray(value) ? value.map(String) : [String(value)];
        const options = Array.isArray(q.options) ? (q.options as Record<string, unknown>[]).map((o) => String(o.label ?? o.value ?? "")) : null;
        if (options && options.length > 0 && q.isOther !== true) {
          const bad = list.find((a) => !options.includes(a));
          if (bad !== undefined) throw new BridgeError(`answer "${bad}" to ${qid} is not an offered option; choose from: ${options.join(", ")}`, "payload.answers");
        }
        answers[qid] = { answers: list };
      }
      return { response: { answers } };
    }
    case "elicitation": {
      requireAction(i, action, ELICIT_ACTIONS);
      if (action !== "accept") return { response: { action, content: null, _meta: null } };
      if (p.mode === "url" || p.mode === "openai/userVerification") {
        throw new BridgeError(`this elicitation (${String(p.mode)}) needs the user in person; decline or cancel it`, "action");
      }
      const content = payload.content;
      validateAgainstSchema(content, p.requestedSchema);
      if (looksCredentialLike(JSON.stringify(p))) refuse("the elicitation asks for credential-like data; decline it and let the user provide it locally");
      return { response: { action: "accept", content, _meta: null } };
    }
    default: {
      if (action !== "decline" && action !== "cancel") {
        throw new BridgeError(`${i.method} is a request kind the bridge does not know; it can only be declined or cancelled`, "action");
      }
      if (i.method === "applyPatchApproval" || i.method === "execCommandApproval") return { response: { decision: action === "decline" ? "denied" : "abort" } };
      return { response: { decision: action } };
    }
  }
}

/** A small check of an MCP elicitation form schema: flat object of primitive properties, required keys, enums. */
export function validateAgainstSchema(content: unknown, schema: unknown): void {
  if (!content || typeof content !== "object" || Array.isArray(content)) {
    throw new BridgeError("payload.content must be an object matching the requested schema", "payload.content");
  }
  const s = (schema ?? {}) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  const props = s.properties ?? {};
  const obj = content as Record<string, unknown>;
  for (const key of s.required ?? []) {
    if (!(key in obj)) throw new BridgeError(`payload.content is missing required field "${key}"`, "payload.content");
  }
  for (const [key, value] of Object.entries(obj)) {
    const prop = props[key];
    if (!prop) throw new BridgeError(`payload.content.${key} is not in the requested schema; allowed: ${Object.keys(props).join(", ")}`, "payload.content");
    const type = prop.type;
    const ok =
      type === "string"
        ? typeof value === "string"
        : type === "number"
          ? typeof value === "number"
          : type === "integer"
            ? Number.isInteger(value)
            : type === "boolean"
              ? typeof value === "boolean"
              : true;
    if (!ok) throw new BridgeError(`payload.content.${key} must be a ${String(type)}`, "payload.content");
    if (Array.isArray(prop.enum) && !prop.enum.includes(value)) {
      throw new BridgeError(`payload.content.${key} must be one of: ${prop.enum.map(String).join(", ")}`, "payload.content");
    }
  }
}
