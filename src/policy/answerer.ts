// Who may answer Codex's approvals and questions under a profile's `approvals` setting: the supervising model
// (codex_respond), the person on the task card (an app-only tool), the person at the machine (`codex-bridge approve`
// and friends, over the owner-only control endpoint), or either. Pure rules, no I/O.
import { BridgeError } from "../bridge-error.ts";
import type { ProfileSpec } from "../config/settings.ts";

/** Recorded as `answered_by`: "person" is the task card, "person_at_machine" the owner's own terminal. */
export type Answerer = "supervisor" | "person" | "person_at_machine";
export type ApprovalsSetting = ProfileSpec["approvals"];

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
