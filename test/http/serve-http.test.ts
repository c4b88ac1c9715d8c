// The real bridge process over Streamable HTTP: SDK clients on separate sessions, a whole task against the real
// Codex and the loopback mock model, two tasks waiting at once, the Host/Origin and bearer guards, and a clean exit.
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resultText } from "../../src/selftest/harness.ts";
import { liveGroupMembers, prepareBridge, processGone, type BridgeSetup } from "../support/bridge-process.ts";
import { connectHttpClient, INIT_REQUEST, rawPost, runBridge, startHttpBridge, type HttpBridge, type HttpClient } from "../support/http-bridge.ts";
import { poll } from "../support/poll.ts";
import { sc, settled } from "../support/task-waits.ts";
import { tempDir } from "../support/temp-dir.ts";
import { makeTempGitProject, type TempGitProject } from "../support/temp-project.ts";

let setup: BridgeSetup | null = null;
let bridge: HttpBridge | null = null;
const clients: HttpClient[] = [];
const cleanups: (() => void)[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await bridge?.stop(5_000);
  bridge = null;
  await setup?.cleanup();
  setup = null;
  for (const f of cleanups.splice(0)) f();
});

async function client(headers: Record<string, string> = {}): Promise<HttpClient> {
  const c = await connectHttpClient(bridge!.url, headers);
  clients.push(c);
  return c;
}

