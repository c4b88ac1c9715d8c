// Decides whether the supervisor's answer to a Codex request is allowed and what it grants, as a verdict; the reply
// Codex expects is built from it beside the request types (src/codex/protocol/requests.ts).
import { BridgeError } from "../bridge-error.ts";
import { APPROVAL_DECISIONS, EXECPOLICY_AMENDMENT, type Verdict } from "../verdicts.ts";
import type { InteractionRow } from "../store/rows.ts";
import { checkDecision, looksCredentialLike } from "./decision-check.ts";
import { assessCommand } from "./risk.ts";
import type { ProfileSpec } from "../config/settings.ts";

export interface RespondInput {
  task_id: string;
  request_id: string;
  action: string;
  payload?: Record<string, unknown>;
}

const [ACCEPT, FOR_SESSION, ...REFUSALS] = APPROVAL_DECISIONS;
const COMMAND_ACTIONS = [ACCEPT, FOR_SESSION, EXECPOLICY_AMENDMENT, ...REFUSALS];
const FILE_ACTIONS: string[] = [...APPROVAL_DECISIONS];
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
  const raw = Array.isArray(params.availableDecisions) ? params.availableDecisions : [...APPROVAL_DECISIONS];
  const names = raw.map((d) => (typeof d === "string" ? d : d && typeof d === "object" ? Object.keys(d)[0] ?? "?" : "?"));
  // Codex accepts decline even where it does not list it; the supervisor must always be able to say no.
  if (!names.includes("decline")) names.push("decline");
  return names;
}

/**
 * Validates the supervisor's answer against what Codex asked and the bridge's policy, and returns the verdict. Throws
 * BridgeError naming the field and the fix.
 */
