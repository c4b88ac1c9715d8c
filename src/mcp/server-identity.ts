// What the MCP server says about itself in its initialize answer: name and instructions. Kept free of the SDK so the
// start-up fast path (src/mcp/transport/initialize-answer.ts) can answer initialize before the SDK is loaded.
export const SERVER_NAME = "codex-bridge";

/** How long one codex_wait may hold on this transport: stdio's default is the profile's (25 s), HTTP's its maximum. */
export interface WaitHold {
  defaultSeconds: number;
  maxSeconds: number;
}

/** What the supervisor is told once per connection; how long a wait holds depends on the transport. */
export function serverInstructions(hold?: WaitHold): string {
  const holds = `each call holds up to ${hold ? hold.maxSeconds : 25} s`;
  return [
    "codex-bridge runs the real Codex on the user's machine. Codex does the work; you supervise.",
    `Wait rule: after codex_start or codex_send, stay in the same response and keep calling codex_wait until the turn ends (${holds}; a one-line 'running …' answer means no news: call again). It returns early only for Codex's messages, requests, failures and the turn's end (routine progress comes with the next news). Several tasks: one codex_wait with task_ids.`,
    "When codex_wait shows a request, decide and answer it (codex_respond, or codex_submit_tool_result for bridge_web_tool with what your tool really returned); decline anything risky or outside the user's scope.",
    "When the turn ended, check codex_result's evidence (exit codes, file changes, Git checks) before telling the user it is done.",
  ].join("\n");
}
