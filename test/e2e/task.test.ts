// The compiled executable as a user runs it: spawned by the official MCP SDK client over stdio from a directory
// with no node_modules, with an environment built from nothing, driving a whole supervised task against the real
// Codex app-server. The model is the loopback mock, served from this test process.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import packageJson from "../../package.json" with { type: "json" };
import { prepareRealCodex, type RealCodex } from "../support/real-codex.ts";
import { SETTLED, sc, waitUntil, type S } from "../support/task-waits.ts";
import { makeTempGitProject, type TempGitProject } from "../support/temp-project.ts";
import { onLinuxX64, pathWithoutNodeModules, requireBinary, scratchDir, type ReleaseInfo } from "./binary.ts";

const text = (r: CallToolResult) =>
  r.content
    .filter((c): c is { type: "text"; text: string } => c.type === "text")
    .map((c) => c.text)
    .join("\n");

let codex: RealCodex | null = null;
let project: TempGitProject | null = null;
let cwd = "";
let client: Client;
let transport: StdioClientTransport;
let release: ReleaseInfo;
let stderr = "";

async function call(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
  return r;
}

/** codex_wait until `done`, through the SDK client; a failure shows the bridge's stderr too. */
const waitFor = (taskId: string, done: (s: S) => boolean): Promise<S[]> => waitUntil({ call }, taskId, done, { context: () => `bridge stderr:\n${stderr}` });

describe.skipIf(!onLinuxX64)("the compiled linux-x64 binary over stdio", () => {
  beforeAll(async () => {
    const built = requireBinary();
    release = built.release;
    codex = await prepareRealCodex();
    project = makeTempGitProject();
    cwd = scratchDir("task");
    const configPath = join(cwd, "config.toml");
    writeFileSync(
      configPath,
      [`[projects.demo]`, `cwd = ${JSON.stringify(project.dir)}`, ``, `[profiles.default]`, `approval_policy = "untrusted"`, `sandbox_type = "workspace-write"`, ``].join("\n"),
    );
    mkdirSync(join(cwd, "state"));
    const env: Record<string, string> = {
      PATH: pathWithoutNodeModules(),
      CODEX_BIN: codex.codexBin,
      CODEX_HOME: codex.env.CODEX_HOME!,
      HOME: codex.env.HOME!,
      CODEX_BRIDGE_CONFIG: configPath,
      CODEX_BRIDGE_STATE: join(cwd, "state", "state.sqlite3"),
    };
    transport = new StdioClientTransport({ command: built.binary, args: ["serve"], env, cwd, stderr: "pipe" });
    transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    client = new Client({ name: "codex-bridge-e2e", version: "1" });
    await client.connect(transport);
  }, 120_000);

  afterAll(async () => {
    await client?.close().catch(() => {});
    await codex?.cleanup();
    project?.cleanup();
  });

  it("codex_health reports the build, the process, Codex and the state", async () => {
    const r = await call("codex_health");
    expect(r.isError, text(r)).toBeFalsy();
    const h = sc(r);
    expect(h.healthy).toBe(true);
    expect(h.bridge.version).toBe(packageJson.version);
    expect(h.bridge.fingerprint).toBe(release.fingerprint);
    expect(h.bridge.target).toBe("bun-linux-x64");
    expect(h.bridge.pid).toBe(transport.pid);
    expect(h.bridge.uptime_s).toBeGreaterThanOrEqual(0);
    expect(h.codex.version).toBe("0.171.0");
    expect(h.codex.app_server).toBe("initialized");
    expect(h.codex.models).toBeGreaterThan(0);
    expect(h.sqlite).toMatchObject({ ok: true, path: join(cwd, "state", "state.sqlite3") });
    expect(h.config.projects).toEqual([{ id: "demo", cwd: project!.dir, ok: true }]);
  });

  it("runs a task: start, an approval answered, the result with evidence, the written file as an artifact", async () => {
    codex!.provider.enqueue(
      { kind: "output", items: [{ type: "message", text: "Writing the file now.", deltas: 2 }, { type: "exec", cmd: "echo approved-by-supervisor > e2e.txt" }] },
      { kind: "output", items: [{ type: "message", text: "Done: e2e.txt written.", deltas: 2 }] },
    );
    const start = await call("codex_start", { project_id: "demo", prompt: "write e2e.txt" });
    expect(start.isError, text(start)).toBeFalsy();
    const taskId: string = sc(start).task_id;
    expect(taskId).toMatch(/^t_[0-9a-f]{10}$/);

    const untilAsked = await waitFor(taskId, (s) => (s.requests?.length ?? 0) > 0 || SETTLED.includes(s.state));
    const request = untilAsked.at(-1)!.requests?.[0];
    expect(request, JSON.stringify(untilAsked.at(-1))).toBeDefined();
    expect(request.kind).toBe("command");
    expect(request.command).toContain("e2e.txt");
    expect(request.request_id).toMatch(/^r_[0-9a-f]{10}$/);
    const answer = await call("codex_respond", { task_id: taskId, request_id: request.request_id, action: "accept" });
    expect(answer.isError, text(answer)).toBeFalsy();

    const settled = await waitFor(taskId, (s) => SETTLED.includes(s.state));
    expect(settled.at(-1)!.state).toBe("completed");
    expect(readFileSync(join(project!.dir, "e2e.txt"), "utf8")).toBe("approved-by-supervisor\n");

    const result = await call("codex_result", { task_id: taskId });
    expect(result.isError, text(result)).toBeFalsy();
    const res = sc(result);
    expect(res.final_message).toBe("Done: e2e.txt written.");
    expect(res.evidence.commands).toEqual([expect.objectContaining({ command: expect.stringContaining("e2e.txt"), exit_code: 0 })]);

    const artifact = await call("codex_artifact", { project_id: "demo", path: "e2e.txt" });
    expect(artifact.isError, text(artifact)).toBeFalsy();
    const a = sc(artifact);
    expect(a.size).toBe("approved-by-supervisor\n".length);
    expect(a.sha256).toBe(createHash("sha256").update("approved-by-supervisor\n").digest("hex"));
    const embedded = artifact.content.find((c) => c.type === "resource");
    expect(embedded && "text" in embedded.resource ? embedded.resource.text : undefined).toBe("approved-by-supervisor\n");
  });
});
