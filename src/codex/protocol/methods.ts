// The one registry of the app-server requests the bridge sends: each method bound to its params and its result, joined
// from the tables its domain modules declare next to their method names (as openai/codex's app-server-protocol does
// for every client request). The protocol drift test checks it names exactly the verified requests.
import type { AccountRequests } from "./account.ts";
import type { ModelRequests } from "./model.ts";
import type { SessionRequests } from "./session.ts";
import type { ThreadRequests } from "./thread.ts";
import type { TurnRequests } from "./turn.ts";

export interface ClientRequests extends SessionRequests, AccountRequests, ModelRequests, ThreadRequests, TurnRequests {}

/** Every method of the registry, listed so a test can hold it against the verified surface; the compiler refuses a
 * missing or an extra one. */
export const CLIENT_REQUEST_METHODS = Object.keys({
  initialize: true,
  "account/read": true,
  "model/list": true,
  "thread/start": true,
  "thread/resume": true,
  "thread/list": true,
  "thread/read": true,
  "thread/turns/list": true,
  "thread/backgroundTerminals/list": true,
  "thread/backgroundTerminals/terminate": true,
  "thread/loaded/list": true,
  "turn/start": true,
  "turn/steer": true,
  "turn/interrupt": true,
} satisfies Record<keyof ClientRequests, true>);
