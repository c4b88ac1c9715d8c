// The one thing a protocol module needs from a connection: send a request and get its typed result.
// Kept as an interface so protocol modules do not depend on the client that implements it.
export interface Requester {
  request<T = unknown>(method: string, params?: unknown, opts?: { timeoutMs?: number }): Promise<T>;
}

export type RequestOptions = { timeoutMs?: number };
