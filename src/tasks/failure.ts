// Why a turn or a start failed, as a stable code a supervisor or a script can branch on, one plain sentence saying
// what to do, and whether trying again unchanged can help. Derived from Codex's codexErrorInfo, the HTTP status it
// carries, the error text as a last resort, and the bridge's own state (a cancel it sent, a child that died).
import { SharedServerError } from "../codex/shared-daemon.ts";
import { SUPPORTED_HINT, SUPPORTED_RANGE } from "../codex/protocol/verified.ts";
import { CodexMissingError, ConnectionClosedError, RequestTimeoutError, RpcError, UnverifiedCodexError } from "../codex/errors.ts";
import { CODEX_ERROR_HTTP_VARIANTS, type CODEX_ERROR_VARIANTS } from "../codex/protocol/turn.ts";
import { redactText } from "../policy/redact.ts";
import type { Failure, FailureCode } from "../store/rows.ts";

const CATALOG: Record<FailureCode, { sentence: string; retryable: boolean }> = {
  auth_required: {
    sentence: "Codex has no credentials for its model provider; run `codex login` (or set the provider's API key variable) for the Codex home the bridge uses, then continue with codex_send.",
    retryable: false,
  },
  auth_rejected: { sentence: "The model provider rejected the credentials; run `codex login` again (or fix the API key), then continue with codex_send.", retryable: false },
  provider_unreachable: { sentence: "The model provider could not be reached; check the network and the provider's base_url, then continue with codex_send.", retryable: true },
  provider_error: { sentence: "The model provider failed with a server error or dropped the answer; try again shortly with codex_send.", retryable: true },
  rate_limited: { sentence: "The model provider is rate-limiting this account; wait a minute, then continue with codex_send.", retryable: true },
  quota_exceeded: { sentence: "The account's quota or usage limit is used up; wait for it to reset or change the plan or account, then continue with codex_send.", retryable: false },
  model_unavailable: { sentence: "The model is not available to this account or provider; choose another from codex_models (model argument or the profile).", retryable: false },
  context_window_exceeded: { sentence: "The conversation no longer fits the model's context window; start a new task with a shorter prompt.", retryable: false },
  invalid_request: { sentence: "The model provider refused the request as invalid; check the profile's model, effort and settings with codex_health.", retryable: false },
  policy_refused: { sentence: "The request was refused by a usage policy; rephrase the task or stop.", retryable: false },
  sandbox_denied: { sentence: "Codex's sandbox refused or could not run what the turn needed; check the profile's sandbox_type and the machine's sandbox support.", retryable: false },
  codex_missing: { sentence: "Codex was not found: install @openai/codex or set CODEX_BIN to the native codex executable, then restart the bridge.", retryable: false },
  codex_unverified_version: {
    sentence: `This Codex version is outside the supported range ${SUPPORTED_RANGE}, or failed the start-up protocol check; ${SUPPORTED_HINT}.`,
    retryable: false,
  },
  app_server_crashed: { sentence: "The Codex app-server stopped during the turn; codex_send starts a recovery turn on the same thread.", retryable: true },
  shared_server_unavailable: {
    sentence: "The profile uses Codex's shared app-server (runtime = \"shared\") and none is running for its Codex home; start it (`codex app-server daemon start`, or open Codex) or set start_shared = true, then try again.",
    retryable: true,
  },
  bridge_restarted: { sentence: "The bridge restarted while the turn was active; codex_send starts a recovery turn on the same thread.", retryable: true },
  interrupted_by_supervisor: { sentence: "The turn was interrupted at the supervisor's request; codex_send continues the thread.", retryable: true },
  unknown: { sentence: "The turn failed for a reason the bridge cannot classify; codex_inspect kind=warnings shows Codex's own message.", retryable: false },
};

/** The failure object for a code, optionally with a sentence (and a retry verdict) that says more than the catalog's. */
export function failure(code: FailureCode, sentence?: string, retryable?: boolean): Failure {
  const c = CATALOG[code];
  return { code, sentence: sentence ?? c.sentence, retryable: retryable ?? c.retryable };
}

// codexErrorInfo's variants (CODEX_ERROR_VARIANTS, checked against the schema) → codes; "other" falls through to the
// HTTP status and the text. Typed by the list, so a variant added there must be mapped here.
const BY_INFO: Record<(typeof CODEX_ERROR_VARIANTS)[number], FailureCode> = {
  contextWindowExceeded: "context_window_exceeded",
  sessionBudgetExceeded: "quota_exceeded",
  usageLimitExceeded: "quota_exceeded",
  rateLimitExceeded: "rate_limited",
  serverOverloaded: "provider_error",
  internalServerError: "provider_error",
  flexUnavailable: "provider_error",
  policyCapacityUnavailable: "provider_error",
  modelNotFound: "model_unavailable",
  unauthorized: "auth_rejected",
  badRequest: "invalid_request",
  sandboxError: "sandbox_denied",
  tooManyDenials: "sandbox_denied",
  cyberPolicy: "policy_refused",
  bioPolicy: "policy_refused",
  misalignmentPolicyViolation: "policy_refused",
  inferenceHookDenied: "policy_refused",
  activeTurnNotSteerable: "invalid_request",
};

