// The errors a request to the app-server can end in: its own error, a timeout, an UNKNOWN outcome, a closed connection.
import { SUPPORTED_RANGE } from "./protocol/verified.ts";
import type { RpcErrorBody } from "./rpc-messages.ts";

/** The app-server answered with a JSON-RPC error. */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(readonly method: string, body: RpcErrorBody) {
    super(`${method} failed: ${body.message}`);
    this.code = body.code;
    this.data = body.data;
  }
}

/**
 * A mutating request went out but its acknowledgement never came. The app-server may or may not have acted on it,
 * so it must be reported as UNKNOWN and never retried automatically.
 */
export class UnknownOutcomeError extends Error {
  /** The JSON-RPC id it went out with: a late answer carrying it is the first evidence of what happened. */
  constructor(readonly method: string, readonly timeoutMs: number, readonly rpcId: number | string = -1) {
    super(`${method} was sent but not acknowledged within ${timeoutMs} ms: outcome UNKNOWN (it may have been accepted). Not retried.`);
  }
}

/** A read-only request timed out; safe to ask again. */
export class RequestTimeoutError extends Error {
  constructor(readonly method: string, readonly timeoutMs: number) {
    super(`${method} timed out after ${timeoutMs} ms`);
  }
}

export class ConnectionClosedError extends Error {
  constructor(readonly method: string, readonly detail: string) {
    super(`${method}: the Codex app-server connection is closed (${detail})`);
  }
}

/** No Codex executable was found (or the configured one does not exist): nothing can start. */
export class CodexMissingError extends Error {}

/**
 * The Codex found is not a version the bridge was verified against, and the protocol check at start-up failed:
 * the bridge refuses to drive it rather than misread it.
 */
export class UnverifiedCodexError extends Error {
  constructor(readonly version: string, readonly problem: string) {
    super(`Codex ${version} is not a supported version (${SUPPORTED_RANGE}) and its start-up check failed: ${problem}`);
  }
}

/** The message could not be written as a line the app-server parses (a lone UTF-16 surrogate): nothing was sent. */
export class UnsendableError extends Error {
  constructor(readonly method: string) {
    super(`${method} was not sent: it holds a lone UTF-16 surrogate, which the app-server cannot parse`);
  }
}

/** A request the bridge did not send because the app-server cannot answer it now; nothing reached Codex. */
export class NotSentError extends Error {
  constructor(readonly method: string, readonly reason: string) {
    super(`${method} was not sent: ${reason}. Nothing reached Codex.`);
  }
}

/** A read whose answer the bridge stopped waiting for: it is not reading from the app-server now. Safe to ask again. */
export class AnswerNotReadError extends Error {
  constructor(readonly method: string, readonly reason: string) {
    super(`${method}: its answer was not read: ${reason}`);
  }
}
