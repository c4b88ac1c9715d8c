// The connection handshake of the app-server protocol (verified on 0.171.0), and which requests mutate state.
import { sender, type Requester } from "./requester.ts";
import type { SurfaceEntry } from "./reliance.ts";
import { THREAD_RESUME, THREAD_START, THREAD_TERMINALS_TERMINATE } from "./thread.ts";
import { TURN_INTERRUPT, TURN_START, TURN_STEER } from "./turn.ts";

export const INITIALIZE = "initialize";
export const INITIALIZED = "initialized";

export interface InitializeParams {
  clientInfo: { name: string; title: string; version: string };
  capabilities: { experimentalApi: boolean };
}
/** What the bridge reads of the answer; each field is checked before use. */
export interface InitializeResult {
  userAgent?: unknown;
  codexHome?: unknown;
  platformOs?: unknown;
}

/** initialize, with its params and its result. */
export interface SessionRequests {
  [INITIALIZE]: { params: InitializeParams; result: InitializeResult | null };
}

export const initialize = (c: Requester, p: InitializeParams) => sender<SessionRequests>()(c, INITIALIZE, p);

/** Requests whose effect may have happened even when their acknowledgement is lost. */
export const MUTATING_METHODS: ReadonlySet<string> = new Set([THREAD_START, THREAD_RESUME, TURN_START, TURN_STEER, TURN_INTERRUPT, THREAD_TERMINALS_TERMINATE]);

export const SESSION_SURFACE: SurfaceEntry[] = [
  {
    kind: "request",
    method: INITIALIZE,
    sends: ["clientInfo.name", "clientInfo.title", "clientInfo.version", "capabilities.experimentalApi"],
    reads: ["userAgent", "codexHome", "platformOs"],
  },
  { kind: "clientNotification", method: INITIALIZED },
];
