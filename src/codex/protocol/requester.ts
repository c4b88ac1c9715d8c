// The one thing a protocol module needs from a connection: send a request and get its result. Kept as an interface so
// protocol modules do not depend on the client that implements it. Each module binds its methods to their params and
// results in a table (ThreadRequests, TurnRequests...); `sender` sends by that table, so no call site names a type,
// and methods.ts joins the tables into the one registry.
export interface Requester {
  request<T = unknown>(method: string, params?: unknown, opts?: { timeoutMs?: number }): Promise<T>;
}

export type RequestOptions = { timeoutMs?: number };

/** One entry of a request table: what the bridge sends and what the app-server answers. */
export interface MethodSpec {
  params: unknown;
  result: unknown;
}

/** Sends a request of table R: its params are checked against the table and its result typed by it. */
export function sender<R extends { [M in keyof R]: MethodSpec }>() {
  return <M extends keyof R & string>(c: Requester, method: M, params: R[M]["params"], o?: RequestOptions): Promise<R[M]["result"]> =>
    c.request<R[M]["result"]>(method, params, o);
}
