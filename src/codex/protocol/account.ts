// account/read of the app-server protocol (verified on 0.171.0): whether a login exists, never read for identity.
import { sender, type RequestOptions, type Requester } from "./requester.ts";
import type { SurfaceEntry } from "./reliance.ts";

export const ACCOUNT_READ = "account/read";

/** account/read, with its params and its result. */
export interface AccountRequests {
  [ACCOUNT_READ]: { params: Record<string, never>; result: { account?: Record<string, unknown> | null; requiresOpenaiAuth?: boolean } };
}

export const accountRead = (c: Requester, o?: RequestOptions) => sender<AccountRequests>()(c, ACCOUNT_READ, {}, o);

export const ACCOUNT_SURFACE: SurfaceEntry[] = [{ kind: "request", method: ACCOUNT_READ, reads: ["account", "account.type", "requiresOpenaiAuth"] }];
