// The task card's server side through the MCP surface, with a scripted app-server connection: who may answer under
// each `approvals` setting (the model's codex_respond or the card's codex_card_respond), what the ledger records,
// what the waits tell the model, the card's snapshot, and how the card and its app-only tools are declared.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { modelVisibleTools } from "../../bench/standard-task.ts";
import { createMcpServer } from "../../src/mcp/server.ts";
import { BridgeService, type HealthReport } from "../../src/service/bridge.ts";
import type { OpenedStore } from "../../src/store/open.ts";
import { Repo } from "../../src/store/repo.ts";
import { TaskDomain } from "../../src/tasks/domain.ts";
import { ArtifactReads } from "../../src/service/artifacts.ts";
import { viewReads } from "../../src/views/reads.ts";
import { CardKeys } from "../../src/tasks/card-keys.ts";
import type { FakeClient } from "../support/fake-codex-client.ts";
import { runningTask } from "../support/running-task.ts";

const TASK = "t_00000000ca";
const THREAD = "thread-card";
const ROOT = "/tmp/card-project";
type Approvals = "supervisor" | "person" | "either";
type S = Record<string, any>;

interface Setup {
  store: OpenedStore;
  repo: Repo;
  codex: FakeClient;
  client: Client;
  domain: TaskDomain;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** Codex asks to run a command; returns the request id the bridge gave it. */
  ask(rpcId: number): string;
  /** What the bridge logged (event and fields). */
  logged: { event: string; fields: Record<string, unknown> }[];
}

let open: Setup | null = null;
afterEach(async () => {
  await open?.client.close();
  open?.store.close();
  open = null;
});

const UI = { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } };

/** A bridge with one running task; the client declares the MCP Apps extension unless `viewHost` is false. */
async function setup(approvals: Approvals, opts: { viewHost?: boolean; clientName?: string } = {}): Promise<Setup> {
  const platform = await getPlatform();
  const { store, repo, codex, domain, settings, ask } = await runningTask({ task: TASK, thread: THREAD, root: ROOT, connectionId: "conn-card", approvals });
  const logged: Setup["logged"] = [];
  const log = (_level: string, event: string, fields: Record<string, unknown> = {}) => void logged.push({ event, fields });
  const artifacts = new ArtifactReads({ maxArtifactBytes: 1024, inlineArtifactBytes: 1024, sensitivePaths: [] }, () => ({ cwd: ROOT, allowHardLinks: false }));
  const service = new BridgeService(domain, viewReads(domain, repo, settings), artifacts, platform, async () => ({}) as HealthReport, log);
  const server = createMcpServer({ service, version: "test" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: opts.clientName ?? "card-test", version: "1" }, { capabilities: opts.viewHost === false ? {} : { extensions: UI } });
  await client.connect(a);
  open = {
    store,
    repo,
    codex,
    client,
    domain,
    logged,
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    ask: (rpcId) => ask(rpcId),
  };
  return open;
}

const text = (r: CallToolResult) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
const sc = (r: CallToolResult) => (r.structuredContent ?? {}) as S;
const respond = (s: Setup, request_id: string, action = "accept") => s.call("codex_respond", { task_id: TASK, request_id, action });
/** The card's key as the card receives it: in the _meta of a task tool's result. */
async function cardKey(s: Setup): Promise<string> {
  const r = await s.call("codex_status", { task_id: TASK });
  return ((r._meta ?? {}) as S)["codex-bridge/card-keys"][TASK];
}
const click = async (s: Setup, request_id: string, action = "accept") =>
  s.call("codex_card_respond", { task_id: TASK, request_id, action, card_key: await cardKey(s) });

