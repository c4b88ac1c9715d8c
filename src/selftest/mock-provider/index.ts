// The loopback mock of the OpenAI Responses API used by `demo`, `relay-fixture --mock-provider` and the tests.
export { startMockProvider } from "./server.ts";
export { lastFunctionOutput, userTexts, toolNames } from "./inspect.ts";
export { sseFrame, parseSse, splitIntoDeltas } from "./sse.ts";
export type { MockProvider, MockResponse, RecordedRequest } from "./types.ts";
