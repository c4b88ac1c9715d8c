// Emulator aid (not part of the product): the small harness the emulator runs of .ci/run share. Each run is a
// plain script that prints one line per check and exits 1 when any failed; it drives a release executable the way
// a user's MCP client does, over stdio.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

let failures = 0;

/** Records one check: prints "ok  name" or "FAIL name: why". */
export function verdict(name: string, ok: boolean, why = ""): boolean {
  if (!ok) failures++;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok || !why ? "" : `: ${why.slice(0, 1500)}`}`);
  return ok;
}

/** Runs a check body; an exception is a failure with its message. */
export async function step(name: string, body: () => Promise<string | true | void> | string | true | void): Promise<void> {
  try {
    const r = await body();
    verdict(name, true);
    if (typeof r === "string" && r) console.log(`     ${r}`);
  } catch (err) {
    verdict(name, false, err instanceof Error ? err.message : String(err));
  }
}

export function finish(label: string): never {
  console.log(failures ? `${label}: ${failures} check(s) FAILED` : `${label}: all checks passed`);
  process.exit(failures ? 1 : 0);
}

export const text = (r: CallToolResult): string =>
  r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

export interface Session {
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** structuredContent of a call that must succeed. */
  ok(name: string, args?: Record<string, unknown>): Promise<Record<string, any>>;
  stderr(): string;
  close(): Promise<void>;
}

/** An MCP client over stdio to `command args` (the bridge, or a relay that starts it). */
export async function connect(command: string, args: string[], env: Record<string, string>, cwd: string): Promise<Session> {
  const transport = new StdioClientTransport({ command, args, env, cwd, stderr: "pipe" });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => (err += d.toString("utf8")));
  const client = new Client({ name: "codex-bridge-emulator-ci", version: "1" });
  await client.connect(transport);
  const call = (name: string, a: Record<string, unknown> = {}) => client.callTool({ name, arguments: a }, undefined, { timeout: 180_000 }) as Promise<CallToolResult>;
  return {
    call,
    async ok(name, a = {}) {
      const r = await call(name, a);
      if (r.isError) throw new Error(`${name} failed: ${text(r)}`);
      return (r.structuredContent ?? {}) as Record<string, any>;
    },
    stderr: () => err,
    close: () => client.close(),
  };
}
