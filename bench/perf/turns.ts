// Turns through the real app-server and the loopback mock model: trivial turns of one task (the bridge through the
// MCP SDK client driving the binary; raw = the same turns sent straight to an app-server over JSONL), interleaved turn
// by turn; the bridge's memory and CPU per turn along the way; and a 5,000-delta message on both sides.
import { getPlatform } from "../../platform/index.ts";
import { splitIntoDeltas } from "../../src/selftest/mock-provider/index.ts";
import { textInput } from "../../src/codex/protocol/turn.ts";
import { RELAY_TOOL_SPEC } from "../../src/tasks/relay-tool.ts";
import type { JsonlPeer } from "./jsonl-peer.ts";
import { cpuMs, rssMiB } from "./procfs.ts";
import { nowMs } from "./stats.ts";
import { spawnBridge, spawnRawAppServer, structured, type BridgeClient, type World } from "./world.ts";

const SETTLED = new Set(["completed", "failed", "interrupted", "connection_lost", "unknown"]);
export const DELTAS = 5_000;

/** codex_wait (defaults) until it reports the turn's end; the arrival time of that answer. */
async function waitTurnEnd(b: BridgeClient, taskId: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const w = structured(await b.call("codex_wait", { task_id: taskId }));
    if (w.turn !== undefined || SETTLED.has(String(w.state))) return nowMs();
  }
  throw new Error(`task ${taskId}: the turn did not end within 200 waits`);
}

class RawThread {
  constructor(private readonly peer: JsonlPeer, readonly threadId: string, private readonly cwd: string) {}

  static async start(peer: JsonlPeer, cwd: string): Promise<RawThread> {
    // What the bridge asks for on codex_start with the default profile: the relay tool included.
    const r = await peer.request<{ thread: { id: string } }>("thread/start", { cwd, approvalPolicy: "never", sandbox: "workspace-write", dynamicTools: [RELAY_TOOL_SPEC] });
    return new RawThread(peer, r.thread.id, cwd);
  }

  /** turn/start and the wait for its turn/completed; the arrival time of turn/completed. */
  async turn(text: string): Promise<number> {
    const done = this.peer.next((m) => m.method === "turn/completed" && m.params?.threadId === this.threadId);
    await this.peer.request("turn/start", {
      threadId: this.threadId,
      input: textInput(text),
      approvalPolicy: "never",
      sandboxPolicy: { type: "workspaceWrite", writableRoots: [this.cwd], networkAccess: false, excludeTmpdirEnvVar: false, excludeSlashTmp: false },
    });
    return (await done).at;
  }
}

export interface TurnFigures {
  turns: number;
  /** Latency of turns 2..turns, in order (index 0 is turn 2). */
  raw: number[];
  bridge: number[];
  rssAfterFirstTurnMiB: number | null;
  rssAfterLastTurnMiB: number | null;
  /** CPU time per turn over turns 2..turns: the raw app-server's, and the bridge process's own (its app-server not included). */
  rawCpuPerTurnMs: number | null;
  bridgeCpuPerTurnMs: number | null;
  deltas: DeltaFigures;
}

export interface DeltaFigures {
  runs: number;
  /** turn start → terminal seen. */
  raw: number[];
  bridge: number[];
  /** mock finished streaming → terminal seen. */
  rawAfterMock: number[];
  bridgeAfterMock: number[];
  rawLost: number;
  bridgeLost: number;
}

/** How many of the message's deltas are missing from `got`, taken in order. */
function lostDeltas(pieces: string[], got: string): number {
  let at = 0;
  let lost = 0;
  for (const p of pieces) {
    const i = got.indexOf(p, at);
    if (i === at) at += p.length;
    else lost++;
  }
  return lost;
}

/**
 * The message as the bridge stored it once complete (stored once: its streamed chunks are gone by then): the task's
 * final answer while the turn is the task's last, else the answer moved into the turn's item, else its message event.
 */
async function storedMessageText(statePath: string, taskId: string, turnMarker: string): Promise<string> {
  const db = await (await getPlatform()).openDatabase(statePath);
  const text = (data: unknown): string => String((JSON.parse(String(data)) as { text?: string }).text ?? "");
  try {
    const turn = db.prepare(`SELECT turn_id FROM events WHERE task_id = ? AND kind = 'user_message' AND data LIKE ? ORDER BY seq DESC LIMIT 1`).get(taskId, `%${turnMarker}%`);
    const turnId = String(turn?.turn_id ?? "");
    const task = db.prepare(`SELECT turn_id, final_message FROM tasks WHERE id = ?`).get(taskId);
    if (task?.turn_id === turnId && typeof task.final_message === "string") return task.final_message;
    const item = db.prepare(`SELECT data FROM items WHERE task_id = ? AND turn_id = ? AND type = 'agentMessage' ORDER BY rowid DESC LIMIT 1`).get(taskId, turnId);
    if (item && text(item.data)) return text(item.data);
    const event = db.prepare(`SELECT data FROM events WHERE task_id = ? AND turn_id = ? AND kind = 'message' ORDER BY seq DESC LIMIT 1`).get(taskId, turnId);
    return event ? text(event.data) : "";
  } finally {
    db.close();
  }
}

