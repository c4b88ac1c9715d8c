// Who may answer Codex's approvals and questions under a profile's `approvals` setting: the supervising model
// (codex_respond), the person on the task card (an app-only tool), the person at the machine (`codex-bridge approve`
// and friends, over the owner-only control endpoint), or either. Pure rules, no I/O.
import { BridgeError } from "../bridge-error.ts";
import type { ProfileSpec } from "../config/settings.ts";

/** Who answers: "person" is the task card, "person_at_machine" the owner's own terminal. */
export type Answerer = "supervisor" | "person" | "person_at_machine";
export type ApprovalsSetting = ProfileSpec["approvals"];

/**
 * The ledger's `answered_by`, naming only what was proven: "supervisor" is an answer through codex_respond (the
 * model's tool); "person on the task card" is one that came with the task card's key (see tasks/card-keys.ts);
 * "person at the machine" one given over the owner-only control endpoint (`codex-bridge approve` and friends).
 */
export const ANSWERED_BY: Record<Answerer, string> = { supervisor: "supervisor", person: "person on the task card", person_at_machine: "person at the machine" };

/** True when the model must leave approvals to the person (it may still answer bridge_web_tool calls). */
export function personDecides(setting: ApprovalsSetting): boolean {
  return setting === "person";
}

/** Refuses an answer from someone the profile does not let answer, with a sentence saying who does. */
export function checkAnswerer(setting: ApprovalsSetting, by: Answerer, requestId: string): void {
  const as = by === "supervisor" ? "supervisor" : "person";
  if (setting === "either" || setting === as) return;
  if (by === "supervisor") {
    throw new BridgeError(
      `${requestId} is the person's to decide: this profile sets approvals = "person", so they answer it on the task card or with codex-bridge approve at the machine. Do not answer it; call codex_wait until it is answered`,
      "request_id",
    );
  }
  throw new BridgeError(`${requestId} is answered by the supervisor: this profile sets approvals = "supervisor" (set it to "person" or "either" to decide it yourself)`, "request_id");
}
