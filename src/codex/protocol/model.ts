// model/list of the app-server protocol (verified on 0.171.0).
import { sender, type Requester } from "./requester.ts";
import type { SurfaceEntry } from "./reliance.ts";
import type { Page } from "./thread.ts";

export const MODEL_LIST = "model/list";

/** model/list, with its params and its result. */
export interface ModelRequests {
  [MODEL_LIST]: { params: { includeHidden: boolean; cursor?: string }; result: Page<Record<string, unknown>> };
}

export const modelList = (c: Requester, p: ModelRequests[typeof MODEL_LIST]["params"]) => sender<ModelRequests>()(c, MODEL_LIST, p);

export const MODEL_SURFACE: SurfaceEntry[] = [
  {
    kind: "request",
    method: MODEL_LIST,
    sends: ["includeHidden", "cursor"],
    reads: ["data[].id", "data[].model", "data[].displayName", "data[].hidden", "data[].isDefault", "data[].supportedReasoningEfforts", "data[].serviceTiers", "nextCursor"],
  },
];
