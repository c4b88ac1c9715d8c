// Checks a declared protocol surface against the JSON schema a Codex binary generates (`codex app-server
// generate-json-schema --experimental`): every method, notification and server request is still there, every field
// the bridge sends or reads still exists with the same JSON type, and every enum value it branches on is still offered.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProtocolSurface, SurfaceEntry } from "../../src/codex/protocol/reliance.ts";

type Schema = Record<string, unknown> | boolean;
type Obj = Record<string, unknown>;

export interface SchemaBundle {
  defs: Map<string, Schema>;
}

const V2_BUNDLE = "codex_app_server_protocol.v2.schemas.json";
const ROOT_BUNDLE = "codex_app_server_protocol.schemas.json";

/** Runs the pinned Codex's schema generator into a temporary directory and loads the result. */
export function generateSchema(codexBin: string): { bundle: SchemaBundle; dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "codex-schema-"));
  const home = mkdtempSync(join(tmpdir(), "codex-schema-home-"));
  execFileSync(codexBin, ["app-server", "generate-json-schema", "--experimental", "--out", dir], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, CODEX_HOME: home },
    stdio: ["ignore", "ignore", "pipe"],
  });
  return {
    bundle: loadSchemaBundle(dir),
    dir,
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** The v2 definitions, plus the root bundle's (initialize, server requests) where v2 has no definition of that name. */
export function loadSchemaBundle(dir: string): SchemaBundle {
  const defs = new Map<string, Schema>();
  const v2 = JSON.parse(readFileSync(join(dir, V2_BUNDLE), "utf8")) as { definitions: Record<string, Schema> };
  for (const [k, v] of Object.entries(v2.definitions)) defs.set(k, v);
  const root = JSON.parse(readFileSync(join(dir, ROOT_BUNDLE), "utf8")) as { definitions: Record<string, Schema> };
  for (const [k, v] of Object.entries(root.definitions)) if (k !== "v2" && !defs.has(k)) defs.set(k, v);
  return { defs };
}

const isObj = (s: unknown): s is Obj => !!s && typeof s === "object" && !Array.isArray(s);

function refName(ref: string): string {
  return ref.replace(/^#\/definitions\/(v2\/)?/, "");
}

/** Every concrete schema a schema can stand for: $ref followed, allOf/anyOf/oneOf flattened. */
function alternatives(b: SchemaBundle, s: Schema | undefined, seen = new Set<string>()): Obj[] {
  if (!isObj(s)) return [];
  if (typeof s.$ref === "string") {
    const name = refName(s.$ref);
    if (seen.has(name)) return [];
    return alternatives(b, b.defs.get(name), new Set([...seen, name]));
  }
  const out: Obj[] = [];
  for (const k of ["allOf", "anyOf", "oneOf"]) if (Array.isArray(s[k])) for (const x of s[k] as Schema[]) out.push(...alternatives(b, x, seen));
  if (isObj(s.properties) || s.type !== undefined || s.enum !== undefined || out.length === 0) out.push(s);
  return out;
}

function jsonTypes(b: SchemaBundle, s: Schema | undefined): string {
  if (s === true || (isObj(s) && Object.keys(s).filter((k) => k !== "description" && k !== "default").length === 0)) return "any";
  const types = new Set<string>();
  for (const alt of alternatives(b, s)) {
    const t = alt.type;
    if (Array.isArray(t)) t.forEach((x) => types.add(String(x)));
    else if (typeof t === "string") types.add(t);
    else if (isObj(alt.properties)) types.add("object");
    else if (Array.isArray(alt.enum)) types.add("string");
  }
  return types.size ? [...types].sort().join("|") : "any";
}

const SEGMENT = /^([A-Za-z_$][\w$]*)(\{type=(\w+)\})?(\[\])?$/;

/** Resolves a dotted path; returns its JSON type signature, or the segment that is missing. */
export function resolvePath(b: SchemaBundle, root: Schema | undefined, path: string): { types: string } | { missing: string } {
  let current: Schema[] = root === undefined ? [] : [root];
  for (const seg of path.split(".")) {
    const m = SEGMENT.exec(seg);
    if (!m) return { missing: `${seg} (unparsable path segment)` };
    const [, key, , variant, array] = m;
    const next: Schema[] = [];
    for (const alt of current.flatMap((s) => alternatives(b, s))) {
      const props = isObj(alt.properties) ? alt.properties : null;
      if (props && key! in props) next.push(props[key!] as Schema);
    }
    if (next.length === 0) return { missing: key! };
    current = next;
    if (variant) {
      current = current.flatMap((s) => alternatives(b, s)).filter((alt) => {
        const t = isObj(alt.properties) ? (alt.properties as Obj).type : undefined;
        return isObj(t) && ((Array.isArray(t.enum) && t.enum.includes(variant)) || t.const === variant);
      });
      if (current.length === 0) return { missing: `${key}{type=${variant}} (no such variant)` };
    }
    if (array) {
      current = current.flatMap((s) => alternatives(b, s)).flatMap((alt) => (alt.items !== undefined ? [alt.items as Schema] : []));
      if (current.length === 0) return { missing: `${key}[] (not an array)` };
    }
  }
  const types = [...new Set(current.map((s) => jsonTypes(b, s)))].sort().join(" / ");
  return { types };
}

const LISTS: Record<SurfaceEntry["kind"], string> = {
  request: "ClientRequest",
  clientNotification: "ClientNotification",
  notification: "ServerNotification",
  serverRequest: "ServerRequest",
};

function findMethod(b: SchemaBundle, e: SurfaceEntry): { params?: Schema; result?: Schema } | null {
  const list = b.defs.get(LISTS[e.kind]);
  const variants = isObj(list) && Array.isArray(list.oneOf) ? (list.oneOf as Obj[]) : [];
  for (const v of variants) {
    const props = isObj(v.properties) ? v.properties : {};
    const method = isObj(props.method) && Array.isArray(props.method.enum) ? props.method.enum[0] : undefined;
    if (method !== e.method) continue;
    const params = isObj(props.params) ? (props.params as Schema) : undefined;
    const ref = isObj(params) && typeof params.$ref === "string" ? refName(params.$ref) : null;
    const result = ref && ref.endsWith("Params") ? b.defs.get(ref.replace(/Params$/, "Response")) : undefined;
    return { params, result };
  }
  return null;
}

/** Every enum string (and tagged-object variant key) a definition offers. */
function offeredValues(b: SchemaBundle, name: string): Set<string> | null {
  const def = b.defs.get(name);
  if (def === undefined) return null;
  const out = new Set<string>();
  for (const alt of alternatives(b, def)) {
    if (Array.isArray(alt.enum)) alt.enum.forEach((v) => out.add(String(v)));
    if (typeof alt.const === "string") out.add(alt.const);
    if (Array.isArray(alt.required)) alt.required.forEach((k) => out.add(String(k)));
    const t = isObj(alt.properties) ? (alt.properties as Obj).type : undefined;
    if (isObj(t) && Array.isArray(t.enum)) t.enum.forEach((v) => out.add(String(v)));
  }
  return out;
}

export interface SurfaceReport {
  problems: string[];
  /** `method sends|reads path` → its JSON type signature, for comparison with the verified snapshot. */
  types: Record<string, string>;
}

export function checkSurface(b: SchemaBundle, surface: ProtocolSurface): SurfaceReport {
  const problems: string[] = [];
  const types: Record<string, string> = {};
  for (const e of surface.entries) {
    const found = findMethod(b, e);
    if (!found) {
      problems.push(`${e.method}: the ${e.kind} is missing from ${LISTS[e.kind]}`);
      continue;
    }
    const sentIn = e.kind === "serverRequest" ? found.result : found.params;
    const readIn = e.kind === "request" ? found.result : found.params;
    for (const [dir, root, paths] of [["sends", sentIn, e.sends ?? []], ["reads", readIn, e.reads ?? []]] as const) {
      for (const path of paths) {
        const r = resolvePath(b, root, path);
        if ("missing" in r) problems.push(`${e.method}: field ${path} (${dir}) is missing: no ${r.missing}`);
        else types[`${e.method} ${dir} ${path}`] = r.types;
      }
    }
  }
  for (const v of surface.values) {
    const offered = offeredValues(b, v.definition);
    if (!offered) {
      problems.push(`${v.definition}: the definition is missing`);
      continue;
    }
    for (const value of v.values) if (!offered.has(value)) problems.push(`${v.definition}: value "${value}" is no longer offered`);
  }
  return { problems, types };
}

/** Differences between the JSON types the verified version had and the ones now generated. */
export function typeChanges(verified: Record<string, string>, now: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [key, before] of Object.entries(verified)) {
    const after = now[key];
    if (after !== undefined && after !== before) {
      const [method, dir, path] = key.split(" ");
      out.push(`${method}: field ${path} (${dir}) changed type from ${before} to ${after}`);
    }
  }
  return out;
}
