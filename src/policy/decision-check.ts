// Checks the supervisor's decision on a request against the policy's grade: refusing is always allowed, lasting
// grants and grants outside the project or of credential-like scope are not.
import { posix, win32 as pathWin } from "node:path";
import { redactText } from "./redact.ts";
import type { CommandAssessment } from "./risk-tables.ts";

export type RequestKind = "command" | "fileChange" | "permissions" | "userInput" | "elicitation" | "unknown";

/**
 * What the supervisor answered. Codex's approval decisions plus the MCP elicitation actions;
 * `answer` is a user-input reply.
 */
export type DecisionAction =
  | "accept"
  | "acceptForSession"
  | "acceptWithExecpolicyAmendment"
  | "answer"
  | "decline"
  | "cancel";

export interface DecisionInput {
  kind: RequestKind;
  action: DecisionAction | (string & {});
  /** Required for command requests; without it the command counts as high risk. */
  assessment?: CommandAssessment;
  /** Paths a permission or file-change request would grant or touch. */
  grantPaths?: string[];
  projectRoot: string;
  credentialLike?: boolean;
  /** Scope of a permission grant; "session" outlives this turn. */
  scope?: "turn" | "session";
}

export type DecisionCheck = { ok: true } | { ok: false; reason: string };

const REFUSING = new Set(["decline", "cancel"]);
const LASTING = new Set(["acceptForSession", "acceptWithExecpolicyAmendment"]);

export function checkDecision(input: DecisionInput): DecisionCheck {
  const action = input.action;
  if (REFUSING.has(action)) return { ok: true };
  const lasting = LASTING.has(action) || input.scope === "session";

  if (input.kind === "unknown") {
    return refuse("The bridge does not know this kind of request, so it can only be declined or cancelled; decline it and tell Codex in a message what to do instead.");
  }
  if (!["accept", "acceptForSession", "acceptWithExecpolicyAmendment", "answer"].includes(action)) {
    return refuse(`"${action}" is not an answer the bridge knows for this request; use accept, decline or cancel.`);
  }

  switch (input.kind) {
    case "command": {
      const a = input.assessment ?? { level: "high" as const, reasons: ["the command was not assessed"] };
      const why = a.reasons.length > 0 ? ` (${a.reasons.join("; ")})` : "";
      if (action === "answer") return refuse('A command approval takes accept or decline, not "answer"; use one of those.');
      if (a.level === "forbidden") {
        return refuse(`This command is forbidden by the bridge's safety policy${why}, so it can only be declined; decline it, or ask the user to run it themselves.`);
      }
      if (a.level === "high" && lasting) {
        return refuse(`This command is high risk${why}, so it can be approved only for this one run, never for the session; answer accept to allow just this run, or decline.`);
      }
      return { ok: true };
    }
    case "fileChange":
    case "permissions": {
      if (input.credentialLike) {
        return refuse("This request looks like it involves credentials, so it can only be declined; decline it, or ask the user to handle the credentials themselves.");
      }
      const outside = outsidePaths(input.grantPaths ?? [], input.projectRoot);
      if (outside.length > 0) {
        return refuse(`This request reaches outside the project (${outside.slice(0, 3).join(", ")}), so it can only be declined; decline it, or ask the user to grant that access themselves.`);
      }
      return { ok: true };
    }
    case "userInput":
    case "elicitation": {
      if (input.credentialLike) {
        return refuse("This question asks for a secret such as a password or token, which the supervisor must never supply; cancel it, or ask the user to enter it themselves.");
      }
      if (lasting) return refuse('A question is answered once; use "accept" (or "answer") without a session scope.');
      return { ok: true };
    }
  }
}

function refuse(reason: string): DecisionCheck {
  return { ok: false, reason };
}

function outsidePaths(paths: string[], projectRoot: string): string[] {
  const windows = /^[A-Za-z]:[\\/]|^\\\\/.test(projectRoot);
  const p = windows ? pathWin : posix;
  const root = p.resolve(projectRoot);
  const fold = (s: string) => (windows ? s.toLowerCase() : s);
  return paths.filter((raw) => {
    const full = p.resolve(root, raw);
    const rel = p.relative(fold(root), fold(full));
    return rel.startsWith("..") || p.isAbsolute(rel);
  });
}


const CREDENTIAL_WORDS =
  /\b(pass(word|phrase|wd|code)s?|secrets?|api[\s_-]?keys?|access[\s_-]?keys?|private[\s_-]?keys?|ssh[\s_-]?keys?|credentials?|(access|auth|bearer|refresh|api|session|id|personal[\s_-]access|github|npm|oauth)[\s_-]?tokens?|token|otp|one[\s-]time[\s-](code|password)|2fa|mfa|totp|verification[\s_-]code|pin[\s_-]?code|keychain|cookies?|client[\s_-]secret)\b/i;

/** True when a request's text asks for or mentions secrets (tokens, passwords, keys) or contains one. */
export function looksCredentialLike(text: string): boolean {
  if (CREDENTIAL_WORDS.test(text)) return true;
  return redactText(text) !== text;
}