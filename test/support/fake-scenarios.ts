// Scripted misbehaviours of the fake app-server for the UNKNOWN recovery tests: acknowledgements withheld or late,
// terminal and status notifications in chosen orders, thread/read answers held back. Messages are the real 0.171.0
// samples with ids replaced. The test advances a script one step per `thread/loaded/list` request it sends; the step's
// messages are written before that request's answer, so they are processed by the time the test's await returns.

export interface FakeApi {
  send(m: unknown): void;
  sample(key: string): Record<string, any>;
  newId(): string;
  /** Thread ids handed out by thread/start, in order. */
  threads: string[];
}

export interface Scenario {
  /** Return true when the scenario took care of (or deliberately ignored) this request. */
  request?(m: { id: number; method: string; params: Record<string, any> }): boolean;
  /** The client answered one of the fake's requests. */
  response?(id: unknown): void;
  steps: (() => void)[];
}

export function turnObject(api: FakeApi, id: string, status: string): Record<string, any> {
  const t = api.sample("server notification turn/completed (completed)").params.turn;
  return { ...t, id, rootTurnId: id, status, items: status === "inProgress" ? [] : t.items };
}

const ack = (api: FakeApi, rpcId: number, turn: Record<string, any>) => {
  const r = api.sample("server response to turn/start");
  api.send({ id: rpcId, result: { turn: { ...r.result.turn, ...turn } } });
};
const status = (api: FakeApi, threadId: string, type: "idle" | "active") => {
  const n = api.sample("server notification thread/status/changed");
  api.send({ ...n, params: { threadId, status: type === "idle" ? { type } : { type, activeFlags: [] } } });
};
const started = (api: FakeApi, threadId: string, turnId: string) => {
  const n = api.sample("server notification turn/started");
  api.send({ ...n, params: { threadId, turn: turnObject(api, turnId, "inProgress") } });
};
const completed = (api: FakeApi, threadId: string, turnId: string, s = "completed") => {
  const n = api.sample("server notification turn/completed (completed)");
  api.send({ ...n, params: { threadId, turn: turnObject(api, turnId, s) } });
};
const readAnswer = (api: FakeApi, rpcId: number, threadId: string, type: string, turns: Record<string, any>[]) => {
  const r = api.sample("server response to thread/read");
  api.send({ id: rpcId, result: { ...r.result, thread: { ...r.result.thread, id: threadId, status: { type }, turns } } });
};

export function scenario(mode: string, api: FakeApi): Scenario | null {
  const turnStarts: number[] = [];
  const reads: number[] = [];
  const turn = api.newId();
  const other = api.newId();
  const thread = () => api.threads[api.threads.length - 1]!;
  const withheld = (m: { id: number; method: string }) => {
    if (m.method === "turn/start") turnStarts.push(m.id);
    return m.method === "turn/start";
  };
  switch (mode) {
    // The ack comes late, names a well-formed turn in a supported status; then the turn ends.
    case "late-ack":
      return {
        request: withheld,
        steps: [
          () => {
            ack(api, turnStarts[0]!, { id: turn, status: "inProgress" });
            started(api, thread(), turn);
          },
          () => {
            status(api, thread(), "idle");
            completed(api, thread(), turn);
          },
        ],
      };
    // The first task's turn/start is answered at once; the second one's late ack names the first task's turn.
    case "late-ack-foreign":
      return {
        request: (m) => {
          if (m.method !== "turn/start") return false;
          turnStarts.push(m.id);
          if (turnStarts.length === 1) {
            ack(api, m.id, { id: turn, status: "inProgress" });
            started(api, thread(), turn);
          }
          return true;
        },
        steps: [() => ack(api, turnStarts[1]!, { id: turn, status: "inProgress" })],
      };
    // The late ack only ties the request to its turn; then weaker evidence, then terminal plus idle for that turn.
    case "bind-then-terminal":
      return {
        request: withheld,
        steps: [
          () => ack(api, turnStarts[0]!, { id: turn, status: "queued" }),
          () => status(api, thread(), "idle"),
          () => {
            status(api, thread(), "active");
            completed(api, "01a2ffff-0000-7000-8000-000000000000", turn);
            completed(api, thread(), other);
          },
          () => completed(api, thread(), turn),
          () => status(api, thread(), "idle"),
        ],
      };
    // thread/read answers: the first is held until step 2 and shows a turn the later request would match.
    case "stale-read":
      return {
        request: (m) => {
          if (withheld(m)) return true;
          if (m.method !== "thread/read") return false;
          reads.push(m.id);
          if (reads.length > 1) readAnswer(api, m.id, thread(), "idle", [turnObject(api, turn, "completed"), turnObject(api, other, "completed")]);
          return true;
        },
        steps: [
          () => {
            ack(api, turnStarts[0]!, { id: turn, status: "inProgress" });
            status(api, thread(), "idle");
            completed(api, thread(), turn);
          },
          () => readAnswer(api, reads[0]!, thread(), "idle", [turnObject(api, turn, "completed"), turnObject(api, other, "completed")]),
        ],
      };
    // No ack ever; thread/read shows the thread idle with the one new turn ended.
    case "read-settles":
      return {
        request: (m) => {
          if (withheld(m)) return true;
          if (m.method !== "thread/read") return false;
          readAnswer(api, m.id, thread(), "idle", [turnObject(api, turn, "completed")]);
          return true;
        },
        steps: [],
      };
    // No ack ever; thread/read shows the thread active with one new turn running, which turn/interrupt then ends.
    case "read-active":
      return {
        request: (m) => {
          if (withheld(m)) return true;
          if (m.method === "thread/read") {
            readAnswer(api, m.id, thread(), "active", [turnObject(api, turn, "inProgress")]);
            return true;
          }
          if (m.method !== "turn/interrupt" || m.params.turnId !== turn) return false;
          api.send({ id: m.id, result: {} });
          status(api, thread(), "idle");
          completed(api, thread(), turn, "interrupted");
          return true;
        },
        steps: [],
      };
    // The settings report comes after the turn/start's acknowledgement instead of before it.
    case "settings-after-ack": {
      let asked: Record<string, any> = {};
      return {
        request: (m) => {
          if (m.method !== "turn/start") return false;
          asked = m.params;
          ack(api, m.id, { id: turn, status: "inProgress" });
          started(api, thread(), turn);
          return true;
        },
        steps: [
          () => {
            const n = api.sample("server notification thread/settings/updated");
            const settings = { ...n.params.threadSettings, model: asked.model, effort: asked.effort, serviceTier: asked.serviceTier ?? null };
            api.send({ ...n, params: { threadId: thread(), threadSettings: settings } });
          },
        ],
      };
    }
    // A valid ack, but only after the correlation expired.
    case "expire":
      return { request: withheld, steps: [() => ack(api, turnStarts[0]!, { id: turn, status: "inProgress" })] };
    default:
      return null;
  }
}
