// Turn methods and turn notifications of the app-server protocol (verified on 0.171.0), with the shapes the bridge parses.
import { z } from "zod";
import type { RequestOptions, Requester } from "./requester.ts";

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

export const turnStart = (c: Requester, p: TurnStartParams, o?: RequestOptions) => c.request<{ turn: { id: string } }>(TURN_START, p, o);
export const turnSteer = (c: Requester, p: { threadId: string; expectedTurnId: string; input: UserInput[] }, o?: RequestOptions) => c.request<unknown>(TURN_STEER, p, o);
export const turnInterrupt = (c: Requester, p: { threadId: string; turnId: string }, o?: RequestOptions) => c.request<unknown>(TURN_INTERRUPT, p, o);

const Obj = z.record(z.string(), z.unknown());
const TurnError = z.object({ message: z.string().optional(), codexErrorInfo: z.unknown().optional() }).passthrough();

/** turn/started and turn/completed params. */
export const TurnEnvelope = z.object({
  turn: z
    .object({
      id: z.string(),
      status: z.string().optional(),
      error: TurnError.nullable().optional(),
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
