// A scripted app-server connection for domain tests: it records what the bridge writes back as answers and can be
// told to fail the next write, so the ledger's before/after-write records can be checked without Codex.
import type { RpcId } from "../../src/codex/rpc-messages.ts";

export interface FakeClient {
  connectionId: string;
  exit: { code: number | null; signal: string | null } | null;
  writes: { id: RpcId; result: unknown }[];
  failNext: Error | null;
  onWrite: (() => void) | null;
  respond(id: RpcId, result: unknown): Promise<void>;
  respondError(id: RpcId, code: number, message: string): Promise<void>;
}

export function fakeClient(connectionId: string): FakeClient {
  const c: FakeClient = {
    connectionId,
    exit: null,
    writes: [],
    failNext: null,
    onWrite: null,
    async respond(id, result) {
      c.onWrite?.();
      if (c.failNext) {
        const e = c.failNext;
        c.failNext = null;
        throw e;
      }
      c.writes.push({ id, result });
    },
    async respondError(id, _code, message) {
      c.writes.push({ id, result: { error: message } });
    },
  };
  return c;
}
