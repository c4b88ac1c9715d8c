// What the approval policy decides about a Codex request, in one vocabulary shared by the policy (which decides) and
// the protocol (which turns a verdict into the reply Codex expects): the one list of command and file-change
// decisions, and the verdict shapes. A leaf, so both may import it without one layer reaching into the other.

/** The decisions Codex offers for a command or a file change (CommandExecutionApprovalDecision's plain values). */
export const APPROVAL_DECISIONS = ["accept", "acceptForSession", "decline", "cancel"] as const;

/** The object-valued command decision: accept and amend the exec policy with the rule Codex proposed. */
export const EXECPOLICY_AMENDMENT = "acceptWithExecpolicyAmendment";

export type Verdict =
  /** A command or file change (or a request kind the bridge does not know): the decision, or the offer taken whole. */
  | { kind: "decision"; decision: string | Record<string, unknown> }
  | { kind: "permissions"; permissions: Record<string, unknown>; scope: "turn" | "session" }
  | { kind: "answers"; answers: Record<string, { answers: string[] }> }
  | { kind: "elicitation"; action: "accept" | "decline" | "cancel"; content: unknown }
  /** The supervisor's host answered a dynamic tool call (bridge_web_tool) with this text. */
  | { kind: "toolResult"; text: string; success: boolean };
