// Whether the Codex behind the app-server speaks the protocol this bridge was verified on. A verified version is
// trusted as is; any other one is checked at start-up (the initialize handshake, model/list, a thread with a dynamic
// tool) before use, and the web-tool relay is switched off when dynamic tools are refused.
import { tmpdir } from "node:os";
import type { AppServerClient } from "../codex/client.ts";
import { RpcError, UnverifiedCodexError } from "../codex/errors.ts";
import { modelList } from "../codex/protocol/model.ts";
import { threadStart } from "../codex/protocol/thread.ts";
import { rangePosition, SUPPORTED_CODEX } from "../codex/protocol/verified.ts";

export interface ProtocolStatus {
  /** From the app-server's userAgent; null when it does not say. */
  version: string | null;
  verified: boolean;
  /** What the start-up check of an unverified version found, in order (empty for a verified version). */
  checks: string[];
  /** Why the relay cannot be offered (dynamic tools refused); null when it can. */
  relayRefused: string | null;
}

// A harmless dynamic tool on an ephemeral thread: acceptance is all the check needs; nothing is persisted or called.
const PROBE_TOOL = {
  type: "function",
  name: "codex_bridge_probe",
  description: "Start-up check of codex-bridge; never called.",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
};

export function codexVersion(client: AppServerClient): string | null {
  return /\/(\d+\.\d+\.\d+[^ ]*)/.exec(client.initializeInfo?.userAgent ?? "")?.[1] ?? null;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * `verifiedVersions` lists the versions trusted without the start-up check; without it, every release in the
 * supported range is. A stable release older than the range is refused before anything else is asked.
 */
export async function checkProtocol(client: AppServerClient, verifiedVersions?: readonly string[], timeoutMs = 10_000): Promise<ProtocolStatus> {
  const version = codexVersion(client);
  const position = version ? rangePosition(version) : "unknown";
  const trusted = version !== null && (verifiedVersions ? verifiedVersions.includes(version) : position === "inside");
  if (trusted) return { version, verified: true, checks: [], relayRefused: null };
  const shown = version ?? "unknown";
  const checks: string[] = [];
  if (position === "older") throw new UnverifiedCodexError(shown, `older than the oldest supported version ${SUPPORTED_CODEX.oldest}`);
  if (!client.initializeInfo?.userAgent) throw new UnverifiedCodexError(shown, "initialize answered without a userAgent");
  checks.push("initialize ok");
  try {
    const page = await modelList(client, { includeHidden: false });
    const models = Array.isArray(page.data) ? page.data.filter((m) => typeof m.model === "string" || typeof m.id === "string") : null;
    if (!models || models.length === 0) throw new Error("no models in the answer");
    // No count here: the health report counts the live models once, in its own check.
    checks.push("model/list ok");
  } catch (err) {
    const said = message(err);
    throw new UnverifiedCodexError(shown, said.startsWith("model/list") ? said : `model/list: ${said}`);
  }
  let relayRefused: string | null = null;
  try {
    await threadStart(client, { cwd: tmpdir(), approvalPolicy: "never", sandbox: "read-only", dynamicTools: [PROBE_TOOL], ephemeral: true }, { timeoutMs });
    checks.push("dynamicTools accepted");
  } catch (err) {
    if (!(err instanceof RpcError)) throw new UnverifiedCodexError(shown, `thread/start with dynamicTools: ${message(err)}`);
    relayRefused = `Codex ${shown} refused dynamicTools (${err.message}); bridge_web_tool cannot be registered`;
    checks.push("dynamicTools refused");
  }
  return { version, verified: false, checks, relayRefused };
}

/** `verified`, or `unverified: <version> (what the start-up check found)`, as doctor and codex_health say it. */
export function protocolLine(p: ProtocolStatus): string {
  return p.verified ? "verified" : `unverified: ${p.version ?? "unknown"} (${p.checks.join(", ")})`;
}
