// model/list of the app-server protocol (verified on 0.171.0).
import type { Requester } from "./requester.ts";
import type { SurfaceEntry } from "./reliance.ts";
import type { Page } from "./thread.ts";

export const MODEL_LIST = "model/list";

export const modelList = (c: Requester, p: { includeHidden: boolean; cursor?: string }) => c.request<Page<Record<string, unknown>>>(MODEL_LIST, p);

export const MODEL_SURFACE: SurfaceEntry[] = [
  {
    kind: "request",
    method: MODEL_LIST,
    sends: ["includeHidden", "cursor"],
    reads: ["data[].id", "data[].model", "data[].displayName", "data[].hidden", "data[].isDefault", "data[].supportedReasoningEfforts", "data[].serviceTiers", "nextCursor"],
  },
];
