// The failure classifier on the error shapes the real app-server 0.171.0 sends (messages and codexErrorInfo as
// observed against the mock provider), plus the variants no offline run can provoke (sandboxError, policies).
import { describe, expect, it } from "vitest";
import { ConnectionClosedError, CodexMissingError, RpcError, UnverifiedCodexError } from "../../src/codex/errors.ts";
import { classifyTurnError, failure, isUnreachableReport, startFailure } from "../../src/tasks/failure.ts";
import { FAILURE_CODES } from "../../src/store/rows.ts";

describe("classifyTurnError", () => {
  const observed: [string, string, unknown, string | null, string, boolean][] = [
    ["401", "unexpected status 401 Unauthorized: Incorrect API key provided, url: http://127.0.0.1:1/v1/responses", { httpConnectionFailed: { httpStatusCode: 401 } }, null, "auth_rejected", false],
    ["403", "unexpected status 403 Forbidden: forbidden, url: http://127.0.0.1:1/v1/responses", { httpConnectionFailed: { httpStatusCode: 403 } }, null, "auth_rejected", false],
    ["429", "exceeded retry limit, last status: 429 Too Many Requests", { responseTooManyFailedAttempts: { httpStatusCode: 429 } }, null, "rate_limited", true],
    ["429 quota", "Quota exceeded. Check your plan and billing details.", "usageLimitExceeded", null, "quota_exceeded", false],
    ["500", "We’re currently experiencing high demand, which may cause temporary errors.", "internalServerError", null, "provider_error", true],
    ["503", "unexpected status 503 Service Unavailable: overloaded", { httpConnectionFailed: { httpStatusCode: 503 } }, null, "provider_error", true],
    ["context", "Codex ran out of room in the model's context window.", "contextWindowExceeded", null, "context_window_exceeded", false],
    ["model", "The model `nope` does not exist or you do not have access to it.", "modelNotFound", null, "model_unavailable", false],
    ["400 other", '{"error":{"message":"bad thing"}}', "other", null, "unknown", false],
    ["no key", "Missing environment variable: `MOCK_PROVIDER_API_KEY`.", "other", null, "auth_required", false],
    ["sandbox", "sandbox error: bwrap failed", "sandboxError", null, "sandbox_denied", false],
    ["denials", "too many denials", "tooManyDenials", null, "sandbox_denied", false],
    ["policy", "refused", "cyberPolicy", null, "policy_refused", false],
    ["unreachable", "stream disconnected", { responseStreamDisconnected: { httpStatusCode: null } }, "Connection failed: error sending request", "provider_unreachable", true],
    ["dropped", "stream disconnected before completion", { responseStreamDisconnected: { httpStatusCode: null } }, null, "provider_error", true],
    ["cut off", "stream disconnected before completion: stream closed before response.completed", "other", null, "provider_error", true],
    // Codex 0.147.0 to 0.155.1 send the HTTP status only in the message text, with codexErrorInfo "other" or none.
    ["401 in the text (0.147-0.155)", "unexpected status 401 Unauthorized: Incorrect API key provided, url: http://127.0.0.1:1/v1/responses", "other", null, "auth_rejected", false],
    ["403 in the text", "unexpected status 403 Forbidden: forbidden, url: http://127.0.0.1:1/v1/responses", null, null, "auth_rejected", false],
    ["429 in the text", "exceeded retry limit, last status: 429 Too Many Requests", "other", null, "rate_limited", true],
    ["refused connection (0.147)", "stream disconnected before completion: error sending request for url (http://127.0.0.1:44775/v1/responses)", "other", null, "provider_unreachable", true],
  ];
  for (const [name, message, info, details, code, retryable] of observed) {
    it(`${name} → ${code}`, () => {
      const f = classifyTurnError(message, info, details);
      expect(f.code).toBe(code);
      expect(f.retryable).toBe(retryable);
      expect(f.sentence.length).toBeGreaterThan(20);
    });
  }

  it("has a sentence and a retry verdict for every code", () => {
    for (const code of FAILURE_CODES) {
      const f = failure(code);
      expect(f.sentence, code).toMatch(/[.;]/);
      expect(typeof f.retryable).toBe("boolean");
    }
  });
});

describe("isUnreachableReport", () => {
  it("is Codex's 'waiting for network' retry, not an HTTP error it retries", () => {
    const info = { responseStreamDisconnected: { httpStatusCode: null } };
    expect(isUnreachableReport(info, "Reconnecting... waiting for network", "Connection failed: error sending request")).toBe(true);
    expect(isUnreachableReport({ responseStreamDisconnected: { httpStatusCode: 502 } }, "Reconnecting...", null)).toBe(false);
    expect(isUnreachableReport("internalServerError", "Reconnecting... waiting for network", null)).toBe(false);
  });
});

describe("startFailure", () => {
  it("tells a missing Codex, a failed protocol check, a dead app-server and a refusal apart", () => {
    expect(startFailure(new CodexMissingError("nope")).code).toBe("codex_missing");
    const unverified = startFailure(new UnverifiedCodexError("9.9.9", "model/list: boom"));
    expect(unverified.code).toBe("codex_unverified_version");
    expect(unverified.sentence).toContain("9.9.9");
    expect(startFailure(new ConnectionClosedError("initialize", "exited with code 1")).code).toBe("app_server_crashed");
    expect(startFailure(new RpcError("thread/start", { code: -32600, message: "Invalid request" })).code).toBe("invalid_request");
  });

  it("a thread held by another app-server process (the person's shared one) points to runtime = \"shared\"", () => {
    const f = startFailure(new RpcError("thread/resume", { code: -32600, message: "thread 01a2 already has an active writer" }));
    expect(f.code).toBe("invalid_request");
    expect(f.sentence).toMatch(/another Codex app-server on this home.*runtime = "shared"/);
  });
});