export function decide(i: InteractionRow, input: RespondInput, ctx: { projectRoot: string; profile: ProfileSpec }): Verdict {
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
      if (action === EXECPOLICY_AMENDMENT) {
        const offer = (Array.isArray(p.availableDecisions) ? p.availableDecisions : []).find(
          (d) => d && typeof d === "object" && EXECPOLICY_AMENDMENT in (d as Record<string, unknown>),
        );
        if (!offer) throw new BridgeError("acceptWithExecpolicyAmendment was not offered for this command; use accept or decline", "action");
        return { kind: "decision", decision: offer as Record<string, unknown> };
      }
      if (!offered.includes(action)) {
        throw new BridgeError(`${action} was not offered for this command; offered: ${offered.join(", ")}`, "action");
      }
      return { kind: "decision", decision: action };
    }
    case "fileChange": {
      requireAction(i, action, FILE_ACTIONS);
      const grantRoot = typeof p.grantRoot === "string" ? p.grantRoot : null;
      const verdict = checkDecision({ kind: "fileChange", action, grantPaths: grantRoot ? [grantRoot] : [], projectRoot: ctx.projectRoot });
      if (!verdict.ok) refuse(verdict.reason);
      return { kind: "decision", decision: action };
    }
    case "permissions": {
      requireAction(i, action, PERMISSION_ACTIONS);
      const scope = payload.scope ?? "turn";
      if (scope !== "turn" && scope !== "session") throw new BridgeError(`payload.scope must be "turn" or "session", not ${JSON.stringify(scope)}`, "payload.scope");
      if (action === "decline") return { kind: "permissions", permissions: {}, scope: "turn" };
      const perms = (p.permissions ?? {}) as Record<string, unknown>;
      const fs = (perms.fileSystem ?? null) as Record<string, unknown> | null;
      const paths = permissionPaths(fs, ctx.projectRoot);
      const verdict = checkDecision({
        kind: "permissions",
        action: scope === "session" ? "acceptForSession" : "accept",
        grantPaths: paths,
        projectRoot: ctx.projectRoot,
        credentialLike: looksCredentialLike(JSON.stringify({ reason: p.reason ?? null, permissions: perms })),
      });
      if (!verdict.ok) refuse(verdict.reason);
      const granted: Record<string, unknown> = {};
      if (perms.network) granted.network = perms.network;
      if (fs) granted.fileSystem = fs;
      return { kind: "permissions", permissions: granted, scope };
    }
    case "userInput": {
      requireAction(i, action, INPUT_ACTIONS);
      const questions = Array.isArray(p.questions) ? (p.questions as Record<string, unknown>[]) : [];
      if (action !== "answer") return { kind: "answers", answers: {} };
      const given = payload.answers;
      if (!given || typeof given !== "object" || Array.isArray(given)) {
        throw new BridgeError(`payload.answers must be an object mapping question id to an answer; questions: ${questions.map((q) => q.id).join(", ")}`, "payload.answers");
      }
      const secret = questions.find((q) => q.isSecret === true);
      const verdict = checkDecision({
        kind: "userInput",
        action: "answer",
        projectRoot: ctx.projectRoot,
        credentialLike: secret !== undefined || looksCredentialLike(JSON.stringify(questions.map((q) => [q.header, q.question]))),
      });
      if (!verdict.ok) refuse(verdict.reason);
      const missing = questions.map((q) => String(q.id)).filter((qid) => !(qid in (given as Record<string, unknown>)));
      if (missing.length > 0) throw new BridgeError(`payload.answers has no answer for: ${missing.join(", ")}; answer every question`, "payload.answers");
      const answers: Record<string, { answers: string[] }> = {};
      for (const [qid, value] of Object.entries(given as Record<string, unknown>)) {
        const q = questions.find((x) => x.id === qid);
        if (!q) throw new BridgeError(`payload.answers has unknown question id "${qid}"; questions: ${questions.map((x) => x.id).join(", ")}`, "payload.answers");
        const list = Array.isArray(value) ? value : [value];
        if (list.length === 0 || list.some((a) => typeof a !== "string")) {
          throw new BridgeError(`payload.answers.${qid} must be a string or a non-empty list of strings`, `payload.answers.${qid}`);
        }
        const options = Array.isArray(q.options) ? (q.options as Record<string, unknown>[]).map((o) => String(o.label ?? o.value ?? "")) : null;
        if (options && options.length > 0 && q.isOther !== true) {
          const bad = list.find((a) => !options.includes(a as string));
          if (bad !== undefined) throw new BridgeError(`answer "${bad}" to ${qid} is not an offered option; choose from: ${options.join(", ")}`, `payload.answers.${qid}`);
        }
        answers[qid] = { answers: list as string[] };
      }
      return { kind: "answers", answers };
    }
    case "elicitation": {
      requireAction(i, action, ELICIT_ACTIONS);
      if (action !== "accept") return { kind: "elicitation", action: action as "decline" | "cancel", content: null };
      if (p.mode === "url" || p.mode === "openai/userVerification") {
        throw new BridgeError(`this elicitation (${String(p.mode)}) needs the user in person; decline or cancel it`, "action");
      }
      if (looksCredentialLike(JSON.stringify({ message: p.message ?? null, schema: p.requestedSchema ?? null }))) {
        refuse("the elicitation asks for credential-like data; decline it and let the user provide it locally");
      }
      const content = payload.content;
      validateAgainstSchema(content, p.requestedSchema);
      return { kind: "elicitation", action: "accept", content };
    }
    default: {
      if (action !== "decline" && action !== "cancel") {
        throw new BridgeError(`${i.method} is a request kind the bridge does not know; it can only be declined or cancelled`, "action");
      }
      return { kind: "decision", decision: action };
    }
  }
}

/** Paths a permission request would grant: legacy read/write lists plus sandbox entries (deny entries grant nothing). */
export function permissionPaths(fs: Record<string, unknown> | null, projectRoot: string): string[] {
  if (!fs) return [];
  const out = [...(Array.isArray(fs.read) ? fs.read : []), ...(Array.isArray(fs.write) ? fs.write : [])].map(String);
  for (const raw of Array.isArray(fs.entries) ? fs.entries : []) {
    const e = (raw ?? {}) as { access?: unknown; path?: Record<string, unknown> };
    if (e.access === "deny") continue;
    const path = e.path ?? {};
    if (path.type === "path") out.push(String(path.path));
    else if (path.type === "glob_pattern") out.push(String(path.pattern));
    else if (path.type === "special") {
      const v = (path.value ?? {}) as Record<string, unknown>;
      if (v.kind === "project_roots") out.push(typeof v.subpath === "string" ? v.subpath : projectRoot);
      else if (v.kind === "tmpdir" || v.kind === "slash_tmp") out.push("/tmp");
      else if (v.kind === "unknown" && typeof v.path === "string") out.push(v.path);
      // root, minimal and anything unrecognized: the whole machine as far as the bridge can tell.
      else if (v.kind !== "minimal") out.push("/");
    } else out.push("/");
  }
  return out;
}

