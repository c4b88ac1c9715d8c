// Bad input to the real bridge process behind the tunnel emulator: an over-long stdin line (past the SDK's 10 MiB and
// past the bridge's own 16 MiB limit) and malformed JSON-RPC get JSON-RPC errors, and the bridge keeps serving:
// it answers ping at once afterwards and still exits promptly on stdin EOF.
import { describe, expect, it } from "vitest";
import { MAX_STDIN_LINE_BYTES } from "../../src/mcp/transport/stdio.ts";
import { bridgeFixture, callTool } from "../support/bridge-process.ts";
import type { JsonRpcResponse, TunnelEmulator } from "../support/tunnel-emulator.ts";

// SIGTERM only 10 s after stdin closes: a bridge that needs it to exit shows up as sentSigterm.
const bridges = bridgeFixture({ deadlineMs: 30_000, stopGraceMs: 10_000 });

const errorOf = (res: JsonRpcResponse | null) => (res && "error" in res ? res.error : null);

/** A tools/call whose one line is `bytes` long (give or take a few): the padding sits in the arguments. */
function callOfSize(t: TunnelEmulator, bytes: number, id: number) {
  return t.request("tools/call", { name: "codex_status", arguments: { task_id: "x".repeat(bytes) } }, { id, deadlineMs: 20_000 });
}

async function pingWithinASecond(t: TunnelEmulator, id: number): Promise<number> {
  const started = Date.now();
  const res = await t.request("ping", undefined, { id, deadlineMs: 5_000 });
  const ms = Date.now() - started;
  expect(res).toMatchObject({ id, result: {} });
  expect(ms, `ping took ${ms} ms`).toBeLessThan(1000);
  return ms;
}

async function expectPromptExitOnEof(t: TunnelEmulator): Promise<void> {
  const report = await t.stop();
  console.info(`[bridge-input] exit after stdin EOF took ${report.exitMs} ms`);
  expect(report.exited).toBe(true);
  expect(report.sentSigterm).toBe(false);
  expect(report.exitMs!).toBeLessThan(1000);
  expect(t.exit?.code).toBe(0);
  // Nothing but JSON-RPC ever reached stdout.
  expect(t.fatal?.reason ?? "child exited").toMatch(/child exited|child closed stdout/);
}

describe("bridge process input limits behind the tunnel", () => {
  it("with the app-server running, refuses a line over the limit with its id, answers ping within a second, exits on EOF", async () => {
    const t = await bridges.start(await bridges.prepare());
    await t.initialize();
    const health = await callTool(t, "codex_health", {});
    expect(health.isError, health.text).toBe(false);
    const runtime = await callTool(t, "codex_runtime", { action: "status" });
    expect(runtime.structured.state, runtime.text).toBe("ready");

    // Over the SDK's old 10 MiB buffer but under the bridge's limit: served like any call.
    const under = await callOfSize(t, 12 * 1024 * 1024, 101);
    expect(under.id).toBe(101);
    expect(errorOf(under)?.code ?? 0).not.toBe(-32600);

    // Over the limit: refused, with the tunnel's id so the tunnel is not left waiting for its deadline.
    const over = await callOfSize(t, MAX_STDIN_LINE_BYTES + 1, 102);
    expect(over.id).toBe(102);
    expect(errorOf(over)).toMatchObject({ code: -32600 });
    expect(errorOf(over)!.message).toMatch(/over the limit of 16777216 bytes \(16 MiB\)/);
    await pingWithinASecond(t, 103);

    // Without a findable id the answer carries id null (the emulator files it as unexpected) and nothing breaks.
    await t.writeRaw("y".repeat(MAX_STDIN_LINE_BYTES + 10));
    await t.waitFor(() => t.unexpectedResponses.length === 1, 10_000);
    expect(t.unexpectedResponses[0]).toMatchObject({ id: null, error: { code: -32600 } });
    await pingWithinASecond(t, 104);
    const after = await callTool(t, "codex_runtime", { action: "status" });
    expect(after.structured.pid).toBe(runtime.structured.pid);
    expect(t.fatal).toBeNull();
    await expectPromptExitOnEof(t);
  }, 120_000);

  it("on a fresh bridge, refuses an over-long first line, then serves normally", async () => {
    const t = await bridges.start(await bridges.prepare());
    const over = await callOfSize(t, MAX_STDIN_LINE_BYTES + 1, 1);
    expect(errorOf(over)).toMatchObject({ code: -32600 });
    await pingWithinASecond(t, 2);
    const init = await t.initialize();
    expect("result" in init, JSON.stringify(init)).toBe(true);
    const status = await callTool(t, "codex_status", {});
    expect(status.isError, status.text).toBe(false);
    await expectPromptExitOnEof(t);
  }, 120_000);

  it("answers malformed JSON-RPC with JSON-RPC errors (none for a malformed notification), then serves normally", async () => {
    const t = await bridges.start(await bridges.prepare());
    // Malformed requests whose id is valid are answered with that id (the tunnel matches it to the call in flight).
    expect(errorOf(await t.writeRaw(`{"jsonrpc":"1.0","id":2,"method":"ping"}`, { id: 2 }))).toMatchObject({ code: -32600 });
    expect(errorOf(await t.writeRaw(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":"str"}`, { id: 3 }))).toMatchObject({ code: -32602 });
    expect(errorOf(await t.writeRaw(`{"jsonrpc":"2.0","id":"s4","method":7}`, { id: "s4" }))).toMatchObject({ code: -32600 });
    // Without a valid id: id null.
    for (const line of ["not json at all", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`]) {
      await t.writeRaw(line);
    }
    await t.waitFor(() => t.unexpectedResponses.length === 3, 10_000);
    expect(t.unexpectedResponses.map((r) => [r.id, errorOf(r)?.code])).toEqual([
      [null, -32700],
      [null, -32600],
      [null, -32600],
    ]);
    // A malformed notification gets no answer at all.
    await t.writeRaw(`{"jsonrpc":"2.0","method":"notifications/initialized","params":"str"}`);
    await pingWithinASecond(t, 6);
    expect(t.unexpectedResponses).toHaveLength(3);

    const init = await t.initialize();
    expect("result" in init, JSON.stringify(init)).toBe(true);
    const status = await callTool(t, "codex_status", {});
    expect(status.isError, status.text).toBe(false);
    expect(t.fatal).toBeNull();
    await expectPromptExitOnEof(t);
  }, 120_000);
});
