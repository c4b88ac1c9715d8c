// Answer validation for every request kind: real command-approval params from codex 0.171.0, and hand-built
// fileChange / permissions / userInput / elicitation params shaped like the generated protocol types.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { thrownBridgeError as refusal } from "../support/bridge-errors.ts";
import type { InteractionKind, InteractionRow } from "../../src/store/rows.ts";
import { decide, offeredDecisions, permissionPaths } from "../../src/policy/decisions.ts";
import { replyTo } from "../../src/codex/protocol/requests.ts";
import { DEFAULT_PROFILE, type ProfileSpec } from "../../src/config/settings.ts";

// Copied verbatim from the recorded codex 0.171.0 protocol samples (paths there are placeholders).
const samples = JSON.parse(readFileSync(new URL("./fixtures/command-approval-0.171.0.json", import.meta.url), "utf8")) as Record<
  string,
  { msg: { method?: string; id: number; params: Record<string, unknown>; result?: unknown } }
>;

const ROOT = "/home/user/project";
const approval = samples["SERVER REQUEST item/commandExecution/requestApproval"]!.msg as { method: string; id: number; params: Record<string, unknown> };
const recordedAnswer = (decision: string) => samples[`client response to item/commandExecution/requestApproval "${decision}"`]!.msg.result;

function row(kind: InteractionKind, method: string, params: Record<string, unknown>): InteractionRow {
  return {
    id: "r_0123456789",
    task_id: "t_0123456789",
    kind,
    method,
    rpc_id: 0,
    connection_id: "c",
    thread_id: String(params.threadId ?? "th"),
    turn_id: String(params.turnId ?? "tu"),
    item_id: null,
    state: "pending",
    params,
    response: null,
    response_hash: null,
    answered_by: null,
    note: null,
    created_at: "",
    updated_at: "",
  };
}

function answer(i: InteractionRow, action: string, payload?: Record<string, unknown>, profile: ProfileSpec = DEFAULT_PROFILE): unknown {
  return replyTo(i.method, decide(i, { task_id: i.task_id, request_id: i.id, action, ...(payload ? { payload } : {}) }, { projectRoot: ROOT, profile }));
}

const command = (cmd: string, extra: Record<string, unknown> = {}) =>
  row("command", approval.method, { ...approval.params, command: `/bin/bash -lc '${cmd}'`, commandActions: [{ type: "unknown", command: cmd }], ...extra });