describe("serve --http", () => {
  it("lists the tools and runs a whole task (start, wait, result) over Streamable HTTP", async () => {
    setup = await prepareBridge({ approvalPolicy: "never" });
    bridge = await startHttpBridge(setup.env);
    expect(bridge.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const c = await client();
    const tools = (await c.client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(["codex_health", "codex_start", "codex_wait", "codex_result", "codex_artifact"]));

    setup.provider.enqueue(
      { kind: "output", items: [{ type: "message", text: "Writing the file.", deltas: 2 }, { type: "exec", cmd: "echo over-http > http.txt" }] },
      { kind: "output", items: [{ type: "message", text: "Done over HTTP.", deltas: 2 }] },
    );
    const start = await c.call("codex_start", { project_id: "demo", prompt: "write http.txt" });
    expect(start.isError, resultText(start)).toBeFalsy();
    const taskId = sc(start).task_id as string;
    const answers = await settled(c, taskId);
    expect(answers.at(-1)!.state).toBe("completed");
    expect(answers.flatMap((a) => a.messages ?? [])).toContain("Writing the file.");
    const result = await c.call("codex_result", { task_id: taskId });
    expect(result.isError, resultText(result)).toBeFalsy();
    expect(sc(result).final_message).toBe("Done over HTTP.");
    expect(existsSync(join(setup.projectDir, "http.txt"))).toBe(true);
    // The SDK client validates every structured result against the schemas it got from tools/list.
    const files = await c.call("codex_files", { project_id: "demo" });
    expect(files.isError, resultText(files)).toBeFalsy();
    const artifact = await c.call("codex_artifact", { project_id: "demo", path: "http.txt" });
    expect(artifact.isError, resultText(artifact)).toBeFalsy();
    expect(JSON.stringify(artifact)).toContain("over-http");
    const health = await c.call("codex_health", {});
    expect(health.isError, resultText(health)).toBeFalsy();

    // A second session sees the same bridge (one process owns the database).
    const other = await client();
    const status = await other.call("codex_status", { task_id: taskId });
    expect(status.isError, resultText(status)).toBeFalsy();
    expect(sc(status).state ?? resultText(status)).toMatch(/completed/);
  }, 180_000);

  it("serves two sessions at once: two tasks wait concurrently and both complete", async () => {
    const second: TempGitProject = makeTempGitProject();
    cleanups.push(second.cleanup);
    const gateDir = tempDir("codex-bridge-http-");
    const gate = join(gateDir, "gate");
    setup = await prepareBridge({ approvalPolicy: "never", extraConfig: `[projects.demo2]\ncwd = ${JSON.stringify(second.dir)}\n` });
    bridge = await startHttpBridge(setup.env);
    // Both commands block until the test opens the gate; a command alone never ends a supervision wait.
    const held = { type: "exec" as const, cmd: `while [ ! -f '${gate}' ]; do sleep 0.1; done; echo released`, yieldTimeMs: 30_000 };
    setup.provider.enqueue(
      { kind: "output", items: [held] },
      { kind: "output", items: [held] },
      { kind: "output", items: [{ type: "message", text: "finished" }] },
      { kind: "output", items: [{ type: "message", text: "finished" }] },
    );
    const [a, b, observer] = [await client(), await client(), await client()];
    const startA = await a.call("codex_start", { project_id: "demo", prompt: "task A" });
    const startB = await b.call("codex_start", { project_id: "demo2", prompt: "task B" });
    expect(startA.isError, resultText(startA)).toBeFalsy();
    expect(startB.isError, resultText(startB)).toBeFalsy();
    const [idA, idB] = [sc(startA).task_id as string, sc(startB).task_id as string];
    await setup.provider.waitForRequests(2, 60_000);

    let settledA = false;
    let settledB = false;
    const firstA = a.call("codex_wait", { task_id: idA, timeout_seconds: 90, mode: "supervision" }).finally(() => (settledA = true));
    const firstB = b.call("codex_wait", { task_id: idB, timeout_seconds: 90, mode: "supervision" }).finally(() => (settledB = true));
    // While both long-polls are held by the server, a third session is still answered.
    const status = await observer.call("codex_status", {});
    expect(status.isError, resultText(status)).toBeFalsy();
    expect({ settledA, settledB }).toEqual({ settledA: false, settledB: false });

    writeFileSync(gate, "open");
    const [wa, wb] = await Promise.all([firstA, firstB]);
    expect(wa.isError, resultText(wa)).toBeFalsy();
    expect(wb.isError, resultText(wb)).toBeFalsy();
    const [restA, restB] = await Promise.all([settled(a, idA), settled(b, idB)]);
    expect(restA.at(-1)!.state).toBe("completed");
    expect(restB.at(-1)!.state).toBe("completed");
    for (const [c, id] of [[a, idA], [b, idB]] as const) {
      const r = await c.call("codex_result", { task_id: id });
      expect(sc(r).final_message, resultText(r)).toBe("finished");
    }
  }, 240_000);

  it("refuses foreign Host and Origin headers with 403", async () => {
    setup = await prepareBridge();
    bridge = await startHttpBridge(setup.env);
    const evilHost = await rawPost(bridge.port, { host: "evil.example" }, INIT_REQUEST);
    expect(evilHost.status).toBe(403);
    expect(JSON.parse(evilHost.text).error.message).toMatch(/Host header "evil\.example"/);
    const evilWithPort = await rawPost(bridge.port, { host: `evil.example:${bridge.port}` }, INIT_REQUEST);
    expect(evilWithPort.status).toBe(403);
    const evilOrigin = await rawPost(bridge.port, { host: `127.0.0.1:${bridge.port}`, origin: "http://evil.example" }, INIT_REQUEST);
    expect(evilOrigin.status).toBe(403);
    const fine = await rawPost(bridge.port, { host: `localhost:${bridge.port}`, origin: `http://localhost:${bridge.port}` }, INIT_REQUEST);
    expect(fine.status).toBe(200);
    expect(fine.headers["mcp-session-id"]).toBeTruthy();
  }, 120_000);

  it("refuses a call sent without a session with 400 (initialize first) and sends 404 for an unknown session", async () => {
    setup = await prepareBridge();
    bridge = await startHttpBridge(setup.env, ["--http", "127.0.0.1:0", "--session-idle-seconds", "600", "--max-sessions", "10"]);
    const host = { host: `127.0.0.1:${bridge.port}` };
    const list = await rawPost(bridge.port, host, { jsonrpc: "2.0", id: 7, method: "tools/list" });
    expect(list.status).toBe(400);
    const body = JSON.parse(list.text) as { id: number; error: { code: number; message: string } };
    expect(body.id).toBe(7);
    expect(body.error.message).toMatch(/Mcp-Session-Id header is required/);
    const stale = await rawPost(bridge.port, { ...host, "mcp-session-id": "0b7c0e0e-0000-4000-8000-000000000000" }, { jsonrpc: "2.0", id: 8, method: "tools/list" });
    expect(stale.status).toBe(404);
  }, 120_000);

  it("with --token-file, refuses a missing or wrong bearer token with 403 and never logs the token", async () => {
    setup = await prepareBridge();
    const dir = tempDir("codex-bridge-http-");
    const tokenFile = join(dir, "http-token");
    const token = "tok-" + "9f3a".repeat(8);
    writeFileSync(tokenFile, token + "\n");
    chmodSync(tokenFile, 0o600);
    bridge = await startHttpBridge(setup.env, ["--http", "127.0.0.1:0", "--token-file", tokenFile]);
    expect(bridge.stderr()).toMatch(/ready .*token=bearer_token_required/);

    const missing = await rawPost(bridge.port, { host: `127.0.0.1:${bridge.port}` }, INIT_REQUEST);
    expect(missing.status).toBe(403);
    expect(missing.headers["www-authenticate"]).toMatch(/^Bearer/);
    const wrong = await rawPost(bridge.port, { host: `127.0.0.1:${bridge.port}`, authorization: "Bearer not-the-token" }, INIT_REQUEST);
    expect(wrong.status).toBe(403);
    await expect(connectHttpClient(bridge.url, { authorization: "Bearer nope" })).rejects.toThrow();

    const c = await client({ authorization: `Bearer ${token}` });
    const tools = await c.client.listTools();
    expect(tools.tools.length).toBeGreaterThan(5);
    const stopped = await bridge.stop();
    expect(stopped.killed).toBe(false);
    expect(bridge.stderr()).not.toContain(token);
    bridge = null;
  }, 120_000);

  it("refuses to start on a non-loopback address without --allow-non-loopback, and on bad flags, naming the flag", async () => {
    setup = await prepareBridge();
    const exposed = runBridge(setup.env, ["--http", "0.0.0.0:0"]);
    expect((await exposed.exited).code).toBe(2);
    expect(exposed.stderr()).toMatch(/--http 0\.0\.0\.0:0: "0\.0\.0\.0" is not a loopback address.*--allow-non-loopback/s);
    expect(exposed.stderr()).not.toMatch(/\bready\b/);

    const noToken = runBridge(setup.env, ["--http", "127.0.0.1:0", "--token-file", join(tempDir("codex-bridge-http-"), "absent")]);
    expect((await noToken.exited).code).toBe(2);
    expect(noToken.stderr()).toMatch(/--token-file .*cannot read it/);
  }, 60_000);

  it("exits on SIGTERM with a task running and a wait pending, stopping its Codex app-server and releasing the database", async () => {
    setup = await prepareBridge();
    bridge = await startHttpBridge(setup.env);
    const c = await client();
    const health = await c.call("codex_health", {});
    expect(health.isError, resultText(health)).toBeFalsy();
    const runtime = await c.call("codex_runtime", { action: "status" });
    expect(sc(runtime).state, resultText(runtime)).toBe("ready");
    const appServerPid = sc(runtime).pid as number;
    expect(appServerPid).toBeGreaterThan(0);
    expect(processGone(appServerPid)).toBe(false);

    // A task in flight and a long-poll held open must not delay the exit.
    setup.provider.enqueue({ kind: "hang" });
    const start = await c.call("codex_start", { project_id: "demo", prompt: "never finishes" });
    expect(start.isError, resultText(start)).toBeFalsy();
    await setup.provider.waitForRequests(1, 60_000);
    const pendingWait = c.call("codex_wait", { task_id: sc(start).task_id, timeout_seconds: 120 }).then(
      () => "answered",
      () => "connection ended",
    );

    const startedAt = Date.now();
    const stopped = await bridge.stop(10_000);
    console.info(`[serve-http] SIGTERM exit took ${Date.now() - startedAt} ms`);
    expect(stopped).toMatchObject({ code: 0, killed: false });
    await poll(() => processGone(appServerPid), { timeoutMs: 2000, what: `app-server ${appServerPid} to be gone` });
    expect(liveGroupMembers(appServerPid)).toEqual([]);
    expect(existsSync(`${setup.statePath}.lock`)).toBe(false);
    // The held long-poll is never answered; whether the client notices the closed stream at once depends on its
    // reconnect logic, so give it a bounded moment rather than waiting for the client to give up.
    const outcome = await Promise.race([pendingWait, new Promise<string>((r) => setTimeout(() => r("no answer"), 5000))]);
    expect(outcome).not.toBe("answered");
    bridge = null;
  }, 120_000);
});
