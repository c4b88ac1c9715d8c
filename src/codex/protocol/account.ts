// account/read of the app-server protocol (verified on 0.171.0): whether a login exists, never read for identity.
import type { RequestOptions, Requester } from "./requester.ts";
import type { SurfaceEntry } from "./reliance.ts";

export const ACCOUNT_READ = "account/read";

export const accountRead = (c: Requester, o?: RequestOptions) =>
  c.request<{ account?: Record<string, unknown> | null; requiresOpenaiAuth?: boolean }>(ACCOUNT_READ, {}, o);

export const ACCOUNT_SURFACE: SurfaceEntry[] = [{ kind: "request", method: ACCOUNT_READ, reads: ["account", "account.type", "requiresOpenaiAuth"] }];