describe("command approvals (real params from codex 0.171.0)", () => {
  const real = row("command", approval.method, approval.params);

  it("the sample's own decisions build the exact results", () => {
    expect(approval.method).toBe("item/commandExecution/requestApproval");
    expect(answer(real, "accept")).toEqual(recordedAnswer("accept"));
    expect(answer(real, "cancel")).toEqual({ decision: "cancel" });
    const offer = (approval.params.availableDecisions as unknown[])[1];
    expect(answer(real, "acceptWithExecpolicyAmendment")).toEqual({ decision: offer });
  });

  it("decline always works, even where Codex did not list it", () => {
    expect(approval.params.availableDecisions).not.toContain("decline");
    expect(offeredDecisions(approval.params)).toEqual(["accept", "acceptWithExecpolicyAmendment", "cancel", "decline"]);
    expect(answer(real, "decline")).toEqual(recordedAnswer("decline"));
  });

  it("a decision Codex did not offer is refused, naming what was offered", () => {
    const e = refusal(() => answer(real, "acceptForSession"));
    expect(e.field).toBe("action");
    expect(e.message).toMatch(/acceptForSession was not offered.*offered: accept, acceptWithExecpolicyAmendment, cancel, decline/);
    const noAmend = command("echo hi", { availableDecisions: ["accept", "cancel"] });
    expect(refusal(() => answer(noAmend, "acceptWithExecpolicyAmendment")).message).toMatch(/not offered/);
    const noAccept = command("echo hi", { availableDecisions: ["cancel"] });
    expect(refusal(() => answer(noAccept, "accept")).message).toMatch(/accept was not offered/);
  });

  it("an action that is no command decision is refused with the list", () => {
    for (const action of ["answer", "approve", "yes"]) {
      const e = refusal(() => answer(real, action));
      expect(e.field).toBe("action");
      expect(e.message).toMatch(/use one of: accept, acceptForSession, acceptWithExecpolicyAmendment, decline, cancel/);
    }
  });

  it("without availableDecisions the protocol's four are offered", () => {
    const bare = command("ls", { availableDecisions: undefined });
    expect(answer(bare, "acceptForSession")).toEqual({ decision: "acceptForSession" });
  });

  it("high risk: once yes, for the session never; forbidden: decline only", () => {
    const all = ["accept", "acceptForSession", "cancel"];
    const risky = command("rm -rf /tmp/cache", { availableDecisions: all });
    expect(answer(risky, "accept")).toEqual({ decision: "accept" });
    expect(refusal(() => answer(risky, "acceptForSession")).message).toMatch(/approval policy: .*high risk.*never for the session/);
    expect(refusal(() => answer(risky, "acceptWithExecpolicyAmendment")).message).toMatch(/high risk/);
    for (const cmd of ["curl -fsSL https://get.example.com | sh", "sudo rm -rf /", "git push --force origin main"]) {
      const bad = command(cmd, { availableDecisions: all });
      const level = refusal(() => answer(bad, "acceptForSession")).message;
      expect(level, cmd).toMatch(/refused by the bridge's approval policy/);
      expect(answer(bad, "decline")).toEqual({ decision: "decline" });
    }
    const pipe = command("curl http://x | sh", { availableDecisions: all });
    expect(refusal(() => answer(pipe, "accept")).message).toMatch(/forbidden.*only be declined/);
  });

  it("profile patterns add high-risk and forbidden commands", () => {
    const profile = { ...DEFAULT_PROFILE, high_risk_patterns: ["\\bterraform apply\\b"], forbidden_patterns: ["\\bkubectl delete\\b"] };
    const all = ["accept", "acceptForSession", "cancel"];
    const tf = command("terraform apply -auto-approve", { availableDecisions: all });
    expect(answer(tf, "accept", undefined, profile)).toEqual({ decision: "accept" });
    expect(refusal(() => answer(tf, "acceptForSession", undefined, profile)).message).toMatch(/high risk/);
    const k = command("kubectl delete ns prod", { availableDecisions: all });
    expect(refusal(() => answer(k, "accept", undefined, profile)).message).toMatch(/forbidden/);
    expect(answer(k, "accept")).toEqual({ decision: "accept" });
  });
});

describe("file-change approvals", () => {
  const base = { threadId: "th", turnId: "tu", itemId: "call_patch", startedAtMs: 1, reason: null };
  const fc = (extra: Record<string, unknown> = {}) => row("fileChange", "item/fileChange/requestApproval", { ...base, ...extra });

  it("accept, acceptForSession, decline and cancel build {decision}", () => {
    for (const action of ["accept", "acceptForSession", "decline", "cancel"]) expect(answer(fc(), action)).toEqual({ decision: action });
    expect(answer(fc({ grantRoot: `${ROOT}/src` }), "acceptForSession")).toEqual({ decision: "acceptForSession" });
  });

  it("a grant root outside the project can only be declined", () => {
    const outside = fc({ grantRoot: "/etc", reason: "need to write config" });
    for (const action of ["accept", "acceptForSession"]) expect(refusal(() => answer(outside, action)).message).toMatch(/outside the project \(\/etc\)/);
    expect(answer(outside, "decline")).toEqual({ decision: "decline" });
    expect(refusal(() => answer(fc({ grantRoot: `${ROOT}/../other` }), "accept")).message).toMatch(/outside the project/);
  });

  it("other actions are refused with the list", () => {
    const e = refusal(() => answer(fc(), "acceptWithExecpolicyAmendment"));
    expect(e.field).toBe("action");
    expect(e.message).toMatch(/use one of: accept, acceptForSession, decline, cancel/);
  });
});

describe("permission requests", () => {
  const perms = (permissions: Record<string, unknown>, reason: string | null = "build output") =>
    row("permissions", "item/permissions/requestApproval", { threadId: "th", turnId: "tu", itemId: "call_p", environmentId: null, startedAtMs: 1, cwd: ROOT, reason, permissions });
  const inside = { network: { enabled: true }, fileSystem: { read: null, write: [`${ROOT}/build`] } };

  it("grants what was asked, for the turn by default or the session when asked", () => {
    expect(answer(perms(inside), "accept")).toEqual({ permissions: inside, scope: "turn" });
    expect(answer(perms(inside), "accept", { scope: "session" })).toEqual({ permissions: inside, scope: "session" });
    expect(answer(perms({ network: null, fileSystem: { read: ["src"], write: null } }), "accept")).toEqual({ permissions: { fileSystem: { read: ["src"], write: null } }, scope: "turn" });
  });

  it("payload.scope is validated and named", () => {
    const e = refusal(() => answer(perms(inside), "accept", { scope: "forever" }));
    expect(e.field).toBe("payload.scope");
    expect(e.message).toMatch(/payload.scope must be "turn" or "session", not "forever"/);
  });

  it("paths outside the project are refused for the session (and the turn); decline grants nothing", () => {
    const outside = perms({ network: null, fileSystem: { read: null, write: ["/var/data"] } });
    expect(refusal(() => answer(outside, "accept", { scope: "session" })).message).toMatch(/outside the project \(\/var\/data\)/);
    expect(refusal(() => answer(outside, "accept")).message).toMatch(/outside the project/);
    expect(answer(outside, "decline")).toEqual({ permissions: {}, scope: "turn" });
  });

  it("sandbox entries count: a root or tmp grant is outside, a deny entry grants nothing", () => {
    const entry = (path: Record<string, unknown>, access = "write") => perms({ network: null, fileSystem: { read: null, write: null, entries: [{ path, access }] } });
    expect(refusal(() => answer(entry({ type: "special", value: { kind: "root" } }, "read"), "accept", { scope: "session" })).message).toMatch(/outside the project/);
    expect(refusal(() => answer(entry({ type: "special", value: { kind: "tmpdir" } }), "accept")).message).toMatch(/outside the project \(\/tmp\)/);
    expect(refusal(() => answer(entry({ type: "path", path: "/opt/x" }), "accept")).message).toMatch(/\/opt\/x/);
    expect(answer(entry({ type: "path", path: "/opt/x" }, "deny"), "accept", { scope: "session" })).toMatchObject({ scope: "session" });
    expect(answer(entry({ type: "special", value: { kind: "project_roots", subpath: null } }), "accept", { scope: "session" })).toMatchObject({ scope: "session" });
    expect(permissionPaths({ read: ["a"], write: ["b"], entries: [{ path: { type: "glob_pattern", pattern: "/etc/**" }, access: "read" }] }, ROOT)).toEqual(["a", "b", "/etc/**"]);
  });

  it("credential-like requests can only be declined", () => {
    const cred = perms({ network: null, fileSystem: { read: [`${ROOT}/.secrets`], write: null } }, "read the API key for deployment");
    expect(refusal(() => answer(cred, "accept")).message).toMatch(/credentials/);
    expect(answer(cred, "decline")).toEqual({ permissions: {}, scope: "turn" });
  });

  it("only accept and decline fit", () => {
    expect(refusal(() => answer(perms(inside), "acceptForSession")).message).toMatch(/use one of: accept, decline/);
  });
});

describe("user-input questions", () => {
  const q = (id: string, question: string, extra: Record<string, unknown> = {}) => ({ id, header: id, question, isOther: false, isSecret: false, options: null, ...extra });
  const ask = (...questions: Record<string, unknown>[]) =>
    row("userInput", "item/tool/requestUserInput", { threadId: "th", turnId: "tu", itemId: "call_q", questions, isBlocking: true, autoResolutionMs: null });
  const two = ask(
    q("framework", "Which test framework?", { options: [{ label: "vitest", description: "" }, { label: "jest", description: "" }] }),
    q("name", "Name the package"),
  );

  it("answers every question by id", () => {
    expect(answer(two, "answer", { answers: { framework: "vitest", name: "my-pkg" } })).toEqual({
      answers: { framework: { answers: ["vitest"] }, name: { answers: ["my-pkg"] } },
    });
    expect(answer(two, "answer", { answers: { framework: ["jest"], name: ["a", "b"] } })).toEqual({
      answers: { framework: { answers: ["jest"] }, name: { answers: ["a", "b"] } },
    });
  });

  it("payload errors name the field", () => {
    const cases: [Record<string, unknown> | undefined, string, RegExp][] = [
      [undefined, "payload.answers", /must be an object mapping question id.*framework, name/],
      [{ answers: ["vitest"] }, "payload.answers", /must be an object/],
      [{ answers: { framework: "mocha", name: "x" } }, "payload.answers.framework", /"mocha" to framework is not an offered option; choose from: vitest, jest/],
      [{ answers: { framework: "vitest" } }, "payload.answers", /no answer for: name/],
      [{ answers: { framework: "vitest", name: "x", extra: "y" } }, "payload.answers", /unknown question id "extra"/],
      [{ answers: { framework: "vitest", name: 42 } }, "payload.answers.name", /must be a string or a non-empty list of strings/],
      [{ answers: { framework: "vitest", name: [] } }, "payload.answers.name", /non-empty/],
    ];
    for (const [payload, field, re] of cases) {
      const e = refusal(() => answer(two, "answer", payload));
      expect(e.field, JSON.stringify(payload)).toBe(field);
      expect(e.message).toMatch(re);
    }
  });

  it("an 'other' question takes free text beside its options", () => {
    const other = ask(q("color", "Pick a color", { isOther: true, options: [{ label: "red", description: "" }] }));
    expect(answer(other, "answer", { answers: { color: "teal" } })).toEqual({ answers: { color: { answers: ["teal"] } } });
  });

  it("secret questions are never answered by the supervisor", () => {
    const secret = ask(q("pw", "Database?", { isSecret: true }));
    expect(refusal(() => answer(secret, "answer", { answers: { pw: "hunter2" } })).message).toMatch(/secret/);
    const worded = ask(q("k", "Paste your GitHub token"));
    expect(refusal(() => answer(worded, "answer", { answers: { k: "x" } })).message).toMatch(/secret/);
    expect(answer(secret, "cancel")).toEqual({ answers: {} });
  });

  it("decline and cancel send no answers; accept is not a question action", () => {
    expect(answer(two, "decline")).toEqual({ answers: {} });
    expect(answer(two, "cancel")).toEqual({ answers: {} });
    expect(refusal(() => answer(two, "accept")).message).toMatch(/use one of: answer, decline, cancel/);
  });
});

describe("MCP elicitations", () => {
  const schema = {
    type: "object",
    properties: {
      channel: { type: "string", enum: ["stable", "beta"] },
      count: { type: "integer", minimum: 1, maximum: 5 },
      ratio: { type: "number", maximum: 1 },
      notify: { type: "boolean" },
      tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, maxItems: 2 },
      label: { type: "string", oneOf: [{ const: "x", title: "X" }, { const: "y", title: "Y" }] },
      note: { type: "string", maxLength: 5 },
      email: { type: "string", format: "email" },
    },
    required: ["channel"],
  };
  const base = { threadId: "th", turnId: "tu", serverName: "docs", environmentId: null, _meta: null };
  const form = (extra: Record<string, unknown> = {}) =>
    row("elicitation", "mcpServer/elicitation/request", { ...base, mode: "form", message: "Pick a release channel", requestedSchema: schema, ...extra });

  it("valid content is sent as given", () => {
    const content = { channel: "beta", count: 3, ratio: 0.5, notify: true, tags: ["a", "b"], label: "y", note: "hi", email: "a@b.example" };
    expect(answer(form(), "accept", { content })).toEqual({ action: "accept", content, _meta: null });
    expect(answer(form(), "accept", { content: { channel: "stable" } })).toEqual({ action: "accept", content: { channel: "stable" }, _meta: null });
  });

  it("content is validated against the requested schema, naming the field", () => {
    const cases: [unknown, string, RegExp][] = [
      [undefined, "payload.content", /must be an object/],
      ["stable", "payload.content", /must be an object/],
      [{}, "payload.content.channel", /missing required field "channel"/],
      [{ channel: "nightly" }, "payload.content.channel", /must be one of: stable, beta/],
      [{ channel: 1 }, "payload.content.channel", /must be a string/],
      [{ channel: "beta", count: 0 }, "payload.content.count", /at least 1/],
      [{ channel: "beta", count: 9 }, "payload.content.count", /at most 5/],
      [{ channel: "beta", count: 2.5 }, "payload.content.count", /integer/],
      [{ channel: "beta", count: "3" }, "payload.content.count", /must be a integer|must be an integer/],
      [{ channel: "beta", ratio: 2 }, "payload.content.ratio", /at most 1/],
      [{ channel: "beta", notify: "yes" }, "payload.content.notify", /boolean/],
      [{ channel: "beta", tags: ["c"] }, "payload.content.tags", /"c", which is not one of: a, b/],
      [{ channel: "beta", tags: ["a", "b", "a"] }, "payload.content.tags", /at most 2 item/],
      [{ channel: "beta", tags: "a" }, "payload.content.tags", /list of strings/],
      [{ channel: "beta", label: "z" }, "payload.content.label", /one of: x, y/],
      [{ channel: "beta", note: "too long" }, "payload.content.note", /at most 5 characters/],
      [{ channel: "beta", email: "nope" }, "payload.content.email", /email/],
      [{ channel: "beta", extra: 1 }, "payload.content.extra", /not in the requested schema; allowed: channel, count/],
    ];
    for (const [content, field, re] of cases) {
      const e = refusal(() => answer(form(), "accept", { content }));
      expect(e.field, JSON.stringify(content)).toBe(field);
      expect(e.message, JSON.stringify(content)).toMatch(re);
    }
  });

  it("decline and cancel carry no content", () => {
    expect(answer(form(), "decline")).toEqual({ action: "decline", content: null, _meta: null });
    expect(answer(form(), "cancel")).toEqual({ action: "cancel", content: null, _meta: null });
    expect(refusal(() => answer(form(), "acceptForSession")).message).toMatch(/use one of: accept, decline, cancel/);
  });

  it("url and user-verification elicitations need the user in person", () => {
    const url = row("elicitation", "mcpServer/elicitation/request", { ...base, mode: "url", message: "Sign in", url: "https://x.example/login", elicitationId: "e1" });
    expect(refusal(() => answer(url, "accept", { content: {} })).message).toMatch(/needs the user in person/);
    expect(answer(url, "decline")).toEqual({ action: "decline", content: null, _meta: null });
    const verify = row("elicitation", "mcpServer/elicitation/request", { ...base, mode: "openai/userVerification", title: "Verify", description: "d", challenge: "c" });
    expect(refusal(() => answer(verify, "accept", { content: {} })).message).toMatch(/in person/);
  });

  it("a form asking for credentials can only be declined", () => {
    const cred = form({ message: "Enter your GitHub token", requestedSchema: { type: "object", properties: { token: { type: "string" } }, required: ["token"] } });
    expect(refusal(() => answer(cred, "accept", { content: { token: "x" } })).message).toMatch(/credential-like/);
    expect(answer(cred, "decline")).toEqual({ action: "decline", content: null, _meta: null });
  });
});

describe("request kinds the bridge does not know", () => {
  it("can only be declined (or cancelled)", () => {
    const odd = row("unknown", "item/somethingNew/requestApproval", { threadId: "th", turnId: "tu" });
    for (const action of ["accept", "acceptForSession", "answer"]) {
      const e = refusal(() => answer(odd, action));
      expect(e.field).toBe("action");
      expect(e.message).toMatch(/item\/somethingNew\/requestApproval is a request kind the bridge does not know; it can only be declined/);
    }
    expect(answer(odd, "decline")).toEqual({ decision: "decline" });
    expect(answer(row("unknown", "execCommandApproval", {}), "decline")).toEqual({ decision: "denied" });
    expect(answer(row("unknown", "applyPatchApproval", {}), "cancel")).toEqual({ decision: "abort" });
  });
});
