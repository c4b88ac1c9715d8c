// Redaction of everything the bridge stores or returns, whatever its source: the secret corpus goes through every
// channel of a real Codex turn (mock model) and back out through every read tool; no tool result and no byte of the
// SQLite database or its WAL may hold a secret.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { startHarness, type Harness } from "../../src/selftest/harness.ts";
import { bundledCodexBin } from "../support/real-codex.ts";
import { pushSecretsThroughEveryChannel, secretProjectFiles, writeStderrWrapper } from "../support/secret-channels.ts";

let h: Harness | null = null;
const dir = mkdtempSync(join(tmpdir(), "codex-bridge-secrets-"));
afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("no secret stored or returned", () => {
  it("the corpus through every channel: zero hits in tool results, the database and its WAL", async () => {
    h = await startHarness(await getPlatform(), {
      mockProvider: true,
      approvalPolicy: "on-request",
      files: secretProjectFiles(),
      env: { ...process.env, CODEX_BIN: writeStderrWrapper(dir, bundledCodexBin()) },
    });
    const harness = h;
    const report = await pushSecretsThroughEveryChannel({
      provider: harness.provider!,
      statePath: harness.env.CODEX_BRIDGE_STATE!,
      async call(name, args) {
        const r = (await harness.call(name, args)) as CallToolResult;
        return { isError: r.isError === true, structured: (r.structuredContent ?? {}) as Record<string, any>, raw: JSON.stringify(r) };
      },
      injectRequests(taskId) {
        const domain = harness.bridge.domain;
        const task = harness.bridge.repo.task(taskId)!;
        const client = harness.bridge.runtimes.default.current!;
        const base = { threadId: task.thread_id, turnId: task.turn_id };
        domain.onServerRequest(client, { id: 900_001, method: "item/tool/requestUserInput", params: { ...base, itemId: "call_q", isBlocking: true, autoResolutionMs: null, questions: [{ id: "q1", header: "Notes", question: "What should the notes say?", isOther: true, options: null }] } });
        domain.onServerRequest(client, { id: 900_002, method: "mcpServer/elicitation/request", params: { ...base, serverName: "docs", mode: "form", message: "Describe the release", requestedSchema: { type: "object", properties: { note: { type: "string" } }, required: ["note"] } } });
      },
    });
    console.info(`[redaction] ${report.placements} placements (${report.formats} formats × ${report.channels.length} channels: ${report.channels.join(", ")}); ${report.resultsRead} tool results and ${report.bytesRead} database bytes read; ${report.leaks.length} leaks`);
    expect(report.channels.length).toBeGreaterThanOrEqual(15);
    expect(report.unproven, "channels the secrets never went through").toEqual([]);
    expect(report.leaks).toEqual([]);
  }, 300_000);
});
