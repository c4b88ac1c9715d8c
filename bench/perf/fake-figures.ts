// Figures that need events on demand, through the fake app-server's benchmark script (test/support/fake-bench.ts): codex_wait wake latency, an approval
// reaching the supervisor, codex_status round trips and a 100,000-event storm; each (where there is one) beside the
// same events read straight from the fake over JSONL.
import { chmodSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { getPlatform } from "../../platform/index.ts";
import { JsonlPeer, initializeAppServer, type Incoming } from "./jsonl-peer.ts";
import { cpuMs } from "./procfs.ts";
import { nowMs } from "./stats.ts";
import { ROOT, spawnBridge, structured, type BridgeClient, type World } from "./world.ts";

const BUN = join(ROOT, "node_modules", ".bin", "bun");
const FAKE = join(ROOT, "test", "support", "fake-app-server.ts");
/** How long a codex_wait is given to reach the bridge and block before the event is sent. */
const BLOCK_MS = 15;

/** The loopback control channel: each fake connects and says which role it plays. */
class Control {
  private readonly sockets = new Map<string, Socket>();
  private readonly replies: ((m: Record<string, unknown>) => void)[] = [];
  private constructor(private readonly server: Server, readonly port: number) {}

  static async open(): Promise<Control> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const c = new Control(server, (server.address() as { port: number }).port);
    server.on("connection", (sock) => {
      sock.setNoDelay(true);
      let buf = "";
      sock.setEncoding("utf8").on("data", (d: string) => {
        buf += d;
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const m = JSON.parse(buf.slice(0, nl)) as Record<string, unknown>;
          buf = buf.slice(nl + 1);
          if (m.op === "hello") c.sockets.set(String(m.role), sock);
          else for (const r of c.replies.splice(0)) r(m);
        }
      });
    });
    return c;
  }

  async connected(role: string): Promise<void> {
    for (let i = 0; i < 600 && !this.sockets.has(role); i++) await new Promise((r) => setTimeout(r, 50));
    if (!this.sockets.has(role)) throw new Error(`the fake app-server (${role}) never connected`);
  }

  /** Sends a command; the time it was handed to the socket. */
  send(role: string, command: Record<string, unknown>): number {
    const t = nowMs();
    this.sockets.get(role)!.write(JSON.stringify(command) + "\n");
    return t;
  }

  reply(): Promise<Record<string, unknown>> {
    return new Promise((resolve) => this.replies.push(resolve));
  }

  close(): Promise<void> {
    for (const s of this.sockets.values()) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export interface FakeFigures {
  /** event sent to the fake → codex_wait answer received (bridge) / → event read from the fake (raw). */
  wake: { raw: number[]; bridge: number[] };
  approval: { raw: number[]; bridge: number[] };
  statusMs: number[];
  pingMs: number[];
  storm: { events: number; raw: { ms: number; seen: number }; bridge: { ms: number; stored: number; waits: number; cpuMs: number | null }; fakeWriteMs: number[] };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function countStored(statePath: string, taskId: string): Promise<number> {
  const db = await (await getPlatform()).openDatabase(statePath);
  try {
    return Number(db.prepare(`SELECT COUNT(*) AS n FROM events WHERE task_id = ? AND kind IN ('command_started', 'command')`).get(taskId)?.n ?? 0);
  } finally {
    db.close();
  }
}

async function rawSide(control: Control, world: World, samples: number, stormEvents: number, out: FakeFigures): Promise<void> {
  const peer = new JsonlPeer(BUN, [FAKE], { env: { ...process.env, BENCH_FAKE_PORT: String(control.port), BENCH_FAKE_ROLE: "raw" } as Record<string, string> });
  try {
    await control.connected("raw");
    await initializeAppServer(peer);
    await peer.request("thread/start", { cwd: world.projectDir });
    await peer.request("turn/start", { threadId: "x", input: [] });
    for (let k = 0; k < samples; k++) {
      const seen = peer.next((m) => m.method === "item/completed" && (m.params?.item as { text?: string } | undefined)?.text === `tick-${k}`);
      const t0 = control.send("raw", { op: "message", text: `tick-${k}`, id: k });
      out.wake.raw.push((await seen).at - t0);
      const req = peer.next((m) => m.method === "item/commandExecution/requestApproval" && m.id === 1000 + k);
      const t1 = control.send("raw", { op: "approval", id: 1000 + k });
      const { message } = await req;
      out.approval.raw.push(nowMs() - t1);
      peer.write({ jsonrpc: "2.0", id: message.id, result: { decision: "accept" } });
    }
    let seen = 0;
    const off = peer.on((m: Incoming) => {
      if (m.method === "item/started" || m.method === "item/completed") seen++;
    });
    const done = peer.next((m) => m.method === "turn/completed", 600_000);
    const reply = control.reply();
    const t0 = control.send("raw", { op: "storm", n: stormEvents });
    control.send("raw", { op: "complete" });
    const end = (await done).at;
    out.storm.fakeWriteMs.push(Number((await reply).ms));
    off();
    out.storm.raw = { ms: end - t0, seen };
  } finally {
    await peer.close();
  }
}

async function bridgeSide(control: Control, world: World, binary: string, samples: number, statusCalls: number, stormEvents: number, out: FakeFigures): Promise<void> {
  const wrapper = join(world.dir, "fake-codex.sh");
  writeFileSync(wrapper, `#!/bin/sh\nexec "${BUN}" "${FAKE}" "$@"\n`);
  chmodSync(wrapper, 0o755);
  const env = world.bridgeEnv("fake", { CODEX_BIN: wrapper, BENCH_FAKE_PORT: String(control.port), BENCH_FAKE_ROLE: "bridge" });
  const b: BridgeClient = await spawnBridge(binary, env, world.projectDir);
  try {
    const taskId = String(structured(await b.call("codex_start", { project_id: "demo", prompt: "bench" })).task_id);
    await control.connected("bridge");
    // Everything the start left behind is read first, so each wait below blocks until the event it is timed for.
    await b.call("codex_wait", { task_id: taskId, timeout_seconds: 0 });
    for (let k = 0; k < samples; k++) {
      let pending = b.call("codex_wait", { task_id: taskId });
      await sleep(BLOCK_MS);
      const t0 = control.send("bridge", { op: "message", text: `tick-${k}`, id: k });
      let w = structured(await pending);
      out.wake.bridge.push(nowMs() - t0);
      if (!(w.messages as string[] | undefined)?.includes(`tick-${k}`)) throw new Error(`wake sample ${k}: the wait returned without tick-${k}: ${JSON.stringify(w)}`);

      pending = b.call("codex_wait", { task_id: taskId });
      await sleep(BLOCK_MS);
      const t1 = control.send("bridge", { op: "approval", id: 1000 + k });
      w = structured(await pending);
      out.approval.bridge.push(nowMs() - t1);
      const request = (w.requests as { request_id: string }[] | undefined)?.[0];
      if (!request) throw new Error(`approval sample ${k}: the wait returned without the request: ${JSON.stringify(w)}`);
      await b.call("codex_respond", { task_id: taskId, request_id: request.request_id, action: "accept" });
    }
    for (let k = 0; k < statusCalls; k++) {
      let t0 = nowMs();
      await b.call("codex_status", { task_id: taskId });
      out.statusMs.push(nowMs() - t0);
      t0 = nowMs();
      await b.client.ping();
      out.pingMs.push(nowMs() - t0);
    }
    // The storm, with a supervisor calling codex_wait all along, as it would.
    const reply = control.reply();
    const cpu0 = cpuMs(b.pid);
    const t0 = control.send("bridge", { op: "storm", n: stormEvents });
    control.send("bridge", { op: "complete" });
    let waits = 0;
    for (;;) {
      const w = structured(await b.call("codex_wait", { task_id: taskId }));
      waits++;
      if (w.turn !== undefined) break;
    }
    const ms = nowMs() - t0;
    const cpu1 = cpuMs(b.pid);
    out.storm.fakeWriteMs.push(Number((await reply).ms));
    out.storm.bridge = { ms, stored: await countStored(env.CODEX_BRIDGE_STATE!, taskId), waits, cpuMs: cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null };
  } finally {
    await b.close();
  }
}

export async function measureWithFake(world: World, binary: string, samples: number, statusCalls: number, stormEvents: number): Promise<FakeFigures> {
  const control = await Control.open();
  const out: FakeFigures = {
    wake: { raw: [], bridge: [] },
    approval: { raw: [], bridge: [] },
    statusMs: [],
    pingMs: [],
    storm: { events: stormEvents, raw: { ms: NaN, seen: 0 }, bridge: { ms: NaN, stored: 0, waits: 0, cpuMs: null }, fakeWriteMs: [] },
  };
  try {
    await rawSide(control, world, samples, stormEvents, out);
    await bridgeSide(control, world, binary, samples, statusCalls, stormEvents, out);
  } finally {
    await control.close();
  }
  return out;
}
