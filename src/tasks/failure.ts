// One plain sentence per failure class: what went wrong and what the user can do. Keyed by Codex's codexErrorInfo.
const SENTENCES: Record<string, string> = {
  internalServerError: "The model provider had a server error; try again later with codex_send.",
  serverOverloaded: "The model provider is overloaded; wait a little and continue with codex_send.",
  usageLimitExceeded: "The account's usage limit is reached; wait for it to reset or switch accounts, then continue with codex_send.",
  contextWindowExceeded: "The conversation no longer fits the model's context window; start a new task with a shorter prompt.",
  unauthorized: "The model provider rejected the credentials; run `codex login` (or fix the API key) and continue with codex_send.",
  badRequest: "The model provider rejected the request as invalid; check the profile's model and effort with codex_models.",
  sandboxError: "Codex's sandbox failed to run a command; check the profile's sandbox_type and the machine's sandbox support.",
  responseStreamDisconnected: "The connection to the model provider dropped mid-answer; continue with codex_send.",
  responseTooManyFailedAttempts: "The model provider kept failing; check connectivity, then continue with codex_send.",
};

export function explainFailure(message: string, info: unknown): string {
  if (typeof info === "string" && SENTENCES[info]) return SENTENCES[info]!;
  if (info && typeof info === "object") {
    const [key, val] = Object.entries(info as Record<string, unknown>)[0] ?? [];
    if (key === "httpConnectionFailed") {
      const status = val && typeof val === "object" ? (val as Record<string, unknown>).httpStatusCode : undefined;
      if (status === 401 || status === 403) return SENTENCES.unauthorized!;
      if (typeof status === "number" && status >= 500) return SENTENCES.internalServerError!;
      return `The model provider could not be reached${typeof status === "number" ? ` (HTTP ${status})` : ""}; check the network and provider settings, then continue with codex_send.`;
    }
    if (key && SENTENCES[key]) return SENTENCES[key]!;
  }
  if (/Missing environment variable/i.test(message)) return "Codex's provider needs an API key variable that is not set in the bridge's environment; set it and restart the bridge.";
  return "The turn failed; read the error, then continue with codex_send or start a new task.";
}