export async function measureTurns(world: World, binary: string, turns: number, deltaRuns: number, log: (s: string) => void): Promise<TurnFigures> {
  const raw = await spawnRawAppServer(world.codexBin, world.codexEnv("turns-raw"), world.projectDir);
  const env = world.bridgeEnv("turns");
  const bridge = await spawnBridge(binary, env, world.projectDir);
  try {
    const thread = await RawThread.start(raw, world.projectDir);
    await thread.turn("turn 1");
    const start = structured(await bridge.call("codex_start", { project_id: "demo", prompt: "turn 1" }));
    const taskId = String(start.task_id);
    await waitTurnEnd(bridge, taskId);
    const rssAfterFirstTurnMiB = rssMiB(bridge.pid);
    const cpu0 = cpuMs(bridge.pid);
    const rawCpu0 = cpuMs(raw.pid);
    const out: TurnFigures = { turns, raw: [], bridge: [], rssAfterFirstTurnMiB, rssAfterLastTurnMiB: null, rawCpuPerTurnMs: null, bridgeCpuPerTurnMs: null, deltas: { runs: deltaRuns, raw: [], bridge: [], rawAfterMock: [], bridgeAfterMock: [], rawLost: 0, bridgeLost: 0 } };
    for (let i = 2; i <= turns; i++) {
      // The mock keeps every request it got, each holding the whole conversation so far: forget them, or the
      // benchmark's own memory grows with the square of the turns and its collections slow both sides.
      world.provider.requests.length = 0;
      let t0 = nowMs();
      out.raw.push((await thread.turn(`turn ${i}`)) - t0);
      t0 = nowMs();
      await bridge.call("codex_send", { task_id: taskId, message: `turn ${i}` });
      out.bridge.push((await waitTurnEnd(bridge, taskId)) - t0);
      if (i % 50 === 0) log(`  turn ${i}/${turns}`);
    }
    const perTurn = (a: number | null, b: number | null) => (a !== null && b !== null && turns > 1 ? (b - a) / (turns - 1) : null);
    out.bridgeCpuPerTurnMs = perTurn(cpu0, cpuMs(bridge.pid));
    out.rawCpuPerTurnMs = perTurn(rawCpu0, cpuMs(raw.pid));
    out.rssAfterLastTurnMiB = rssMiB(bridge.pid);

    const text = Array.from({ length: DELTAS }, (_, i) => `w${i}`).join(" ") + ".";
    const pieces = splitIntoDeltas(text, DELTAS);
    const message = { kind: "output" as const, items: [{ type: "message" as const, text, deltas: DELTAS }] };
    for (let r = 0; r < deltaRuns; r++) {
      // Raw: every delta notification of this turn (counted, not parsed), and the terminal.
      let deltasSeen = 0;
      raw.skipLine = (line) => line.includes('"method":"item/agentMessage/delta"') && ++deltasSeen > 0;
      world.provider.enqueue(message);
      let t0 = nowMs();
      let end = await thread.turn(`deltas raw ${r}`);
      raw.skipLine = null;
      out.deltas.raw.push(end - t0);
      out.deltas.rawAfterMock.push(end - (world.provider.requests.at(-1)?.finishedAt ?? NaN));
      out.deltas.rawLost += Math.max(0, DELTAS - deltasSeen);

      world.provider.enqueue(message);
      const marker = `deltas bridge ${r}`;
      t0 = nowMs();
      await bridge.call("codex_send", { task_id: taskId, message: marker });
      end = await waitTurnEnd(bridge, taskId);
      out.deltas.bridge.push(end - t0);
      out.deltas.bridgeAfterMock.push(end - (world.provider.requests.at(-1)?.finishedAt ?? NaN));
      out.deltas.bridgeLost += lostDeltas(pieces, await storedMessageText(env.CODEX_BRIDGE_STATE!, taskId, marker));
    }
    return out;
  } finally {
    await bridge.close();
    await raw.close();
  }
}
