// The one stand-in for `codex app-server`, for the tests' edge cases the real one cannot be made to produce on demand
// and for the benchmark's events on demand. Its answers are the real 0.171.0 samples; FAKE_MODE picks the misbehaviour
// (FAKE_VERSION changes the version its userAgent names, FAKE_ERROR_INFO the codexErrorInfo of a failing turn);
// BENCH_FAKE_PORT runs the benchmark's script (fake-bench.ts) instead. Every received line is appended to FAKE_LOG.
import { LineSplitter } from "../../src/codex/jsonl.ts";
import { randomBytes } from "node:crypto";
import { appendFileSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchScript } from "./fake-bench.ts";
import { scenario, type FakeApi } from "./fake-scenarios.ts";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "codex");
const samples = {
  ...JSON.parse(readFileSync(join(fixtures, "protocol-samples-0.171.0.json"), "utf8")),
  ...JSON.parse(readFileSync(join(fixtures, "server-requests-0.171.0.json"), "utf8")),
} as Record<string, { msg: Record<string, unknown> }>;
const sample = (key: string) => structuredClone(samples[key]!.msg);

const mode = process.env.FAKE_MODE ?? "normal";
const log = process.env.FAKE_LOG;
// Written in order; a full pipe parks the rest until it drains, so a storm never grows this process without bound.
let queue: string[] = [];
let waiting = false;
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
const sendLines = (lines: string[]) => {
  queue.push(...lines);
  if (!waiting) drain();
};
const send = (m: unknown) => sendLines([JSON.stringify(m) + "\n"]);
const flushed = (): Promise<void> => new Promise((resolve) => (waiting ? process.stdout.once("drain", () => setImmediate(resolve)) : resolve()));
// Ids shaped like Codex's (UUID, "01a2" prefix like the samples), fresh per thread and turn.
const newId = () => {
  const h = randomBytes(16).toString("hex");
  return `01a2${h.slice(0, 4)}-${h.slice(4, 8)}-7${h.slice(9, 12)}-8${h.slice(13, 16)}-${h.slice(16, 28)}`;
};
const api: FakeApi = { send, sample, newId, threads: [] };
const benchPort = Number(process.env.BENCH_FAKE_PORT);
const script = benchPort
  ? benchScript(api, { sendLines, flushed, get waiting() { return waiting; } }, benchPort, process.env.BENCH_FAKE_ROLE ?? "")
  : scenario(mode, api);

// The bridge's own line splitter (blank lines skipped); no cap: this fake trusts its one client.
const lines = new LineSplitter(Number.MAX_SAFE_INTEGER, (line) => {
  if (log) appendFileSync(log, line + "\n");
  handle(JSON.parse(line) as { id?: number; method?: string; params?: Record<string, unknown> });
}, () => {});
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => lines.push(chunk));
process.stdin.on("end", () => process.exit(0));

