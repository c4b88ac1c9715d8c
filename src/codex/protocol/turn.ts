// Turn methods and turn notifications of the app-server protocol (verified on 0.171.0), with the shapes the bridge parses.
import { z } from "zod";
import { CodexErrorShape } from "./error-shape.ts";
import { sender, type RequestOptions, type Requester } from "./requester.ts";
import { keysOf, zodPaths, type SurfaceEntry, type SurfaceValues } from "./reliance.ts";

export const TURN_START = "turn/start";
export const TURN_STEER = "turn/steer";
export const TURN_INTERRUPT = "turn/interrupt";

export const TURN_STARTED = "turn/started";
export const TURN_COMPLETED = "turn/completed";
export const TURN_PLAN_UPDATED = "turn/plan/updated";
export const TURN_DIFF_UPDATED = "turn/diff/updated";

export type UserInput = { type: "text"; text: string; text_elements: [] };
export const textInput = (text: string): UserInput[] => [{ type: "text", text, text_elements: [] }];

export interface TurnStartParams {
  threadId: string | null;
  input: UserInput[];
  approvalPolicy: string;
  sandboxPolicy: Record<string, unknown>;
  model?: string;
  effort?: string;
  serviceTier?: string;
}

export interface TurnSteerParams {
  threadId: string;
  expectedTurnId: string;
  input: UserInput[];
}
export interface TurnInterruptParams {
  threadId: string;
  turnId: string;
}

/** Every turn request the bridge sends, with its params and its result (turn/interrupt answers with `{}`). */
export interface TurnRequests {
  [TURN_START]: { params: TurnStartParams; result: { turn: { id: string } } };
  [TURN_STEER]: { params: TurnSteerParams; result: { turnId: string } };
  [TURN_INTERRUPT]: { params: TurnInterruptParams; result: Record<string, never> };
}

const send = sender<TurnRequests>();

export const turnStart = (c: Requester, p: TurnStartParams, o?: RequestOptions) => send(c, TURN_START, p, o);
export const turnSteer = (c: Requester, p: TurnSteerParams, o?: RequestOptions) => send(c, TURN_STEER, p, o);
export const turnInterrupt = (c: Requester, p: TurnInterruptParams, o?: RequestOptions) => send(c, TURN_INTERRUPT, p, o);

/**
 * The codexErrorInfo variants the bridge tells apart (the failure classifier maps each one): the plain ones, and the
 * ones that are objects keyed by the variant, carrying the provider's httpStatusCode.
 */
export const CODEX_ERROR_VARIANTS = [
  "contextWindowExceeded",
  "sessionBudgetExceeded",
  "usageLimitExceeded",
  "rateLimitExceeded",
  "serverOverloaded",
  "internalServerError",
  "flexUnavailable",
  "policyCapacityUnavailable",
  "modelNotFound",
  "unauthorized",
  "badRequest",
  "sandboxError",
  "tooManyDenials",
  "cyberPolicy",
  "bioPolicy",
  "misalignmentPolicyViolation",
  "inferenceHookDenied",
  "activeTurnNotSteerable",
] as const;
export const CODEX_ERROR_HTTP_VARIANTS = ["httpConnectionFailed", "responseStreamConnectionFailed", "responseStreamDisconnected", "responseTooManyFailedAttempts"] as const;

const Obj = z.record(z.string(), z.unknown());

/** turn/started and turn/completed params. */
export const TurnEnvelope = z.object({
  turn: z
    .object({
      id: z.string(),
      status: z.string().optional(),
      error: CodexErrorShape.nullable().optional(),
      items: z.array(Obj).optional(),
    })
    .passthrough(),
});
export const PlanEnvelope = z.object({
  turnId: z.string().optional(),
  explanation: z.string().nullable().optional(),
  plan: z.array(z.object({ step: z.string(), status: z.string() }).passthrough()),
});
export const DiffEnvelope = z.object({ turnId: z.string().optional(), diff: z.string() });

const INPUT_FIELDS = ["input[].type", "input[].text", "input[].text_elements"];

export const TURN_SURFACE: SurfaceEntry[] = [
  {
    kind: "request",
    method: TURN_START,
    sends: [...keysOf<TurnStartParams>({ threadId: true, input: true, approvalPolicy: true, sandboxPolicy: true, model: true, effort: true, serviceTier: true }), ...INPUT_FIELDS],
    reads: ["turn.id"],
  },
  { kind: "request", method: TURN_STEER, sends: [...keysOf<TurnSteerParams>({ threadId: true, expectedTurnId: true, input: true }), ...INPUT_FIELDS] },
  { kind: "request", method: TURN_INTERRUPT, sends: keysOf<TurnInterruptParams>({ threadId: true, turnId: true }) },
  { kind: "notification", method: TURN_STARTED, reads: ["threadId", ...zodPaths(TurnEnvelope)] },
  { kind: "notification", method: TURN_COMPLETED, reads: ["threadId", ...zodPaths(TurnEnvelope)] },
  { kind: "notification", method: TURN_PLAN_UPDATED, reads: ["threadId", ...zodPaths(PlanEnvelope)] },
  { kind: "notification", method: TURN_DIFF_UPDATED, reads: ["threadId", ...zodPaths(DiffEnvelope)] },
];

export const TURN_VALUES: SurfaceValues[] = [
  { definition: "TurnStatus", values: ["completed", "interrupted", "failed"] },
  { definition: "CodexErrorInfo", values: [...CODEX_ERROR_VARIANTS, ...CODEX_ERROR_HTTP_VARIANTS] },
];
