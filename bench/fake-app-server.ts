// A stand-in for `codex app-server` that the performance benchmark drives: it answers the handshake, thread/start and
// turn/start with the real 0.171.0 samples, then emits what the benchmark asks for over a loopback control socket
// (BENCH_FAKE_PORT): a commentary message, an approval request, a storm of command items, the turn's end.
import { LineSplitter } from "../src/codex/jsonl.ts";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

type Msg = Record<string, unknown> & { params?: Record<string, unknown> };

const samples = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "test", "fixtures", "codex", "protocol-samples-0.171.0.json"), "utf8")) as Record<string, { msg: Msg }>;
const sample = (key: string): Msg => structuredClone(samples[key]!.msg);

const THREAD_ID = String((sample("server response to thread/start").result as { thread: { id: string } }).thread.id);
let turnNo = 0;
let turnId = "";

// Written in order; a full pipe parks the rest until it drains, so a storm never grows this process without bound.
let queue: string[] = [];
let waiting = false;
/** A message, or lines already serialized (each ending in a newline). */
function send(m: unknown): void {
  if (Array.isArray(m)) queue.push(...(m as string[]));
  else queue.push(JSON.stringify(m) + "\n");
  if (!waiting) drain();
}
function drain(): void {
  while (queue.length) {
    const batch = queue.join("");
    queue = [];
    if (!process.stdout.write(batch)) {
      waiting = true;
      process.stdout.once("drain", () => {
        waiting = false;
        drain();
      });
      return;
    }
  }
}
const flushed = (): Promise<void> => new Promise((resolve) => (waiting ? process.stdout.once("drain", () => setImmediate(resolve)) : resolve()));

function answer(id: unknown, key: string): void {
  const r = sample(key);
  r.id = id;
  send(r);
}

function onTurnScope(key: string, mutate: (params: Record<string, unknown>) => void = () => {}): Msg {
  const m = sample(key);
  const p = m.params!;
  p.threadId = THREAD_ID;
  if ("turnId" in p) p.turnId = turnId;
  mutate(p);
  return m;
}

function commandItem(key: string, id: string): Msg {
  return onTurnScope(key, (p) => {
    (p.item as Record<string, unknown>).id = id;
  });
}

function handle(m: Msg): void {
  if (m.method === undefined) {
    // A client's answer to one of our requests: Codex confirms it the same way.
    if (m.id !== undefined) send(onTurnScope("server notification serverRequest/resolved", (p) => (p.requestId = m.id)));
    return;
  }
  if (m.id === undefined) return;
  switch (m.method) {
    case "initialize":
      return answer(m.id, "server response to initialize");
    case "model/list":
      return answer(m.id, "server response to model/list");
    case "thread/start": {
      const r = sample("server response to thread/start");
      r.id = m.id;
      send(r);
      return;
    }
    case "turn/start": {
      turnNo++;
      turnId = `bench-turn-${turnNo}`;
      const r = sample("server response to turn/start");
      r.id = m.id;
      (r.result as { turn: { id: string } }).turn.id = turnId;
      send(r);
      send(onTurnScope("server notification turn/started", (p) => ((p.turn as { id: string }).id = turnId)));
      return;
    }
    default:
      send({ id: m.id, error: { code: -32601, message: `bench fake: ${String(m.method)} is not supported` } });
  }
}

// The bridge's own line splitter (blank lines skipped); no cap: this fake trusts its one client.
const lines = new LineSplitter(Number.MAX_SAFE_INTEGER, (line) => handle(JSON.parse(line) as Msg), () => {});
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => lines.push(chunk));
process.stdin.on("end", () => process.exit(0));

// ------------------------------------------------------------------ control

interface Command {
  op: "message" | "approval" | "storm" | "complete";
  text?: string;
  id?: number;
  n?: number;
}

async function run(c: Command, reply: (m: unknown) => void): Promise<void> {
  switch (c.op) {
    case "message": {
      const id = `msg_bench_${c.id ?? 0}`;
      const started = onTurnScope("server notification item/started (agentMessage)", (p) => Object.assign(p.item as object, { id }));
      const done = onTurnScope("server notification item/completed (agentMessage)", (p) => Object.assign(p.item as object, { id, text: c.text, phase: "commentary" }));
      send(started);
      send(done);
      return;
    }
    case "approval": {
      const r = onTurnScope("SERVER REQUEST item/commandExecution/requestApproval", (p) => (p.itemId = `call_bench_${c.id}`));
      r.id = c.id;
      send(r);
      return;
    }
    case "storm": {
      // Lines are built from two templates and written in large batches, so the fake outruns any reader.
      const n = c.n ?? 0;
      const t0 = performance.now();
      const ID = "__BENCH_ITEM_ID__";
      const started = JSON.stringify(commandItem("server notification item/started (commandExecution:inProgress)", ID)) + "\n";
      const completed = JSON.stringify(commandItem("server notification item/completed (commandExecution:completed)", ID)) + "\n";
      let batch: string[] = [];
      for (let k = 0; k < n; k++) {
        const id = `call_storm_${k - (k % 2)}`;
        batch.push((k % 2 === 0 ? started : completed).replace(ID, id));
        if (batch.length === 2000 || k === n - 1) {
          send(batch);
          batch = [];
          if (waiting) await flushed();
        }
      }
      await flushed();
      reply({ op: "storm-written", ms: performance.now() - t0 });
      return;
    }
    case "complete":
      send(onTurnScope("server notification turn/completed (completed)", (p) => Object.assign(p.turn as object, { id: turnId, items: [] })));
      return;
  }
}

const port = Number(process.env.BENCH_FAKE_PORT);
if (port) {
  const sock = connect(port, "127.0.0.1");
  sock.setNoDelay(true);
  const reply = (m: unknown) => sock.write(JSON.stringify(m) + "\n");
  sock.on("connect", () => reply({ op: "hello", role: process.env.BENCH_FAKE_ROLE ?? "" }));
  let cbuf = "";
  // Commands run one after another, in the order sent.
  let chain = Promise.resolve();
  sock.setEncoding("utf8").on("data", (d: string) => {
    cbuf += d;
    let nl: number;
    while ((nl = cbuf.indexOf("\n")) >= 0) {
      const c = JSON.parse(cbuf.slice(0, nl)) as Command;
      cbuf = cbuf.slice(nl + 1);
      chain = chain.then(() => run(c, reply));
    }
  });
  sock.on("error", () => process.exit(1));
}
