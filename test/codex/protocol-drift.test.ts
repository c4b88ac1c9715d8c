// Schema drift: the pinned Codex regenerates its app-server JSON schema, and everything the bridge relies on (the
// verified surface: methods, notifications, server requests, fields sent and read, enum values) must still be there
// with the same JSON types. A doctored schema must make the check fail, naming the method and the field.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as account from "../../src/codex/protocol/account.ts";
import * as item from "../../src/codex/protocol/item.ts";
import { CLIENT_REQUEST_METHODS } from "../../src/codex/protocol/methods.ts";
import * as model from "../../src/codex/protocol/model.ts";
import * as requests from "../../src/codex/protocol/requests.ts";
import * as session from "../../src/codex/protocol/session.ts";
import * as thread from "../../src/codex/protocol/thread.ts";
import * as turn from "../../src/codex/protocol/turn.ts";
import { VERIFIED_0_171_0 } from "../../src/codex/protocol/verified-0.171.0.ts";
import { VERIFIED_CODEX_VERSIONS } from "../../src/codex/protocol/verified.ts";
import { checkSurface, generateSchema, loadSchemaBundle, typeChanges } from "../support/protocol-schema.ts";
import { bundledCodexBin, PROJECT_ROOT } from "../support/real-codex.ts";

const SNAPSHOT = join(PROJECT_ROOT, "test", "fixtures", "codex", "surface-types-0.171.0.json");
type Json = Record<string, any>;

let generated: ReturnType<typeof generateSchema>;
const scratch: string[] = [];

beforeAll(() => {
  generated = generateSchema(bundledCodexBin());
});
afterAll(() => {
  generated?.cleanup();
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

/** A copy of the generated schema with `edit` applied to the v2 bundle (and the root bundle, which repeats some of it). */
function doctored(edit: (defs: Json) => void): ReturnType<typeof loadSchemaBundle> {
  const dir = mkdtempSync(join(tmpdir(), "codex-schema-doctored-"));
  scratch.push(dir);
  cpSync(generated.dir, dir, { recursive: true });
  for (const file of ["codex_app_server_protocol.v2.schemas.json", "codex_app_server_protocol.schemas.json"]) {
    const path = join(dir, file);
    const json = JSON.parse(readFileSync(path, "utf8")) as { definitions: Json };
    edit(json.definitions.v2 ?? json.definitions);
    edit(json.definitions);
    writeFileSync(path, JSON.stringify(json));
  }
  return loadSchemaBundle(dir);
}

const variant = (defs: Json, union: string, type: string): Json | undefined =>
  (defs[union]?.oneOf as Json[] | undefined)?.find((v) => v.properties?.type?.enum?.includes(type));

describe("the verified protocol surface against the pinned Codex's own schema", () => {
  it("the pinned Codex is a verified version", () => {
    const out = execFileSync(bundledCodexBin(), ["--version"], { encoding: "utf8" });
    const version = /(\d+\.\d+\.\d+)/.exec(out)?.[1];
    expect(VERIFIED_CODEX_VERSIONS).toContain(version);
    expect(VERIFIED_0_171_0.version).toBe(version);
  });

  it("the request registry binds exactly the verified requests, each to its params and result", () => {
    const verified = VERIFIED_0_171_0.surface.entries.filter((e) => e.kind === "request").map((e) => e.method);
    expect([...CLIENT_REQUEST_METHODS].sort()).toEqual([...verified].sort());
  });

  it("declares every method the protocol modules name (a method used but not declared would escape the drift check)", () => {
    const names = [account, item, model, requests, session, thread, turn].flatMap((m) =>
      Object.entries(m).filter(([k, v]) => typeof v === "string" && !k.startsWith("PHASE_")).map(([, v]) => v as string),
    );
    const all = [...names, ...Object.keys(requests.REQUEST_KINDS)];
    expect(all.length).toBeGreaterThan(25);
    const declared = new Set(VERIFIED_0_171_0.surface.entries.map((e) => e.method));
    expect(all.filter((m) => !declared.has(m))).toEqual([]);
  });

  it("has every method, field and value the bridge uses, with the JSON types it was verified with", () => {
    const report = checkSurface(generated.bundle, VERIFIED_0_171_0.surface);
    expect(report.problems).toEqual([]);
    // Sanity: the check really looked at the fields (a resolver that finds nothing would pass trivially).
    expect(Object.keys(report.types).length).toBeGreaterThan(100);
    if (process.env.UPDATE_SURFACE_SNAPSHOT === "1" || !existsSync(SNAPSHOT)) {
      writeFileSync(SNAPSHOT, JSON.stringify(report.types, null, 1) + "\n");
    }
    const verified = JSON.parse(readFileSync(SNAPSHOT, "utf8")) as Record<string, string>;
    expect(typeChanges(verified, report.types)).toEqual([]);
    expect(Object.keys(report.types).sort()).toEqual(Object.keys(verified).sort());
  });

  it("fails on a doctored schema: a removed method", () => {
    const b = doctored((defs) => {
      if (defs.ClientRequest) defs.ClientRequest.oneOf = defs.ClientRequest.oneOf.filter((v: Json) => v.properties.method.enum[0] !== "turn/interrupt");
    });
    expect(checkSurface(b, VERIFIED_0_171_0.surface).problems).toContain("turn/interrupt: the request is missing from ClientRequest");
  });

  it("fails on a doctored schema: a field the final-answer rule reads (agentMessage.phase)", () => {
    const b = doctored((defs) => {
      const msg = variant(defs, "ThreadItem", "agentMessage");
      if (msg) delete msg.properties.phase;
    });
    const problems = checkSurface(b, VERIFIED_0_171_0.surface).problems;
    expect(problems).toContain("item/completed: field item{type=agentMessage}.phase (reads) is missing: no phase");
  });

  it("fails on a doctored schema: a renamed param the bridge sends, and a dropped enum value", () => {
    const b = doctored((defs) => {
      const p = defs.TurnSteerParams?.properties;
      if (p) {
        p.expectedTurn = p.expectedTurnId;
        delete p.expectedTurnId;
      }
      if (defs.TurnStatus) defs.TurnStatus.enum = ["completed", "interrupted", "inProgress"];
    });
    const problems = checkSurface(b, VERIFIED_0_171_0.surface).problems;
    expect(problems).toContain("turn/steer: field expectedTurnId (sends) is missing: no expectedTurnId");
    expect(problems).toContain('TurnStatus: value "failed" is no longer offered');
  });

  it("fails on a doctored schema: a field whose type changed", () => {
    const b = doctored((defs) => {
      if (defs.Turn?.properties?.id) defs.Turn.properties.id = { type: "integer" };
    });
    const report = checkSurface(b, VERIFIED_0_171_0.surface);
    const verified = JSON.parse(readFileSync(SNAPSHOT, "utf8")) as Record<string, string>;
    expect(typeChanges(verified, report.types)).toContain("turn/completed: field turn.id (reads) changed type from string to integer");
  });
});
