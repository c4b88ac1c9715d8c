import { afterEach, describe, expect, it } from "vitest";
import { request } from "node:http";
import {
  lastFunctionOutput,
  parseSse,
  sseFrame,
  splitIntoDeltas,
  startMockProvider,
  userTexts,
  toolNames,
  type MockProvider,
  type RecordedRequest,
} from "../../src/selftest/mock-provider/index.ts";

let provider: MockProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

interface Reply {
  status: number;
  contentType: string;
  body: string;
}

function post(baseUrl: string, body: unknown, path = "/responses"): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-test": "yes" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"]), body: text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(typeof body === "string" ? body : JSON.stringify(body));
  });
}

const userInput = (text: string) => ({ input: [{ type: "message", role: "user", content: [{ type: "input_text", text }] }] });

describe("SSE framing", () => {
  it("frames one event as event/data lines with the type repeated in the JSON", () => {
    expect(sseFrame({ type: "response.created", data: { response: { id: "r1" } } })).toBe(
      'event: response.created\ndata: {"type":"response.created","response":{"id":"r1"}}\n\n',
    );
  });

  it("splits text into the requested number of deltas that rejoin to the text", () => {
    expect(splitIntoDeltas("abcdefg", 3)).toEqual(["ab", "cd", "efg"]);
    expect(splitIntoDeltas("hi", 5)).toEqual(["h", "i"]);
    expect(splitIntoDeltas("", 3)).toEqual([]);
    expect(splitIntoDeltas("😀😀", 2)).toEqual(["😀", "😀"]);
  });
});

