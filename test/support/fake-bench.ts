// The performance benchmark's script for the fake app-server (chosen by BENCH_FAKE_PORT): turns get ids of their own
// and start at once, a client's answer is confirmed with serverRequest/resolved the way Codex does, and the rest comes
// on demand over a loopback control socket: a commentary message, an approval request, a storm of command items, the
// turn's end. Messages are the real 0.171.0 samples with ids replaced.
import { connect } from "node:net";
import type { FakeApi, Scenario } from "./fake-scenarios.ts";

/** The fake's writer, with what a storm needs: serialized lines in bulk, and a wait until the pipe has drained. */
export interface BenchOutput {
  sendLines(lines: string[]): void;
  flushed(): Promise<void>;
  readonly waiting: boolean;
}

interface Command {
  op: "message" | "approval" | "storm" | "complete";
  text?: string;
  id?: number;
  n?: number;
}

export function benchScript(api: FakeApi, out: BenchOutput, port: number, role: string): Scenario {
  let turnNo = 0;
  let turnId = "";
  const sampleThread = String(api.sample("server response to thread/start").result.thread.id);
  const threadId = () => api.threads.at(-1) ?? sampleThread;

  function onTurnScope(key: string, mutate: (params: Record<string, unknown>) => void = () => {}): Record<string, any> {
    const m = api.sample(key);
    const p = m.params;
    p.threadId = threadId();
    if ("turnId" in p) p.turnId = turnId;
    mutate(p);
    return m;
  }
  const commandItem = (key: string, id: string) => onTurnScope(key, (p) => ((p.item as Record<string, unknown>).id = id));

  async function run(c: Command, reply: (m: unknown) => void): Promise<void> {
    switch (c.op) {
      case "message": {
        const id = `msg_bench_${c.id ?? 0}`;
        api.send(onTurnScope("server notification item/started (agentMessage)", (p) => Object.assign(p.item as object, { id })));
        api.send(onTurnScope("server notification item/completed (agentMessage)", (p) => Object.assign(p.item as object, { id, text: c.text, phase: "commentary" })));
        return;
      }
      case "approval": {
        const r = onTurnScope("SERVER REQUEST item/commandExecution/requestApproval", (p) => (p.itemId = `call_bench_${c.id}`));
        r.id = c.id;
        api.send(r);
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
            out.sendLines(batch);
            batch = [];
            if (out.waiting) await out.flushed();
          }
        }
        await out.flushed();
        reply({ op: "storm-written", ms: performance.now() - t0 });
        return;
      }
      case "complete":
        api.send(onTurnScope("server notification turn/completed (completed)", (p) => Object.assign(p.turn as object, { id: turnId, items: [] })));
        return;
    }
  }

  const sock = connect(port, "127.0.0.1");
  sock.setNoDelay(true);
  const reply = (m: unknown) => sock.write(JSON.stringify(m) + "\n");
  sock.on("connect", () => reply({ op: "hello", role }));
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

  return {
    steps: [],
    request(m) {
      if (m.method !== "turn/start") return false;
      turnNo++;
      turnId = `bench-turn-${turnNo}`;
      const r = api.sample("server response to turn/start");
      r.id = m.id;
      r.result.turn.id = turnId;
      api.send(r);
      api.send(onTurnScope("server notification turn/started", (p) => ((p.turn as { id: string }).id = turnId)));
      return true;
    },
    // A client's answer to one of our requests: Codex confirms it the same way.
    response(id) {
      api.send(onTurnScope("server notification serverRequest/resolved", (p) => (p.requestId = id)));
    },
  };
}