/**
 * Checks elicitation content against an MCP form schema: a flat object of string, number, integer, boolean,
 * single-select (enum or oneOf const) and multi-select (array) fields, with the length, range and count bounds.
 */
export function validateAgainstSchema(content: unknown, schema: unknown): void {
  if (!content || typeof content !== "object" || Array.isArray(content)) {
    throw new BridgeError("payload.content must be an object matching the requested schema", "payload.content");
  }
  const s = (schema ?? {}) as { properties?: Record<string, Record<string, unknown>>; required?: unknown };
  const props = s.properties ?? {};
  const obj = content as Record<string, unknown>;
  for (const key of Array.isArray(s.required) ? s.required.map(String) : []) {
    if (!(key in obj)) throw new BridgeError(`payload.content is missing required field "${key}"`, `payload.content.${key}`);
  }
  for (const [key, value] of Object.entries(obj)) {
    const prop = props[key];
    if (!prop) throw new BridgeError(`payload.content.${key} is not in the requested schema; allowed: ${Object.keys(props).join(", ")}`, `payload.content.${key}`);
    const problem = fieldProblem(prop, value);
    if (problem) throw new BridgeError(`payload.content.${key} ${problem}`, `payload.content.${key}`);
  }
}

function choices(spec: Record<string, unknown> | undefined): string[] | null {
  if (!spec) return null;
  if (Array.isArray(spec.enum)) return spec.enum.map(String);
  const list = Array.isArray(spec.oneOf) ? spec.oneOf : Array.isArray(spec.anyOf) ? spec.anyOf : null;
  return list ? list.map((o) => String((o as Record<string, unknown>)?.const)) : null;
}

const num = (x: unknown): number | null => (typeof x === "number" ? x : typeof x === "bigint" ? Number(x) : null);

function fieldProblem(prop: Record<string, unknown>, value: unknown): string | null {
  switch (prop.type) {
    case "string": {
      if (typeof value !== "string") return "must be a string";
      const allowed = choices(prop);
      if (allowed && !allowed.includes(value)) return `must be one of: ${allowed.join(", ")}`;
      const min = num(prop.minLength);
      const max = num(prop.maxLength);
      if (min !== null && value.length < min) return `must be at least ${min} characters`;
      if (max !== null && value.length > max) return `must be at most ${max} characters`;
      if (prop.format === "email" && !/^[^\s@]+@[^\s@]+$/.test(value)) return "must be an email address";
      if (prop.format === "uri" && !/^[a-z][a-z0-9+.-]*:\S+$/i.test(value)) return "must be a URI";
      if (prop.format === "date" && !/^\d{4}-\d{2}-\d{2}$/.test(value)) return "must be a date (YYYY-MM-DD)";
      return null;
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return `must be a ${prop.type}`;
      if (prop.type === "integer" && !Number.isInteger(value)) return "must be an integer";
      const min = num(prop.minimum);
      const max = num(prop.maximum);
      if (min !== null && value < min) return `must be at least ${min}`;
      if (max !== null && value > max) return `must be at most ${max}`;
      return null;
    }
    case "boolean":
      return typeof value === "boolean" ? null : "must be a boolean";
    case "array": {
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) return "must be a list of strings";
      const allowed = choices(prop.items as Record<string, unknown> | undefined);
      const bad = allowed ? value.find((v) => !allowed.includes(v as string)) : undefined;
      if (allowed && bad !== undefined) return `has "${String(bad)}", which is not one of: ${allowed.join(", ")}`;
      const min = num(prop.minItems);
      const max = num(prop.maxItems);
      if (min !== null && value.length < min) return `must have at least ${min} item(s)`;
      if (max !== null && value.length > max) return `must have at most ${max} item(s)`;
      return null;
    }
    default:
      return `has a schema type (${JSON.stringify(prop.type)}) the bridge cannot check; decline or cancel the elicitation`;
  }
}