describe("mock provider", () => {
  it("listens on 127.0.0.1 and streams a full message response", async () => {
    provider = await startMockProvider();
    expect(provider.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    provider.enqueue({ kind: "output", items: [{ type: "message", text: "hello world", deltas: 3 }] });

    const reply = await post(provider.baseUrl, userInput("Say hello"));
    expect(reply.status).toBe(200);
    expect(reply.contentType).toBe("text/event-stream");
    const events = parseSse(reply.body);
    expect(events.map((e) => e.type)).toEqual([
      "response.created",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_item.done",
      "response.completed",
    ]);
    const deltas = events.filter((e) => e.type === "response.output_text.delta").map((e) => e.data.delta);
    expect(deltas.join("")).toBe("hello world");
    const done = events[6].data.item as { type: string; content: { type: string; text: string }[] };
    expect(done.type).toBe("message");
    expect(done.content).toEqual([{ type: "output_text", text: "hello world", annotations: [] }]);
    const completed = events[7].data.response as { id: string; usage: { total_tokens: number } };
    expect(completed.id).toBe((events[0].data.response as { id: string }).id);
    expect(completed.usage.total_tokens).toBeGreaterThan(0);

    const [recorded] = await provider.waitForRequests(1, 5_000);
    expect(recorded.headers["x-test"]).toBe("yes");
    expect(userTexts(recorded)).toEqual(["Say hello"]);
    expect(recorded.outcome).toBe("completed");
  });

  it("encodes exec and dynamic tool calls as function_call items with JSON-string arguments", async () => {
    provider = await startMockProvider();
    provider.enqueue({
      kind: "output",
      items: [
        { type: "exec", cmd: "echo hi", callId: "call_x", yieldTimeMs: 500, sandboxPermissions: "require_escalated", justification: "needs it" },
        { type: "tool", name: "bridge_web_tool", arguments: { url: "https://example.com/" } },
      ],
    });
    const events = parseSse((await post(provider.baseUrl, userInput("go"))).body);
    const done = events.filter((e) => e.type === "response.output_item.done").map((e) => e.data.item as Record<string, string>);
    expect(done).toHaveLength(2);
    expect(done[0]).toMatchObject({ type: "function_call", name: "exec_command", call_id: "call_x" });
    expect(JSON.parse(done[0].arguments)).toEqual({
      cmd: "echo hi",
      yield_time_ms: 500,
      sandbox_permissions: "require_escalated",
      justification: "needs it",
    });
    expect(done[1]).toMatchObject({ type: "function_call", name: "bridge_web_tool" });
    expect(done[1].call_id).toMatch(/^call_/);
    expect(done[1].call_id).not.toBe("call_x");
    expect(JSON.parse(done[1].arguments)).toEqual({ url: "https://example.com/" });
    expect(events.at(-1)?.type).toBe("response.completed");
  });

  it("answers from the queue first, then the responder, then the default message", async () => {
    provider = await startMockProvider({ defaultText: "fallback" });
    provider.enqueue({ kind: "output", items: [{ type: "message", text: "queued" }] });
    const seen: number[] = [];
    provider.setResponder((req, index) => {
      seen.push(index);
      return index === 1 ? { kind: "output", items: [{ type: "message", text: `responder saw ${userTexts(req)[0]}` }] } : undefined;
    });
    const texts: string[] = [];
    for (const prompt of ["a", "b", "c"]) {
      const events = parseSse((await post(provider.baseUrl, userInput(prompt))).body);
      const item = events.find((e) => e.type === "response.output_item.done")?.data.item as { content: { text: string }[] };
      texts.push(item.content[0].text);
    }
    expect(texts).toEqual(["queued", "responder saw b", "fallback"]);
    // The queued answer is used without consulting the responder.
    expect(seen).toEqual([1, 2]);
    expect(provider.requests.map((r) => r.index)).toEqual([0, 1, 2]);
  });

  it("returns a JSON error body for http_error", async () => {
    provider = await startMockProvider();
    provider.enqueue({ kind: "http_error", status: 500, message: "boom" });
    const reply = await post(provider.baseUrl, userInput("x"));
    expect(reply.status).toBe(500);
    expect(JSON.parse(reply.body)).toMatchObject({ error: { message: "boom" } });
    expect(provider.requests[0].outcome).toBe("http_error");
  });

  it("ends a disconnect stream without response.completed", async () => {
    provider = await startMockProvider();
    provider.enqueue({ kind: "disconnect", items: [{ type: "message", text: "partial" }] });
    const events = parseSse((await post(provider.baseUrl, userInput("x"))).body);
    expect(events.map((e) => e.type)).toContain("response.output_item.done");
    expect(events.map((e) => e.type)).not.toContain("response.completed");
    expect(provider.requests[0].outcome).toBe("disconnected");
  });

  it("keeps a hang stream open and records when the client aborts it", async () => {
    provider = await startMockProvider();
    provider.enqueue({ kind: "hang", partialText: "thinking" });
    const received: string[] = [];
    const req = request(`${provider.baseUrl}/responses`, { method: "POST" }, (res) => {
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        received.push(c);
        // Abort only after the opening events arrived, as codex does on interrupt or steer.
        if (received.join("").includes("response.output_text.delta")) req.destroy();
      });
      res.on("error", () => undefined);
    });
    req.on("error", () => undefined);
    req.end(JSON.stringify(userInput("x")));

    const aborted = await provider.waitForClientAbort(0, 10_000);
    expect(aborted.clientAborted).toBe(true);
    expect(aborted.outcome).toBe("client_aborted");
    const types = parseSse(received.join("")).map((e) => e.type);
    expect(types).toContain("response.created");
    expect(types).not.toContain("response.completed");
  });

  it("close() ends hanging streams without counting them as client aborts", async () => {
    const p = await startMockProvider();
    p.enqueue({ kind: "hang" });
    const finished = new Promise<void>((resolve) => {
      const req = request(`${p.baseUrl}/responses`, { method: "POST" }, (res) => {
        res.on("data", () => undefined);
        res.on("close", () => resolve());
        res.on("error", () => resolve());
      });
      req.on("error", () => resolve());
      req.end(JSON.stringify(userInput("x")));
    });
    await p.waitForRequests(1, 5_000);
    await p.close();
    await finished;
    expect(p.requests[0].clientAborted).toBe(false);
    expect(p.requests[0].outcome).toBe("closed_by_server");
  });

  it("rejects a body that is not a Responses request and serves nothing else", async () => {
    provider = await startMockProvider();
    const bad = await post(provider.baseUrl, "{not json");
    expect(bad.status).toBe(400);
    expect(provider.requests[0].parseError).toMatch(/not JSON/);
    const other = await post(provider.baseUrl, {}, "/models");
    expect(other.status).toBe(404);
    expect(provider.requests).toHaveLength(1);
  });

  it("waitForRequests rejects with the count it got when too few arrive", async () => {
    provider = await startMockProvider();
    await expect(provider.waitForRequests(1, 50)).rejects.toThrow(/wanted 1 request\(s\), got 0/);
  });
});

describe("request inspection helpers", () => {
  const recorded = (input: unknown[], tools: unknown[] = []): RecordedRequest => ({
    index: 0,
    method: "POST",
    path: "/v1/responses",
    headers: {},
    body: { input, tools } as RecordedRequest["body"],
    rawBody: "",
    receivedAt: 0,
    outcome: "completed",
    clientAborted: false,
  });

  it("lastFunctionOutput reads the latest output, string or input_text array", () => {
    const req = recorded([
      { type: "function_call_output", call_id: "c1", output: "first" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "x" }] },
      { type: "function_call_output", call_id: "c2", output: [{ type: "input_text", text: "part one" }, { type: "input_text", text: "part two" }] },
    ]);
    expect(lastFunctionOutput(req)).toBe("part one\npart two");
    expect(lastFunctionOutput(req, "c1")).toBe("first");
    expect(lastFunctionOutput(recorded([]))).toBeUndefined();
  });

  it("userTexts lists only user messages; toolNames lists advertised tools", () => {
    const req = recorded(
      [
        { type: "message", role: "developer", content: [{ type: "input_text", text: "base" }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: "<environment_context>" }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: "do it" }] },
      ],
      [{ type: "function", name: "exec_command" }, { type: "web_search" }],
    );
    expect(userTexts(req)).toEqual(["<environment_context>", "do it"]);
    expect(toolNames(req)).toEqual(["exec_command"]);
  });
});