const QUOTA_RE = /quota|billing|insufficient_quota|usage limit/i;
const CONTEXT_RE = /context (window|length)|context_length_exceeded|maximum context/i;
const MODEL_RE = /\bmodel\b.*(not (exist|found|available|supported)|does not exist|no access)|model_not_found/i;
const CONNECT_RE = /\b(connection (failed|refused|reset)|connect(ion)? error|network|dns|resolve|unreachable|timed? ?out)\b/i;
const DROPPED_RE = /stream (disconnected|closed)|connection (reset|closed)|unexpected eof/i;
// Codex 0.147.0 to 0.155.1 give no structured status for a rejected request: only "unexpected status 401 …" or
// "last status: 429 …" in the message.
const STATUS_IN_TEXT_RE = /\b(?:unexpected status|last status:?|status code:?|http status:?)\s*([1-5]\d\d)\b/i;
const NOT_SENT_RE = /error sending request for url/i;
const NO_LOGIN_RE = /missing environment variable|not logged in|login required|no (auth|credentials)|OPENAI_API_KEY/i;

const isHttpVariant = (v: string | undefined): boolean => (CODEX_ERROR_HTTP_VARIANTS as readonly string[]).includes(v ?? "");

function byStatus(status: number, text: string): FailureCode {
  if (status === 401 || status === 403) return "auth_rejected";
  if (status === 429) return QUOTA_RE.test(text) ? "quota_exceeded" : "rate_limited";
  if (CONTEXT_RE.test(text)) return "context_window_exceeded";
  if (MODEL_RE.test(text)) return "model_unavailable";
  if (status === 408 || status >= 500) return "provider_error";
  return "invalid_request";
}

/**
 * Classifies a failed turn's error. `info` is Codex's codexErrorInfo (a variant name, or an object keyed by the variant
 * with its httpStatusCode); `details` is its additionalDetails. The text is only consulted where the info is silent.
 */
export function classifyTurnError(message: string, info: unknown, details?: string | null): Failure {
  const text = `${message} ${details ?? ""}`;
  const mapped = (v: unknown) => (typeof v === "string" && Object.hasOwn(BY_INFO, v) ? BY_INFO[v as keyof typeof BY_INFO] : undefined);
  if (mapped(info)) return failure(mapped(info)!);
  if (info && typeof info === "object") {
    const [variant, val] = Object.entries(info as Record<string, unknown>)[0] ?? [];
    if (mapped(variant)) return failure(mapped(variant)!);
    const status = val && typeof val === "object" ? (val as Record<string, unknown>).httpStatusCode : undefined;
    if (typeof status === "number") return failure(byStatus(status, text));
    if (isHttpVariant(variant)) {
      return failure(CONNECT_RE.test(text) ? "provider_unreachable" : "provider_error");
    }
  }
  // Codex 0.147 gives up on a refused connection with "stream disconnected …: error sending request for url" and "other".
  if (NOT_SENT_RE.test(text)) return failure("provider_unreachable");
  const said = STATUS_IN_TEXT_RE.exec(text);
  if (said) return failure(byStatus(Number(said[1]), text));
  if (NO_LOGIN_RE.test(text)) return failure("auth_required");
  if (CONTEXT_RE.test(text)) return failure("context_window_exceeded");
  if (QUOTA_RE.test(text)) return failure("quota_exceeded");
  if (MODEL_RE.test(text)) return failure("model_unavailable");
  if (DROPPED_RE.test(text)) return failure("provider_error");
  return failure("unknown");
}

/**
 * Codex retries an unreachable provider forever ("Reconnecting... waiting for network"); these retrying errors are
 * the ones that say the provider cannot be reached at all (no HTTP status came back).
 */
export function isUnreachableReport(info: unknown, message: string, details?: string | null): boolean {
  if (!info || typeof info !== "object") return false;
  const [variant, val] = Object.entries(info as Record<string, unknown>)[0] ?? [];
  if (!isHttpVariant(variant) || variant === "responseTooManyFailedAttempts") return false;
  const status = val && typeof val === "object" ? (val as Record<string, unknown>).httpStatusCode : undefined;
  return (status === null || status === undefined) && CONNECT_RE.test(`${message} ${details ?? ""}`);
}

/** Why a start (or a new turn) failed before Codex took the turn: the runtime could not start, or Codex refused. */
export function startFailure(err: unknown): Failure {
  if (err instanceof CodexMissingError) return failure("codex_missing");
  if (err instanceof SharedServerError) return failure("shared_server_unavailable", `${redactText(err.message)}.`);
  if (err instanceof UnverifiedCodexError) {
    return failure("codex_unverified_version", `Codex ${err.version} is not supported: ${redactText(err.problem)}; ${SUPPORTED_HINT}.`);
  }
  if (err instanceof ConnectionClosedError || err instanceof RequestTimeoutError) {
    return failure("app_server_crashed", "The Codex app-server stopped or did not answer while the task was starting; codex_health shows its state, then codex_send (or a new codex_start) tries again.");
  }
  // Codex's one-writer-per-thread rule across processes (docs/SHARED-APP-SERVER-FACTS.md §5).
  if (err instanceof RpcError && /already has an active writer/.test(err.message)) {
    return failure("invalid_request", 'The thread is open in another Codex app-server on this home (most likely your own Codex\'s shared one); work on it there with runtime = "shared" on the profile, or close it in the other Codex first.');
  }
  if (err instanceof RpcError) return failure("invalid_request", `Codex refused the request (${redactText(err.message)}); fix the profile or the input.`);
  return failure("unknown", `The task could not start: ${redactText(err instanceof Error ? err.message : String(err))}.`);
}