function handle(m: { id?: number; method?: string; params?: Record<string, unknown> }): void {
  if (m.id === CURRENT_TIME_ID && !m.method) return completeTurn();
  if (!m.method) {
    if (m.id !== undefined) script?.response?.(m.id);
    return;
  }
  if (m.id === undefined) return;
  if (script) {
    if (m.method === "thread/start") {
      const r = sample("server response to thread/start");
      const id = newId();
      api.threads.push(id);
      r.id = m.id;
      (r.result as { thread: { id: string } }).thread.id = id;
      send(r);
      return;
    }
    if (m.method === "thread/loaded/list") {
      script.steps.shift()?.();
      send({ id: m.id, result: { data: [], nextCursor: null } });
      return;
    }
    if (script.request?.({ id: m.id, method: m.method, params: (m.params ?? {}) as Record<string, any> })) return;
  }
  switch (m.method) {
    case "initialize": {
      const r = sample("server response to initialize");
      r.id = m.id;
      const result = r.result as Record<string, unknown>;
      if (process.env.FAKE_VERSION) result.userAgent = String(result.userAgent).replace("0.171.0", process.env.FAKE_VERSION);
      send(r);
      return;
    }
    case "model/list": {
      if (mode === "model-list-fails") {
        send({ id: m.id, error: { code: -32600, message: "Invalid request: unknown variant `model/list`" } });
        return;
      }
      const r = sample("server response to model/list");
      r.id = m.id;
      // Hold it until the next request, so the two answers arrive reversed.
      if (mode === "out-of-order") heldAnswer = r;
      else send(r);
      return;
    }
    case "thread/start": {
      if (mode === "no-dynamic-tools" && m.params?.dynamicTools) {
        const e = sample("server response to thread/start (ERROR)");
        e.id = m.id;
        send(e);
        return;
      }
      const r = sample("server response to thread/start");
      r.id = m.id;
      send(r);
      if (heldAnswer) send(heldAnswer);
      heldAnswer = null;
      return;
    }
    case "thread/read":
      if (mode === "no-turn-ack") return; // a read that is never answered
      break;
    case "turn/start":
      if (mode === "no-turn-ack") return; // never acknowledged: the outcome is UNKNOWN
      {
        const r = sample("server response to turn/start");
        r.id = m.id;
        send(r);
      }
      if (mode === "turn-fails") failTurn();
      if (mode === "current-time-request") askCurrentTime();
      return;
    case "huge-line":
      send({ id: m.id, result: { blob: "x".repeat(Number(process.env.FAKE_HUGE ?? "2000000")) } });
      send({ id: m.id + 1000, result: {} });
      return;
  }
  switch (m.method) {
    case "initialize":
    case "model/list":
    case "thread/start":
    case "turn/start":
      return;
    default:
      send({ id: m.id, error: { code: -32600, message: `fake: unsupported ${m.method}` } });
  }
}
let heldAnswer: Record<string, unknown> | null = null;

/** turn/started, then turn/completed failed with FAKE_ERROR_INFO, on the sample thread and turn. */
function failTurn(): void {
  const threadId = ((sample("server response to thread/start").result as Record<string, any>).thread as { id: string }).id;
  const turnId = ((sample("server response to turn/start").result as Record<string, any>).turn as { id: string }).id;
  const started = sample("server notification turn/started");
  Object.assign(started.params as object, { threadId });
  ((started.params as Record<string, any>).turn as Record<string, unknown>).id = turnId;
  const done = sample("server notification turn/completed (failed)");
  const p = done.params as Record<string, any>;
  p.threadId = threadId;
  p.turn.id = turnId;
  p.turn.error = { message: "the sandbox could not be set up", codexErrorInfo: process.env.FAKE_ERROR_INFO ?? "other", additionalDetails: null };
  setTimeout(() => {
    send(started);
    send(done);
  }, 20);
}

// currentTime/read, a server request of Codex 0.147 to 0.159 (gone in 0.171): the turn goes on only once it is answered.
const CURRENT_TIME_ID = 9001;
const sampleIds = () => ({
  threadId: ((sample("server response to thread/start").result as Record<string, any>).thread as { id: string }).id,
  turnId: ((sample("server response to turn/start").result as Record<string, any>).turn as { id: string }).id,
});

function askCurrentTime(): void {
  const { threadId, turnId } = sampleIds();
  const started = sample("server notification turn/started");
  Object.assign(started.params as object, { threadId });
  ((started.params as Record<string, any>).turn as Record<string, unknown>).id = turnId;
  setTimeout(() => {
    send(started);
    send({ id: CURRENT_TIME_ID, method: "currentTime/read", params: { threadId } });
  }, 20);
}

function completeTurn(): void {
  const { threadId, turnId } = sampleIds();
  const done = sample("server notification turn/completed (completed)");
  const p = done.params as Record<string, any>;
  p.threadId = threadId;
  p.turn.id = turnId;
  send(done);
}
