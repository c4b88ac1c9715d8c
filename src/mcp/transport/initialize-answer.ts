// The MCP initialize answer, produced without the SDK: the start-up fast path writes it while the SDK and the rest of
// the bridge are still loading. Only a plainly valid request is answered this way, with exactly the bytes the SDK would
// write (test/mcp/initialize-answer.test.ts holds both side by side); anything else is left to the SDK.
import { SERVER_NAME, serverInstructions } from "../server-identity.ts";

/** The SDK's SUPPORTED_PROTOCOL_VERSIONS, latest first (the SDK answers an unknown version with the latest). */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"] as const;

/** What the server advertises once its tools and resources are registered. */
export const ADVERTISED_CAPABILITIES = { tools: { listChanged: true }, resources: { listChanged: true } };

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => typeof v === "object" && v !== null && !Array.isArray(v);
const onlyKeys = (o: Plain, allowed: readonly string[]) => Object.keys(o).every((k) => allowed.includes(k));
const isEmptyObject = (v: unknown) => isPlain(v) && Object.keys(v).length === 0;

/** Ids the SDK takes as they are: strings and integers well inside the safe range. */
const plainId = (v: unknown): v is string | number => typeof v === "string" || (typeof v === "number" && Number.isInteger(v) && Math.abs(v) <= 2 ** 31);

function plainClientInfo(v: unknown): boolean {
  if (!isPlain(v) || !onlyKeys(v, ["name", "title", "version", "websiteUrl", "description"])) return false;
  return typeof v.name === "string" && typeof v.version === "string" && Object.values(v).every((x) => typeof x === "string");
}

/** The capabilities clients commonly send, each in its simplest form; anything richer goes through the SDK. */
function plainCapabilities(v: unknown): boolean {
  if (!isPlain(v) || !onlyKeys(v, ["roots", "sampling", "elicitation", "experimental"])) return false;
  for (const [k, c] of Object.entries(v)) {
    if (k === "roots" && isPlain(c) && onlyKeys(c, ["listChanged"]) && (c.listChanged === undefined || typeof c.listChanged === "boolean")) continue;
    if (!isEmptyObject(c)) return false;
  }
  return true;
}

export interface InitializeAnswer {
  id: string | number;
  /** The answer line, newline included, exactly as the stdio transport writes the SDK's. */
  line: string;
}

/** The answer line for a plain initialize request (one JSON-RPC message on one line), or null to leave it to the SDK. */
export function initializeAnswer(text: string, version: string): InitializeAnswer | null {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isPlain(m) || !onlyKeys(m, ["jsonrpc", "id", "method", "params"]) || m.jsonrpc !== "2.0" || m.method !== "initialize" || !plainId(m.id)) return null;
  const p = m.params;
  if (!isPlain(p) || !onlyKeys(p, ["protocolVersion", "capabilities", "clientInfo"]) || typeof p.protocolVersion !== "string") return null;
  if (!plainCapabilities(p.capabilities) || !plainClientInfo(p.clientInfo)) return null;
  const requested = p.protocolVersion;
  const protocolVersion = (PROTOCOL_VERSIONS as readonly string[]).includes(requested) ? requested : PROTOCOL_VERSIONS[0];
  const result = { protocolVersion, capabilities: ADVERTISED_CAPABILITIES, serverInfo: { name: SERVER_NAME, version }, instructions: serverInstructions() };
  return { id: m.id, line: JSON.stringify({ result, jsonrpc: "2.0", id: m.id }) + "\n" };
}
