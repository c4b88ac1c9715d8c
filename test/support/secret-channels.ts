// Test support: puts the secret corpus through every channel a secret can reach the bridge by (the supervisor's
// prompt, messages, cancel reasons, tool results, answers and checkpoints; Codex's messages, commands, command output,
// approvals, diffs and failures; thread previews; the app-server's stderr; errors that echo an input), then reads
// back everything the tools return and the raw bytes of the state database and its WAL, and reports every leak.
// Driven in-process (the harness) by npm test and as a real process (source or binary) by the reliability suite.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MockProvider, MockResponse } from "../../src/selftest/mock-provider/index.ts";
import { leakProbes, SECRET_CORPUS, type SecretCase } from "./secret-corpus.ts";

export interface CallOutcome {
  isError: boolean;
  structured: Record<string, any>;
  /** The whole result as the client received it, serialized. */
  raw: string;
}

export interface ChannelBridge {
  call(name: string, args: Record<string, unknown>): Promise<CallOutcome>;
  provider: MockProvider;
  /** The state database; its -wal and -shm siblings are read too. */
  statePath: string;
  /** Hands the bridge a question and an elicitation for the task (Codex cannot be made to ask them on demand). */
  injectRequests?(taskId: string): void;
}

export interface LeakReport {
  /** (format, channel) pairs sent. */
  placements: number;
  channels: string[];
  formats: number;
  resultsRead: number;
  bytesRead: number;
  leaks: string[];
  /** Channels for which no redacted trace was found: the secrets may not have gone through them at all. */
  unproven: string[];
}

// A key block without its END hides everything after it, so it goes last: every other secret must be found by its own rule.
const ORDERED = [...SECRET_CORPUS.filter((c) => !c.text.includes("BEGIN") || c.text.includes("-----END")), ...SECRET_CORPUS.filter((c) => c.text.includes("BEGIN") && !c.text.includes("-----END"))];

/** Every corpus text, one per line: what each channel carries. */
export const CORPUS_TEXT = ORDERED.map((c) => c.text).join("\n");
/** The project file the scripted command prints. */
export const SECRETS_FILE = "notes/secrets.txt";

/** The project files the scenario needs. */
export function secretProjectFiles(): Record<string, string> {
  return { "README.md": "# secrets project\n", [SECRETS_FILE]: `${CORPUS_TEXT}\n` };
}

/**
 * A stand-in CODEX_BIN that becomes the real codex (exec keeps its pid) while a helper prints the corpus on the same
 * stderr every 300 ms for as long as that pid lives, so the app-server's stderr tail holds secrets whenever it dies.
 */
export function writeStderrWrapper(dir: string, realCodex: string): string {
  const corpus = join(dir, "stderr-corpus.txt");
  writeFileSync(corpus, `${CORPUS_TEXT}\n`);
  const wrapper = join(dir, "codex-with-secret-stderr.sh");
  const loop = `( while kill -0 $$ 2>/dev/null; do cat ${JSON.stringify(corpus)} >&2; sleep 0.3; done ) &`;
  writeFileSync(wrapper, `#!/bin/sh\n${loop}\nexec ${JSON.stringify(realCodex)} "$@"\n`);
  chmodSync(wrapper, 0o755);
  return wrapper;
}