describe("who answers under approvals = person | supervisor | either", () => {
  it("person: the model's codex_respond is refused with a sentence naming the card; the card's click is taken and recorded", async () => {
    const s = await setup("person");
    const id = s.ask(1);
    const refused = await respond(s, id);
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/the person's to decide.*approvals = "person".*task card/);
    expect(s.codex.writes).toEqual([]);
    expect(s.repo.interaction(id)!.state).toBe("pending");

    const taken = await click(s, id);
    expect(taken.isError, text(taken)).toBeFalsy();
    expect(sc(taken)).toMatchObject({ request_id: id, state: "submitted", answered_by: "person on the task card" });
    expect(s.codex.writes).toEqual([{ id: 1, result: { decision: "accept" } }]);
    expect(s.repo.interaction(id)!.answered_by).toBe("person on the task card");
  });

  it("supervisor (the default): the card's click is refused; codex_respond is taken and recorded as the supervisor's", async () => {
    const s = await setup("supervisor");
    const id = s.ask(2);
    const refused = await click(s, id);
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/approvals = "supervisor"/);
    expect(s.codex.writes).toEqual([]);

    const taken = await respond(s, id, "decline");
    expect(taken.isError, text(taken)).toBeFalsy();
    expect(s.codex.writes).toEqual([{ id: 2, result: { decision: "decline" } }]);
    expect(s.repo.interaction(id)!.answered_by).toBe("supervisor");
  });

  it("either: whoever answers first is recorded; the other's different answer is refused as already answered", async () => {
    const s = await setup("either");
    const first = s.ask(3);
    expect((await click(s, first)).isError).toBeFalsy();
    expect(s.repo.interaction(first)!.answered_by).toBe("person on the task card");
    const late = await respond(s, first, "decline");
    expect(text(late)).toMatch(/already answered/);
    const second = s.ask(4);
    expect((await respond(s, second)).isError).toBeFalsy();
    expect(s.repo.interaction(second)!.answered_by).toBe("supervisor");
  });

  it("person: the wait tells the model the person decides, and later waits are not cut short by that request", async () => {
    const s = await setup("person");
    const id = s.ask(5);
    const first = await s.call("codex_wait", { task_id: TASK, timeout_seconds: 5 });
    expect(text(first)).toContain(`${id} awaits the person's decision on the task card`);
    expect(text(first)).not.toContain(`codex_respond ${id}`);
    expect(sc(first).requests[0]).toMatchObject({ request_id: id, command: "npm test" });
    const second = await s.call("codex_wait", { task_id: TASK, timeout_seconds: 1 });
    // A no-news answer: the request is not repeated and did not end the wait early.
    expect(sc(second).requests).toBeUndefined();
    expect(text(second)).not.toContain(id);
  });

  it("supervisor: the wait names codex_respond and keeps returning while the request is open", async () => {
    const s = await setup("supervisor");
    const id = s.ask(6);
    await s.call("codex_wait", { task_id: TASK, timeout_seconds: 5 });
    const again = await s.call("codex_wait", { task_id: TASK, timeout_seconds: 5 });
    expect(text(again)).toContain(`codex_respond ${id}`);
  });
});

describe("the card's snapshot (codex_card)", () => {
  it("shows the pending request in full, then who answered it; an unchanged snapshot is not sent again", async () => {
    const s = await setup("person");
    const id = s.ask(7);
    const card = sc(await s.call("codex_card", { task_id: TASK }));
    expect(card).toMatchObject({ task_id: TASK, project_id: "demo", state: "waiting_for_approval", settled: false, approvals: "person", prompt: "build it" });
    expect(card.doing).toBe("waiting for a decision: command `npm test`");
    expect(card.requests).toEqual([
      { request_id: id, kind: "command", command: "npm test", cwd: `${ROOT}/pkg`, reason: "run the tests", decisions: ["accept", "decline", "cancel"], state: "pending" },
    ]);
    const same = await s.call("codex_card", { task_id: TASK, since: card.version });
    expect(sc(same)).toEqual({ unchanged: true, version: card.version });

    await click(s, id);
    const after = sc(await s.call("codex_card", { task_id: TASK, since: card.version }));
    expect(after.unchanged).toBeUndefined();
    expect(after.requests[0]).toMatchObject({ request_id: id, state: "submitted", answered_by: "person on the task card", answer: "accept" });
  });

  it("names a field and its fix for bad input, and an unknown task", async () => {
    const s = await setup("person");
    expect(text(await s.call("codex_card", { task_id: "nope" }))).toMatch(/task_id/);
    expect(text(await s.call("codex_card", { task_id: "t_0000000000" }))).toMatch(/task_id "t_0000000000" is unknown/);
  });
});

describe("how the card is declared", () => {
  it("the four task tools declare the card (new and legacy key); the card's own tools are app-only and left out of the model's listing", async () => {
    const s = await setup("supervisor");
    const list = await s.client.listTools();
    const byName = new Map(list.tools.map((t) => [t.name, t]));
    for (const name of ["codex_start", "codex_wait", "codex_status", "codex_result"]) {
      const meta = byName.get(name)!._meta as S;
      expect(meta.ui.resourceUri, name).toBe("ui://codex-bridge/task.html");
      expect(meta["ui/resourceUri"], name).toBe("ui://codex-bridge/task.html");
    }
    for (const name of ["codex_card", "codex_card_respond"]) expect((byName.get(name)!._meta as S).ui.visibility).toEqual(["app"]);
    const seen = modelVisibleTools(list).tools.map((t) => t.name);
    expect(seen).not.toContain("codex_card");
    expect(seen).not.toContain("codex_card_respond");
    expect(seen).toContain("codex_respond");
    expect(JSON.stringify(modelVisibleTools(list)).length).toBeLessThanOrEqual(12_000);
  });

  it("serves the card as one self-contained MCP Apps page under 150 KB", async () => {
    const s = await setup("supervisor");
    const r = await s.client.readResource({ uri: "ui://codex-bridge/task.html" });
    const page = r.contents[0] as { mimeType: string; text: string };
    expect(page.mimeType).toBe("text/html;profile=mcp-app");
    expect(Buffer.byteLength(page.text)).toBeLessThan(150 * 1024);
    expect(page.text).not.toMatch(/<script[^>]+src=|<iframe|<link[^>]+href=|blob:/i);
    // Exactly one script element: nothing inside it closes it early.
    expect(page.text.match(/<\/script/gi)).toHaveLength(1);
    expect(page.text).toContain("prefers-color-scheme:dark");
  });
});

