// Reproduces docs/SHARED-APP-SERVER-FACTS.md on the pinned Codex, offline: an isolated CODEX_HOME, the loopback mock
// model, the real `codex app-server daemon`. Run from the repository root: npm run facts:shared
// Prints one line per fact (FACT ok|MISMATCH name: observed) and exits non-zero if any fact did not hold.
import { spawn, spawnSync } from "node:child_process";
import { connect } from "node:net";
import { existsSync, readFileSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectSocketWebSocket } from "../platform/socket-ws.ts";
import { isolatedCodexEnv, writeIsolatedCodexHome } from "../src/codex/isolated-home.ts";
import { startMockProvider, userTexts } from "../src/selftest/mock-provider/index.ts";
import { alive, daemonCommand, daemonPid, RawSocketClient, stopDaemonCompletely, updaterPid } from "../test/support/shared-codex.ts";
import { findBundledCodex } from "../src/codex/locate.ts";

let failed = 0;
function fact(name: string, ok: boolean, observed: unknown): void {
  if (!ok) failed++;
  console.log(`FACT ${ok ? "ok" : "MISMATCH"} ${name}: ${typeof observed === "string" ? observed : JSON.stringify(observed)}`);
}
const stripAnsi = (s: string): string => s.replace(/\x1b\[[0-9;?>]*[A-Za-z~]/g, "").replace(/\x1b[\]P][^\x07\x1b]*(\x07|\x1b\\)/g, "").replace(/\x1b./g, "");
const turnDone = (threadId: string) => (m: { method?: string; params?: { threadId?: string } }) => m.method === "turn/completed" && m.params?.threadId === threadId;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const codexBin = findBundledCodex(process.cwd());
if (!codexBin) throw new Error("the @openai/codex dev dependency's native binary is missing: run npm ci");
const provider = await startMockProvider();
const codexHome = realpathSync(mkdtempSync(join(tmpdir(), "codex-shared-facts-")));
const project = join(codexHome, "project");
mkdirSync(project);
writeIsolatedCodexHome({ dir: codexHome, providerBaseUrl: provider.baseUrl });
const env = isolatedCodexEnv(process.env, { codexHome });
const approvalTurn = (callId: string) => ({ kind: "output" as const, items: [{ type: "exec" as const, cmd: `echo ${callId}`, callId }] });
const text = (t: string) => ({ kind: "output" as const, items: [{ type: "message" as const, text: t }] });
// A prompt that starts with "hang:" gets a model answer that never ends (a turn that stays in progress); queued answers
// are for the other turns, each consumed exactly once, so nothing is left over for a later section.
provider.setResponder((req) => (/^hang:/.test(userTexts(req).at(-1) ?? "") ? { kind: "hang" } : undefined));
const clients: RawSocketClient[] = [];
const client = async (name: string, sock: string): Promise<RawSocketClient> => {
  const c = await RawSocketClient.connect(sock, name);
  clients.push(c);
  return c;
};