const SETTLED = new Set(["completed", "failed", "interrupted", "connection_lost", "unknown"]);
const oneLine = SECRET_CORPUS.filter((c) => !/['\n\\]/.test(c.text));

/** Splits the corpus into pieces of at most `max` characters, whole cases only. */
function chunks(max: number): SecretCase[][] {
  const out: SecretCase[][] = [[]];
  let size = 0;
  for (const c of ORDERED) {
    if (size + c.text.length + 1 > max && out.at(-1)!.length) {
      out.push([]);
      size = 0;
    }
    out.at(-1)!.push(c);
    size += c.text.length + 1;
  }
  return out;
}
const joined = (cases: SecretCase[]) => cases.map((c) => c.text).join("\n");

export async function pushSecretsThroughEveryChannel(b: ChannelBridge): Promise<LeakReport> {
  const results: string[] = [];
  const placements = new Map<string, number>();
  const placed = (channel: string, n = SECRET_CORPUS.length) => placements.set(channel, (placements.get(channel) ?? 0) + n);
  const call = async (name: string, args: Record<string, unknown>): Promise<CallOutcome> => {
    const r = await b.call(name, args);
    results.push(r.raw);
    return r;
  };
  const ok = async (name: string, args: Record<string, unknown>) => {
    const r = await call(name, args);
    if (r.isError) throw new Error(`${name} failed: ${r.raw.slice(0, 500)}`);
    return r.structured;
  };
  const waitFor = async (taskId: string, until: (s: Record<string, any>) => boolean) => {
    for (let i = 0; i < 60; i++) {
      const s = await ok("codex_wait", { task_id: taskId, timeout_seconds: 10 });
      if (until(s)) return s;
    }
    throw new Error(`task ${taskId} never reached the expected point`);
  };
  const settle = (taskId: string) => waitFor(taskId, (s) => SETTLED.has(s.state));
  const script = (...r: MockResponse[]) => b.provider.enqueue(...r);
  const tasks: string[] = [];
  const proofs = new Map<string, boolean>();
  const prove = (channel: string, seen: boolean) => proofs.set(channel, (proofs.get(channel) ?? false) || seen);
  const redactedIn = (r: CallOutcome) => r.raw.includes("[REDACTED");

  // The prompt; Codex's message, a command printing the corpus, a command whose text holds secrets.
  script(
    { kind: "output", items: [{ type: "message", text: CORPUS_TEXT, deltas: 300 }, { type: "exec", cmd: `cat ${SECRETS_FILE}` }] },
    { kind: "output", items: [{ type: "exec", cmd: `printf '%s\\n' ${oneLine.map((c) => `'${c.text}'`).join(" ")}`, sandboxPermissions: "require_escalated", justification: joined(oneLine) }] },
    { kind: "output", items: [{ type: "message", text: "printed" }] },
  );
  const a = (await ok("codex_start", { project_id: "demo", prompt: CORPUS_TEXT })).task_id as string;
  tasks.push(a);
  placed("prompt");
  placed("codex message");
  placed("command output");
  placed("command text", oneLine.length);
  placed("approval request", oneLine.length);
  const approval = await waitFor(a, (s) => (s.requests?.length ?? 0) > 0 || SETTLED.has(s.state));
  prove("approval request", (approval.requests?.length ?? 0) > 0);
  for (const r of approval.requests ?? []) await call("codex_respond", { task_id: a, request_id: r.request_id, action: "decline" });
  await settle(a);

  // A follow-up message, and a relayed tool call answered with the corpus.
  script(
    { kind: "output", items: [{ type: "tool", name: "bridge_web_tool", arguments: { capability: "web_search", request: "look it up", operation: "read" } }] },
    { kind: "output", items: [{ type: "message", text: "thanks" }] },
  );
  await ok("codex_send", { task_id: a, message: CORPUS_TEXT });
  placed("send message");
  const tool = await waitFor(a, (s) => (s.tool_requests?.length ?? 0) > 0 || SETTLED.has(s.state));
  const toolRequest = tool.tool_requests?.[0]?.request_id as string | undefined;
  if (!toolRequest) throw new Error(`no tool request: ${JSON.stringify(tool)}`);
  await ok("codex_submit_tool_result", { task_id: a, request_id: toolRequest, status: "success", result: CORPUS_TEXT, sources: SECRET_CORPUS.map((c) => c.text), tool_used: oneLine[0]!.text.slice(0, 200) });
  placed("tool result");
  placed("tool sources");
  await settle(a);

  // Questions and elicitations answered with secrets (in-process only).
  if (b.injectRequests) {
    b.injectRequests(a);
    const asked = await waitFor(a, (s) => (s.requests?.length ?? 0) >= 2);
    for (const r of asked.requests) {
      const payload = r.kind === "userInput" ? { answers: { q1: CORPUS_TEXT } } : { content: { note: CORPUS_TEXT } };
      await ok("codex_respond", { task_id: a, request_id: r.request_id, action: r.kind === "userInput" ? "answer" : "accept", payload });
      placed(r.kind === "userInput" ? "question answer" : "elicitation answer");
    }
  }

  // Checkpoints, every field, the corpus in pieces the field limit allows. On a task of their own: a checkpoint that
  // repeats its task's prompt or output is refused, and goal and constraints are set once.
  script({ kind: "output", items: [{ type: "message", text: "anchored" }] });
  const c = (await ok("codex_start", { project_id: "demo", prompt: "keep a supervisory anchor" })).task_id as string;
  tasks.push(c);
  await settle(c);
  for (const [i, piece] of chunks(1900).entries()) {
    const text = joined(piece);
    const once = i === 0 ? { goal: text, constraints: text } : {};
    await ok("codex_checkpoint", { action: "update", task_id: c, ...once, state: text, acceptance_status: text, current_understanding: text, next_step: text });
    placed("checkpoint", piece.length * (i === 0 ? 6 : 4));
  }

  // Cancel reasons, one hanging turn per piece; the hang streams a partial message too.
  const firstCancel = tasks.length;
  for (const piece of chunks(1900)) {
    script({ kind: "hang", partialText: joined(piece) });
    const t = (await ok("codex_start", { project_id: "demo", prompt: "wait for it" })).task_id as string;
    tasks.push(t);
    await waitFor(t, (s) => s.state === "running" || SETTLED.has(s.state));
    await b.provider.waitForRequests(b.provider.requests.length, 30_000);
    await call("codex_cancel", { task_id: t, reason: joined(piece) });
    placed("cancel reason", piece.length);
    await settle(t);
  }

  // A provider failure whose message is the corpus.
  script({ kind: "http_error", status: 500, message: CORPUS_TEXT });
  const failed = (await ok("codex_start", { project_id: "demo", prompt: "fail please" })).task_id as string;
  tasks.push(failed);
  await settle(failed);
  placed("provider error");

  // A diff: Codex adds a file holding the corpus (apply_patch is offered for a slug Codex knows).
  const patch = `*** Begin Patch\n*** Add File: notes/added.txt\n${CORPUS_TEXT.split("\n").map((l) => `+${l}`).join("\n")}\n*** End Patch\n`;
  script({ kind: "output", items: [{ type: "patch", patch }] }, { kind: "output", items: [{ type: "message", text: "patched" }] });
  const patched = (await ok("codex_start", { project_id: "demo", prompt: "add the notes", model: "gpt-5.5" })).task_id as string;
  tasks.push(patched);
  await settle(patched);
  placed("file change diff");

  // Inputs that come back in an error message (each secret in its words: a bare PEM line is no secret to anyone).
  for (const c of leakProbes().filter((p) => p.text.length <= 100)) {
    await call("codex_start", { project_id: "demo", prompt: "x", model: c.text });
    placed("error echo", 1);
  }

  // The app-server dies: its stderr tail (the corpus, from the wrapper) is in codex_runtime and codex_health.
  const pid = (await ok("codex_runtime", { action: "status" })).pid as number;
  process.kill(pid, "SIGKILL");
  for (let i = 0; i < 100 && !(await ok("codex_runtime", { action: "status" })).last_exit; i++) await new Promise((r) => setTimeout(r, 50));
  placed("app-server stderr");
  const lastExit = (await ok("codex_runtime", { action: "status" })).last_exit;
  prove("app-server stderr", String(lastExit?.stderrTail ?? "").includes("[REDACTED"));
  await call("codex_health", {});

  // Thread previews hold the first prompts.
  const threads = await ok("codex_threads", { action: "list", limit: 50 });
  placed("thread preview");
  prove("thread preview", (threads.threads ?? []).some((t: { preview?: string }) => String(t.preview).includes("[REDACTED")));
  for (const t of threads.threads ?? []) await call("codex_threads", { action: "read", thread_id: t.thread_id });

  // Everything a supervisor can read back.
  await call("codex_status", {});
  for (const t of tasks) {
    await call("codex_status", { task_id: t });
    await call("codex_wait", { task_id: t, cursor: `${t}:0`, timeout_seconds: 0, mode: "raw" });
    await call("codex_result", { task_id: t });
    await call("codex_checkpoint", { action: "read", task_id: t });
    for (const kind of ["transcript", "plan", "diff", "commands", "command_output", "file_changes", "mcp_calls", "tool_requests", "warnings", "raw_event"]) {
      await readAllPages(call, t, kind);
    }
  }
  await call("codex_runtime", { action: "status" });
  prove("checkpoint", redactedIn(await call("codex_checkpoint", { action: "read", task_id: c })));
  const events = (await call("codex_inspect", { task_id: tasks[firstCancel]!, kind: "raw_event", limit: 100 })).raw;
  prove("cancel reason", events.includes("cancel_requested") && events.includes("[REDACTED"));
  prove("file change diff", redactedIn(await call("codex_inspect", { task_id: patched, kind: "diff" })));
  prove("provider error", (await ok("codex_status", { task_id: failed })).state === "failed");
  prove("tool result", redactedIn(await call("codex_inspect", { task_id: a, kind: "tool_requests", item_id: toolRequest })));
  const commands = (await ok("codex_inspect", { task_id: a, kind: "commands", limit: 100 })).items ?? [];
  const cat = commands.find((c: { command?: string }) => String(c.command).includes(SECRETS_FILE));
  prove("command output", cat !== undefined && redactedIn(await call("codex_inspect", { task_id: a, kind: "command_output", item_id: cat.item_id })));

  const files = [b.statePath, `${b.statePath}-wal`, `${b.statePath}-shm`].filter((f) => existsSync(f));
  const bytes = files.map((f) => ({ name: f, data: readFileSync(f) }));
  const leaks: string[] = [];
  for (const probe of leakProbes()) {
    results.forEach((r, i) => r.includes(probe.secret) && leaks.push(`${probe.name} in tool result #${i}: ${excerpt(r, probe.secret)}`));
    for (const f of bytes) if (f.data.includes(Buffer.from(probe.secret, "utf8"))) leaks.push(`${probe.name} in ${f.name}`);
  }
  return {
    placements: [...placements.values()].reduce((s, n) => s + n, 0),
    channels: [...placements.keys()],
    formats: new Set(SECRET_CORPUS.map((c) => c.kind)).size,
    resultsRead: results.length,
    bytesRead: bytes.reduce((s, f) => s + f.data.length, 0),
    leaks,
    unproven: [...proofs].filter(([, seen]) => !seen).map(([channel]) => channel),
  };
}

/** List kinds whose entries have a detail page of their own. */
const DETAIL_OF: Record<string, string> = { commands: "command_output", tool_requests: "tool_requests", file_changes: "file_changes", mcp_calls: "mcp_calls" };

async function readAllPages(call: (name: string, args: Record<string, unknown>) => Promise<CallOutcome>, taskId: string, kind: string): Promise<void> {
  let offset: number | undefined = 0;
  for (let i = 0; i < 200 && offset !== undefined; i++) {
    const r = await call("codex_inspect", { task_id: taskId, kind, offset });
    if (r.isError) return; // e.g. command_output without item_id: the error text was still read
    offset = typeof r.structured.next_offset === "number" ? r.structured.next_offset : undefined;
    const detail = DETAIL_OF[kind];
    for (const item of detail ? (r.structured.items ?? []) : []) {
      const id = item.item_id ?? item.request_id;
      if (typeof id === "string") await call("codex_inspect", { task_id: taskId, kind: detail, item_id: id });
    }
  }
}

function excerpt(text: string, secret: string): string {
  const at = text.indexOf(secret);
  return text.slice(Math.max(0, at - 80), at + secret.length + 20);
}
