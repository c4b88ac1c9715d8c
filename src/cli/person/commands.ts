// `codex-bridge tasks | watch | pending | approve | decline | answer | cancel`: the person at the machine talking to
// the running bridge over its owner-only control endpoint. Exit status: 0 done, 1 the bridge refused (the reason is
// printed), 2 usage error, 3 no bridge running (or its endpoint unreachable).
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { Platform } from "../../../platform/types.ts";
import type { PendingRequest, TaskLine } from "../../service/person.ts";
import { commandHelp } from "../help.ts";
import { ControlUnavailable, locate, open, type Connection } from "./client.ts";
import { pendingText, taskTable, watchLine } from "./format.ts";

export const PERSON_COMMANDS = ["tasks", "watch", "pending", "approve", "decline", "answer", "cancel"] as const;
type PersonCommand = (typeof PERSON_COMMANDS)[number];

const out = (s: string) => process.stdout.write(`${s}\n`);
const err = (s: string) => process.stderr.write(`${s}\n`);

class Usage extends Error {}

export async function runPerson(platform: Platform, cmd: PersonCommand, args: string[]): Promise<number> {
  try {
    return await run(platform, cmd, args);
  } catch (e) {
    if (e instanceof Usage) {
      err(`codex-bridge ${cmd}: ${e.message}\n\n${commandHelp(cmd) ?? ""}`);
      return 2;
    }
    if (e instanceof ControlUnavailable) {
      err(`codex-bridge ${cmd}: ${e.message}`);
      return 3;
    }
    throw e;
  }
}

function parse(args: string[], options: ParseArgsConfig["options"], positionals: [number, number]) {
  let r: ReturnType<typeof parseArgs>;
  try {
    r = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new Usage((e as Error).message);
  }
  const [min, max] = positionals;
  if (r.positionals.length < min) throw new Usage(min === 1 ? "say which one" : `expected ${min} arguments`);
  if (r.positionals.length > max) throw new Usage(`unexpected argument "${r.positionals[max]}"`);
  return r as { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] };
}

/** The one reply of a request: its result, or the bridge's refusal printed (exit 1). */
async function once(c: Connection): Promise<{ result: unknown } | { code: number }> {
  const reply = await c.next();
  c.close();
  if (reply === null) throw new ControlUnavailable("the bridge closed the connection without an answer");
  if ("ok" in reply && reply.ok) return { result: reply.result };
  if ("ok" in reply) {
    err(reply.error);
    return { code: 1 };
  }
  throw new ControlUnavailable("the bridge answered out of turn");
}

async function run(platform: Platform, cmd: PersonCommand, args: string[]): Promise<number> {
  switch (cmd) {
    case "tasks": {
      const { values } = parse(args, { all: { type: "boolean" }, json: { type: "boolean" } }, [0, 0]);
      const r = await once(await open(locate(platform), { cmd: "tasks", all: values.all === true }));
      if ("code" in r) return r.code;
      out(values.json ? JSON.stringify(r.result, null, 1) : taskTable(r.result as TaskLine[], values.all === true));
      return 0;
    }
    case "pending": {
      const { values } = parse(args, { json: { type: "boolean" } }, [0, 0]);
      const r = await once(await open(locate(platform), { cmd: "pending" }));
      if ("code" in r) return r.code;
      out(values.json ? JSON.stringify(r.result, null, 1) : pendingText(r.result as PendingRequest[]));
      return 0;
    }
    case "watch": {
      const { positionals } = parse(args, {}, [0, 1]);
      return watch(await open(locate(platform), { cmd: "watch", ...(positionals[0] ? { task_id: positionals[0] } : {}) }), positionals[0]);
    }
    case "approve":
    case "decline": {
      const { values, positionals } = parse(args, cmd === "approve" ? { "for-session": { type: "boolean" } } : {}, [1, 1]);
      const body = { cmd: "decide" as const, request_id: positionals[0]!, verdict: cmd === "approve" ? ("approve" as const) : ("decline" as const), for_session: values["for-session"] === true };
      return said(await once(await open(locate(platform), body)));
    }
    case "answer": {
      const { values, positionals } = parse(args, { answer: { type: "string", multiple: true } }, [1, 2]);
      const pairs = (values.answer as string[] | undefined) ?? [];
      if (positionals[1] === undefined && pairs.length === 0) throw new Usage("give the answer: codex-bridge answer REQUEST TEXT, or --answer ID=TEXT for each question");
      if (positionals[1] !== undefined && pairs.length > 0) throw new Usage("give either one TEXT or --answer ID=TEXT pairs, not both");
      const byId: Record<string, string> = {};
      for (const p of pairs) {
        const eq = p.indexOf("=");
        if (eq <= 0) throw new Usage(`--answer ${p}: expected ID=TEXT (codex-bridge pending shows the question ids)`);
        byId[p.slice(0, eq)] = p.slice(eq + 1);
      }
      const body = { cmd: "answer" as const, request_id: positionals[0]!, ...(positionals[1] !== undefined ? { single: positionals[1] } : { by_id: byId }) };
      return said(await once(await open(locate(platform), body)));
    }
    case "cancel": {
      const { positionals } = parse(args, {}, [1, 1]);
      const r = await once(await open(locate(platform), { cmd: "cancel", task_id: positionals[0]! }));
      if ("code" in r) return r.code;
      const c = r.result as { task?: { state?: string }; note?: string };
      out(`${positionals[0]}: ${c.task?.state ?? "cancel requested"}${c.note ? `. ${c.note}` : ""}`);
      return 0;
    }
  }
}

function said(r: { result: unknown } | { code: number }): number {
  if ("code" in r) return r.code;
  const a = r.result as { request_id: string; task_id: string; action: string; state: string; answered_by: string; repeated: boolean };
  out(`${a.request_id} (${a.task_id}): ${a.action} sent, answered_by ${a.answered_by}, now ${a.state}${a.repeated ? " (the same answer was given before; nothing resent)" : ""}`);
  return 0;
}

async function watch(c: Connection, taskId: string | undefined): Promise<number> {
  const first = await c.next();
  if (first === null) throw new ControlUnavailable("the bridge closed the connection without an answer");
  if ("ok" in first && !first.ok) {
    err(first.error);
    c.close();
    return 1;
  }
  const live = ((("result" in first ? first.result : {}) ?? {}) as { live?: string[] }).live ?? [];
  err(taskId ? `watching ${taskId} (Ctrl-C to stop)` : `watching every task; live now: ${live.join(", ") || "none"} (Ctrl-C to stop)`);
  const stop = () => {
    c.close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  for (;;) {
    const r = await c.next(0);
    if (r === null) {
      err("the bridge closed the watch (it stopped)");
      return 0;
    }
    if ("line" in r) out(watchLine(r.line));
    else if ("bye" in r) err(`the bridge says: ${r.bye}`);
    else if ("ok" in r && !r.ok) err(r.error);
  }
}