// The model is the attacker: it reads content and structuredContent (never _meta), may call every tool its host lists
// (Claude Code and Gemini CLI ignore _meta.ui.visibility), and makes up arguments.
describe("only the card can answer as the person (approvals = person)", () => {
  /** Every listed tool with the arguments a model would try; returns everything the calls gave back. */
  async function callEverything(s: Setup, id: string): Promise<CallToolResult[]> {
    const guesses: Record<string, Record<string, unknown>> = {
      codex_respond: { task_id: TASK, request_id: id, action: "accept" },
      codex_card_respond: { task_id: TASK, request_id: id, action: "accept" },
      codex_card: { task_id: TASK },
      codex_wait: { task_id: TASK, timeout_seconds: 0 },
    };
    const out: CallToolResult[] = [];
    for (const t of (await s.client.listTools()).tools) out.push(await s.call(t.name, guesses[t.name] ?? { task_id: TASK }));
    return out;
  }

  it("a client that shows no views (Claude Code, Gemini CLI) is not offered the card's tools, and calling them anyway answers nothing", async () => {
    const s = await setup("person", { viewHost: false });
    const id = s.ask(20);
    const names = (await s.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("codex_respond");
    expect(names).not.toContain("codex_card");
    expect(names).not.toContain("codex_card_respond");
    const everything = await callEverything(s, id);
    // Not even the whole result (_meta included) of any listed tool carries a card key.
    expect(JSON.stringify(everything)).not.toContain("card-keys");
    for (const card_key of [undefined, "A".repeat(32)]) {
      const r = await s.call("codex_card_respond", { task_id: TASK, request_id: id, action: "accept", ...(card_key ? { card_key } : {}) });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/codex_card_respond disabled/);
    }
    expect(s.codex.writes).toEqual([]);
    expect(s.repo.interaction(id)!).toMatchObject({ state: "pending", answered_by: null });
  });

  it("in a view host, what the model reads never holds the key; without it (or with another task's) the call is refused, logged, nothing answered", async () => {
    const s = await setup("person");
    const id = s.ask(21);
    const key = await cardKey(s);
    expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const everything = await callEverything(s, id);
    const modelReads = JSON.stringify(everything.map((r) => ({ content: r.content, structuredContent: r.structuredContent })));
    expect(modelReads).not.toContain(key);
    // The card's snapshot, the wait and the status each carry it in _meta, for the view.
    for (const r of everything.filter((x) => !x.isError && x.structuredContent && "task_id" in x.structuredContent)) expect(JSON.stringify(r._meta)).toContain(key);

    const otherTask = new CardKeys().keyFor(TASK);
    for (const card_key of [undefined, otherTask, key.slice(0, 31) + (key.endsWith("A") ? "B" : "A")]) {
      const r = await s.call("codex_card_respond", { task_id: TASK, request_id: id, action: "accept", ...(card_key ? { card_key } : {}) });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/card_key.*Nothing was answered/);
    }
    expect(s.codex.writes).toEqual([]);
    expect(s.repo.interaction(id)!).toMatchObject({ state: "pending", answered_by: null });
    expect(s.logged.filter((l) => l.event === "person_answer_refused").map((l) => l.fields.reason)).toEqual(expect.arrayContaining(["no_key", "wrong_key"]));

    const taken = await s.call("codex_card_respond", { task_id: TASK, request_id: id, action: "accept", card_key: key });
    expect(taken.isError, text(taken)).toBeFalsy();
    expect(s.codex.writes).toEqual([{ id: 21, result: { decision: "accept" } }]);
    expect(s.repo.interaction(id)!.answered_by).toBe("person on the task card");
  });

  it("the key expires with its task: once the task has settled it is refused", async () => {
    const s = await setup("either");
    const id = s.ask(22);
    const key = await cardKey(s);
    s.repo.updateTask(TASK, { state: "completed" });
    const r = await s.call("codex_card_respond", { task_id: TASK, request_id: id, action: "accept", card_key: key });
    expect(text(r)).toMatch(/completed: its card key has expired/);
    expect(s.codex.writes).toEqual([]);
    expect(s.logged.at(-1)).toMatchObject({ event: "person_answer_refused", fields: { reason: "settled" } });
  });

  it("ChatGPT, recognised by its client name, gets the card's tools and keys without declaring the extension", async () => {
    const s = await setup("person", { viewHost: false, clientName: "openai-mcp" });
    const names = (await s.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["codex_card", "codex_card_respond"]));
    expect(await cardKey(s)).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });
});
