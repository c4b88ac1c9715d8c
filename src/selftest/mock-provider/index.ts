// The loopback mock of the OpenAI Responses API used by `demo`, `relay-fixture --mock-provider` and the tests.
export { startMockProvider } from "./server.ts";
export { lastFunctionOutput, userTexts, toolNames, functionCalls } from "./inspect.ts";
export { sseFrame, parseSse, splitIntoDeltas, completeStream, IdSource, type SseEvent } from "./sse.ts";
export type {
  MockProvider,
  MockProviderOptions,
  MockResponse,
  MockItem,
  MockMessageItem,
  MockExecItem,
  MockToolItem,
  RecordedRequest,
  RequestOutcome,
  Responder,
  ResponsesRequestBody,
} from "./types.ts";