try {
  // 1. The daemon: where it lives, what it starts.
  const started = await daemonCommand(codexBin, env, "start");
  const sock = started.socketPath!;
  fact("daemon start prints JSON with status, pid, socketPath, appServerVersion", started.status === "started" && typeof started.pid === "number" && started.appServerVersion === "0.171.0", started);
  fact("socketPath is <CODEX_HOME>/app-server-control/app-server-control.sock", sock === join(codexHome, "app-server-control", "app-server-control.sock"), sock);
  fact("that path is a symlink to a socket in a short per-user temp dir", lstatSync(sock).isSymbolicLink() && statSync(sock).isSocket(), readlinkSync(sock).replace(/[0-9a-f]{64}$/, "<sha256>"));
  fact("the socket file is mode 0600 (its directory 0700): the file system is the only auth", (statSync(sock).mode & 0o777) === 0o600, (statSync(sock).mode & 0o777).toString(8));
  const pid = daemonPid(codexHome);
  fact("daemon.pid holds the server's pid, and daemon-updater.pid an updater loop started with it", pid === started.pid && alive(updaterPid(codexHome)), { pid, updater: updaterPid(codexHome) });
  fact("the daemon runs a copy of the CLI installed under <CODEX_HOME>/packages/app-server-daemon", existsSync(join(codexHome, "packages", "app-server-daemon", "current")), started.managedCodexPath);
  const again = await daemonCommand(codexBin, env, "start");
  fact("daemon start is idempotent: a second start reports the same pid", again.pid === undefined || again.pid === started.pid, again);

  // 2. Framing: plain JSONL is refused; WebSocket upgrade, one JSON-RPC message per text frame.
  const plain = await new Promise<string>((resolve) => {
    const s = connect({ path: sock });
    let got = "";
    s.on("connect", () => s.write(JSON.stringify({ id: 1, method: "initialize", params: {} }) + "\n"));
    s.on("data", (d) => (got += d.toString("latin1")));
    s.on("close", () => resolve(got));
    s.on("error", () => resolve(got));
    setTimeout(() => s.destroy(), 3000);
  });
  fact("a plain JSON line on the socket gets no JSON-RPC answer (it is read as a bad HTTP request)", !plain.includes('"result"'), plain.split("\r\n")[0] || "(closed, nothing sent)");
  const upgrade = await connectSocketWebSocket(sock);
  upgrade.killTree();
  fact("an HTTP/1.1 GET with Upgrade: websocket is answered 101 and the connection then carries JSON-RPC text frames", true, "upgrade ok");

  // 3. Two clients. A starts a thread; B is not subscribed to it.
  const a = await client("clientA", sock);
  const b = await client("clientB", sock);
  const init = a.log.find((m) => m.id === 1)?.result;
  fact("initialize on the socket answers as on stdio (userAgent carries the version, codexHome)", init?.codexHome === codexHome, init?.userAgent);
  const second = await a.request("initialize", { clientInfo: { name: "x", version: "0" } });
  fact("initialize is per connection (a second one on the same connection is refused)", second.error?.message === "Already initialized", second.error);
  const t = await a.request("thread/start", { cwd: project, approvalPolicy: "untrusted" });
  const threadId = (t.result!.thread as { id: string }).id;
  await b.waitFor((m) => m.method === "thread/started", 5000, "thread/started on B");
  fact("thread/started goes to every connected client", true, "B got thread/started");
  provider.enqueue(text("first answer"));
  await a.request("turn/start", { threadId, input: [{ type: "text", text: "one", text_elements: [] }] });
  await a.waitFor((m) => m.method === "turn/completed", 30_000, "turn/completed on A");
  await sleep(300);
  const bSaw = b.methods(threadId);
  fact("an unsubscribed client sees only thread/status/changed and readState of another client's turn, no turn/item events", !bSaw.includes("turn/started") && !bSaw.includes("item/completed") && bSaw.includes("thread/status/changed"), [...new Set(bSaw)]);

  // 4. B attaches with thread/resume while A has it loaded.
  const resumed = await b.request("thread/resume", { threadId, excludeTurns: true });
  fact("thread/resume of a thread another client has loaded succeeds (no writer error) and subscribes B", !resumed.error, resumed.error ?? (resumed.result!.thread as { status: unknown }).status);
  const turns = await b.request("thread/turns/list", { threadId, itemsView: "full", sortDirection: "asc" });
  const history = (turns.result!.data as Array<{ items: Array<{ type: string }> }>).flatMap((x) => x.items.map((i) => i.type));
  fact("the attaching client reads the item history with thread/turns/list", history.includes("agentMessage"), history);

  // 5. A turn with an approval: who gets the request, and what happens when both answer.
  provider.enqueue(approvalTurn("call_facts_1"), text("done one"));
  const aBefore = a.log.length;
  const bBefore = b.log.length;
  await a.request("turn/start", { threadId, input: [{ type: "text", text: "two", text_elements: [] }] });
  const reqA = await a.waitFor((m) => m.method === "item/commandExecution/requestApproval" && a.log.indexOf(m) >= aBefore, 30_000, "approval on A");
  const reqB = await b.waitFor((m) => m.method === "item/commandExecution/requestApproval" && b.log.indexOf(m) >= bBefore, 30_000, "approval on B");
  fact("a server request goes to every subscribed client, each with its own id space", !!reqA && !!reqB, { a: reqA.id, b: reqB.id });
  fact("turn/item notifications reach the resumed client too", b.methods(threadId).includes("turn/started") && b.methods(threadId).includes("item/started"), "B got turn/started and item/started");
  await b.respond(reqB.id!, { decision: "accept" });
  const resolvedA = await a.waitFor((m) => m.method === "serverRequest/resolved" && a.log.indexOf(m) >= aBefore, 30_000, "resolved on A");
  fact("the first answer wins; the other client gets serverRequest/resolved with ITS request id", resolvedA.params?.requestId === reqA.id, resolvedA.params);
  await a.respond(reqA.id!, { decision: "decline" });
  const done2 = await a.waitFor((m) => m.method === "turn/completed" && a.log.indexOf(m) >= aBefore, 30_000, "turn 2 completed");
  const exec = a.log.filter((m, i) => i >= aBefore && m.method === "item/completed").map((m) => (m.params!.item as { type: string; status?: string })).find((i) => i.type === "commandExecution");
  fact("a late second answer is ignored: the command ran with the first answer", exec?.status === "completed" && (done2.params!.turn as { status: string }).status === "completed", exec?.status);

  // 5b. A dynamic tool call (item/tool/call) on a thread two clients have open.
  const toolSpec = { type: "function", name: "facts_tool", description: "a tool the starting client answers", inputSchema: { type: "object", properties: {}, additionalProperties: false } };
  const tt = await a.request("thread/start", { cwd: project, dynamicTools: [toolSpec] });
  const toolThread = (tt.result!.thread as { id: string }).id;
  await b.request("thread/resume", { threadId: toolThread, excludeTurns: true });
  provider.enqueue({ kind: "output", items: [{ type: "tool", name: "facts_tool", arguments: {}, callId: "call_facts_tool" }] }, text("tool done"));
  await a.request("turn/start", { threadId: toolThread, input: [{ type: "text", text: "call the tool", text_elements: [] }] });
  const callA = await a.waitFor((m) => m.method === "item/tool/call" && m.params?.threadId === toolThread, 30_000, "tool call on A");
  const callB = await b.waitFor((m) => m.method === "item/tool/call" && m.params?.threadId === toolThread, 5_000, "tool call on B").catch(() => null);
  fact("unlike approvals, a dynamic tool call (item/tool/call) goes only to the client that started the thread (and registered the tool), not to another subscriber", !!callA && !callB, { starter: !!callA, other_subscriber: !!callB });
  await a.respond(callA.id!, { contentItems: [{ type: "inputText", text: "answered by A" }], success: true });
  await a.waitFor(turnDone(toolThread), 30_000, "tool turn done");
  const toolOutput = provider.requests.at(-1)!.body.input.filter((i) => i.type === "function_call_output").map((i) => i.output);
  fact("the starter's answer is what the model gets", JSON.stringify(toolOutput).includes("answered by A"), toolOutput);

  // 6. A client leaving: its turns go on, the thread stays loaded for the others.
  provider.enqueue({ kind: "output", delayMs: 1500, items: [{ type: "message", text: "after A left" }] });
  const bMark = b.log.length;
  await a.request("turn/start", { threadId, input: [{ type: "text", text: "three", text_elements: [] }] });
  a.close();
  const done3 = await b.waitFor((m) => m.method === "turn/completed" && b.log.indexOf(m) >= bMark, 30_000, "turn 3 on B");
  fact("a turn goes on after the client that started it disconnects; the other subscriber gets its turn/completed", (done3.params!.turn as { status: string }).status === "completed", (done3.params!.turn as { status: string }).status);

  // 7. A second app-server process on the same home (the bridge's spawn mode) next to the daemon.
  const stdio = spawn(codexBin, ["app-server"], { env, stdio: ["pipe", "pipe", "pipe"] });
  let stdioOut = "";
  stdio.stdout.on("data", (d: Buffer) => (stdioOut += d.toString()));
  stdio.stdin.write(JSON.stringify({ id: 1, method: "initialize", params: { clientInfo: { name: "spawned", version: "0" }, capabilities: { experimentalApi: true } } }) + "\n");
  stdio.stdin.write(JSON.stringify({ method: "initialized" }) + "\n");
  stdio.stdin.write(JSON.stringify({ id: 2, method: "thread/resume", params: { threadId, excludeTurns: true } }) + "\n");
  for (let i = 0; i < 100 && !stdioOut.includes('"id":2'); i++) await sleep(100);
  const answer2 = stdioOut.split("\n").find((l) => l.includes('"id":2'));
  fact("a second app-server PROCESS on the same home cannot resume a thread the daemon has loaded (one writer per thread across processes)", !!answer2 && answer2.includes("already has an active writer"), answer2?.slice(0, 160));
  stdio.stdin.end();

  // 8. The last client leaving: the daemon keeps running, the thread stays loaded.
  for (const x of clients) x.close();
  await sleep(3000);
  fact("the daemon keeps running with no client connected", alive(daemonPid(codexHome)), { pid: daemonPid(codexHome) });
  const f = await client("clientF", sock);
  const stillLoaded = await f.request("thread/loaded/list", {});
  fact("a thread stays loaded after its last client left", (stillLoaded.result!.data as string[]).includes(threadId), stillLoaded.result!.data);

  // 9. The daemon killed (SIGKILL) mid-turn: clients see the socket close; `daemon start` starts a new one.
  const requestsBefore6 = provider.requests.length;
  const t6 = await f.request("thread/start", { cwd: project });
  const thread6 = (t6.result!.thread as { id: string }).id;
  await f.request("turn/start", { threadId: thread6, input: [{ type: "text", text: "hang: six", text_elements: [] }] });
  await f.waitFor((m) => m.method === "turn/started" && m.params?.threadId === thread6, 30_000, "turn 6 started");
  // Killed only once the model request is out: otherwise the hang is left queued for the next turn.
  await provider.waitForRequests(requestsBefore6 + 1, 60_000);
  process.kill(daemonPid(codexHome)!, "SIGKILL");
  for (let i = 0; i < 50 && !f.closed; i++) await sleep(100);
  fact("SIGKILL of the daemon closes the clients' connections", f.closed, { closed: f.closed });
  const afterKill = await daemonCommand(codexBin, env, "start");
  fact("daemon start after a SIGKILL (stale pid file) starts a new server", afterKill.status === "started" && afterKill.pid !== started.pid, afterKill.status);
  const g = await client("clientG", sock);
  await g.request("thread/resume", { threadId: thread6, excludeTurns: true });
  const tl2 = await g.request("thread/turns/list", { threadId: thread6, itemsView: "full", sortDirection: "asc" });
  const st2 = (tl2.result!.data as Array<{ status: string }>).map((x) => x.status);
  fact("the turn cut off by the SIGKILL reads back as interrupted", st2.at(-1) === "interrupted", st2);
  provider.enqueue(text("recovered"));
  await g.request("turn/start", { threadId: thread6, input: [{ type: "text", text: "seven", text_elements: [] }] });
  const done7 = await g.waitFor((m) => m.method === "turn/completed" && m.params?.threadId === thread6, 30_000, "turn 7").catch(() => null);
  fact("a new turn on the resumed thread completes", (done7?.params!.turn as { status: string } | undefined)?.status === "completed", done7 ? "completed" : { saw: g.methods(), requests: provider.requests.map((r) => r.outcome), procs: spawnSync("ps", ["-eo", "pid,ppid,etimes,args"], { encoding: "utf8" }).stdout.split("\n").filter((l) => l.includes(codexHome)).map((l) => l.slice(0, 200)), log: readFileSync(join(codexHome, "app-server-daemon", "daemon.stderr.log"), "utf8").split("\n").filter((l) => /ERROR/.test(l)).slice(-8) });

  // 10. The daemon stopped mid-turn; clients lose the socket; after a start the thread is resumable.
  const c = await client("clientC", sock);
  const requestsBefore5 = provider.requests.length;
  const cResume = await c.request("thread/resume", { threadId, excludeTurns: true });
  const cStart = await c.request("turn/start", { threadId, input: [{ type: "text", text: "hang: five", text_elements: [] }] });
  if (cResume.error || cStart.error) console.log("turn 5 refused:", JSON.stringify({ resume: cResume.error, start: cStart.error }));
  // The turn is running once the mock holds its (hanging) model request.
  await provider.waitForRequests(requestsBefore5 + 1, 60_000);
  const c2 = await client("clientC2", sock);
  await c2.request("thread/resume", { threadId, excludeTurns: true });
  const concurrent = await c2.request("turn/start", { threadId, input: [{ type: "text", text: "hang: five-b", text_elements: [] }] });
  const cTurn = (cStart.result?.turn as { id: string } | undefined)?.id;
  const cTurn2 = (concurrent.result?.turn as { id: string } | undefined)?.id;
  fact("turn/start from a second client during an active turn is accepted (no error; runs have answered with the active turn's id and with a new one)", !concurrent.error, concurrent.error ?? (cTurn2 === cTurn ? "the active turn's id" : "a new turn id"));
  const stopAt = Date.now();
  const stopped = await daemonCommand(codexBin, env, "stop");
  const stopSeconds = Math.round((Date.now() - stopAt) / 1000);
  for (let i = 0; i < 50 && !c.closed; i++) await sleep(100);
  fact("daemon stop closes every client connection (no turn/completed is sent first)", c.closed && !c.methods(threadId).slice(-3).includes("turn/completed"), { stop: stopped.status, closed: c.closed, seconds_with_an_active_turn: stopSeconds });
  fact("daemon stop leaves the updater loop (pid-update-loop) running", alive(updaterPid(codexHome)), { updater: updaterPid(codexHome) });
  fact("after stop the socket path no longer accepts connections", await connectSocketWebSocket(sock).then((h) => (h.killTree(), false), () => true), "refused");
  const restarted = await daemonCommand(codexBin, env, "start");
  const d = await client("clientD", sock);
  const loaded = await d.request("thread/loaded/list", {});
  fact("a restarted daemon has no thread loaded (new pid)", (loaded.result!.data as string[]).length === 0 && restarted.pid !== afterKill.pid, { loaded: loaded.result!.data, pid: restarted.pid });
  const r2 = await d.request("thread/resume", { threadId, excludeTurns: true });
  const tl = await d.request("thread/turns/list", { threadId, itemsView: "full", sortDirection: "asc" });
  const statuses = (tl.result!.data as Array<{ status: string }>).map((x) => x.status);
  fact("the thread resumes on the restarted daemon; the turn cut off by `daemon stop` reads back as interrupted", !r2.error && statuses.at(-1) === "interrupted", statuses);

  // 11. `--listen unix://PATH` (not the daemon): the same WebSocket framing on a socket of your choice.
  const own = join(codexHome, "own.sock");
  const listener = spawn(codexBin, ["app-server", "--listen", `unix://${own}`], { env, stdio: ["ignore", "ignore", "ignore"] });
  for (let i = 0; i < 100 && !existsSync(own); i++) await sleep(100);
  const e = await client("clientE", own);
  fact("codex app-server --listen unix://PATH speaks the same WebSocket framing", !!e.log.find((m) => m.id === 1)?.result, "initialized over the upgrade");
  e.close();
  listener.kill("SIGTERM");

  // 12. The TUI attached with --remote, in a pseudo-terminal (util-linux `script`), next to a raw client.
  if (spawnSync("script", ["--version"]).status === 0) {
    const h = await client("clientH", sock);
    const th = await h.request("thread/start", { cwd: project });
    const tuiThread = (th.result!.thread as { id: string }).id;
    provider.enqueue(text("TUI-FIRST-ANSWER"));
    await h.request("turn/start", { threadId: tuiThread, input: [{ type: "text", text: "before the TUI", text_elements: [] }] });
    await h.waitFor(turnDone(tuiThread), 30_000, "turn before the TUI");
    const screen = join(codexHome, "tui.typescript");
    const tui = spawn("script", ["-qfec", `stty cols 120 rows 40; ${codexBin} resume ${tuiThread} --remote unix://${sock}`, screen], { env: { ...env, TERM: "xterm-256color" }, cwd: project, stdio: ["pipe", "ignore", "ignore"] });
    const shown = (needle: string) => stripAnsi(readFileSync(screen, "latin1")).includes(needle);
    for (let i = 0; i < 300 && !(existsSync(screen) && shown("TUI-FIRST-ANSWER")); i++) await sleep(100);
    fact("codex resume <thread> --remote unix://<socket> shows the thread's history", shown("TUI-FIRST-ANSWER"), "history shown");
    provider.enqueue(text("TUI-SECOND-ANSWER"));
    await h.request("turn/start", { threadId: tuiThread, input: [{ type: "text", text: "driven by another client", text_elements: [] }] });
    await h.waitFor((m) => turnDone(tuiThread)(m) && h.log.filter(turnDone(tuiThread)).length >= 2, 30_000, "turn driven next to the TUI");
    for (let i = 0; i < 100 && !shown("TUI-SECOND-ANSWER"); i++) await sleep(100);
    fact("the --remote TUI shows live a turn another client drives (its prompt and answer)", shown("driven by another client") && shown("TUI-SECOND-ANSWER"), "live turn shown");
    provider.enqueue(text("TUI-THIRD-ANSWER"));
    tui.stdin.write("typed in the TUI");
    await sleep(1500);
    tui.stdin.write("\r");
    const typed = await h.waitFor((m) => m.method === "item/completed" && m.params?.threadId === tuiThread && JSON.stringify(m.params).includes("typed in the TUI"), 30_000, "the TUI's turn").then(() => true, () => false);
    fact("a prompt typed in the --remote TUI starts a turn the other client sees", typed, "turn seen by the raw client");
    await h.waitFor((m) => turnDone(tuiThread)(m) && h.log.filter(turnDone(tuiThread)).length >= 3, 30_000, "the TUI's turn to end").catch(() => undefined);
    // A dynamic tool of another client's thread while the TUI has it open: does the TUI answer it?
    const tt2 = await h.request("thread/start", { cwd: project, dynamicTools: [toolSpec] });
    const tuiToolThread = (tt2.result!.thread as { id: string }).id;
    provider.enqueue(text("TOOL-THREAD-READY"));
    await h.request("turn/start", { threadId: tuiToolThread, input: [{ type: "text", text: "ready", text_elements: [] }] });
    await h.waitFor(turnDone(tuiToolThread), 30_000, "tool thread ready");
    const screen2 = join(codexHome, "tui2.typescript");
    const tui2 = spawn("script", ["-qfec", `stty cols 120 rows 40; ${codexBin} resume ${tuiToolThread} --remote unix://${sock}`, screen2], { env: { ...env, TERM: "xterm-256color" }, cwd: project, stdio: ["pipe", "ignore", "ignore"] });
    for (let i = 0; i < 300 && !(existsSync(screen2) && stripAnsi(readFileSync(screen2, "latin1")).includes("TOOL-THREAD-READY")); i++) await sleep(100);
    provider.enqueue({ kind: "output", items: [{ type: "tool", name: "facts_tool", arguments: {}, callId: "call_tui_tool" }] }, text("tool done"));
    await h.request("turn/start", { threadId: tuiToolThread, input: [{ type: "text", text: "call the tool now", text_elements: [] }] });
    const hCall = await h.waitFor((m) => m.method === "item/tool/call" && m.params?.threadId === tuiToolThread, 30_000, "tool call on the raw client");
    await sleep(3000);
    const settledBeforeUs = h.log.some((m) => m.method === "item/completed" && m.params?.threadId === tuiToolThread && (m.params.item as { type?: string }).type === "dynamicToolCall");
    await h.respond(hCall.id!, { contentItems: [{ type: "inputText", text: "answered by the raw client" }], success: true });
    await h.waitFor((m) => turnDone(tuiToolThread)(m) && h.log.filter(turnDone(tuiToolThread)).length >= 2, 30_000, "tool turn with the TUI attached");
    const out2 = JSON.stringify(provider.requests.at(-1)!.body.input.filter((i) => i.type === "function_call_output").map((i) => i.output));
    fact("with the --remote TUI on the thread, a dynamic tool call still goes to the thread's starter, which answers it (the TUI does not)", !settledBeforeUs && out2.includes("answered by the raw client"), { settled_before_the_raw_client: settledBeforeUs, output: out2.slice(0, 200) });
    tui2.kill("SIGKILL");
    tui.kill("SIGKILL");
  } else console.log("SKIP 12: util-linux `script` is not installed, the TUI needs a terminal");
} finally {
  for (const c of clients) c.close();
  await stopDaemonCompletely(codexBin, env, codexHome);
  await provider.close();
  rmSync(codexHome, { recursive: true, force: true });
}
console.log(failed === 0 ? "all facts held" : `${failed} fact(s) did not hold`);
process.exit(failed === 0 ? 0 : 1);
