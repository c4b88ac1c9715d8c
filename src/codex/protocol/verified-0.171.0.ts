// The app-server protocol surface the bridge relies on, as verified against Codex 0.171.0: every method, notification
// and server request it uses with the fields it sends and reads, composed from the protocol modules that declare them.
// The schema-drift test regenerates this Codex's JSON schema and checks every entry; a new Codex version gets its own
// module once that test (and the integration suite) pass on it.
import { ACCOUNT_SURFACE } from "./account.ts";
import { ITEM_SURFACE, ITEM_VALUES } from "./item.ts";
import { MODEL_SURFACE } from "./model.ts";
import { REQUESTS_SURFACE, REQUESTS_VALUES } from "./requests.ts";
import { SESSION_SURFACE } from "./session.ts";
import type { VerifiedProtocol } from "./reliance.ts";
import { THREAD_SURFACE } from "./thread.ts";
import { TURN_SURFACE, TURN_VALUES } from "./turn.ts";

export const VERIFIED_0_171_0: VerifiedProtocol = {
  version: "0.171.0",
  surface: {
    entries: [...SESSION_SURFACE, ...THREAD_SURFACE, ...TURN_SURFACE, ...ITEM_SURFACE, ...REQUESTS_SURFACE, ...MODEL_SURFACE, ...ACCOUNT_SURFACE],
    values: [...TURN_VALUES, ...ITEM_VALUES, ...REQUESTS_VALUES],
  },
};
