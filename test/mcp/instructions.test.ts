// How long a codex_wait may hold, as the supervisor is told and as serve --http is configured: 25 s on stdio (the
// tunnel serializes every conversation on one pipe), up to --max-wait-seconds (55 s by default) over HTTP.
import { describe, expect, it } from "vitest";
import { serverInstructions } from "../../src/mcp/server-identity.ts";
import { parseHttpArgs } from "../../src/cli/http-options.ts";
import { DEFAULT_MAX_WAIT_SECONDS } from "../../src/config/schema.ts";

describe("the wait rule in the server instructions", () => {
  it("says how long one call holds on each transport, and what ends a wait early", () => {
    expect(serverInstructions()).toContain("each call holds up to 25 s");
    expect(serverInstructions({ defaultSeconds: 55, maxSeconds: 55 })).toContain("each call holds up to 55 s");
    expect(serverInstructions()).toMatch(/returns early only for Codex's messages, requests, failures and the turn's end/);
    expect(serverInstructions()).toMatch(/task_ids/);
  });

  it("serve --http holds up to 55 s by default, or --max-wait-seconds (at most 300)", () => {
    expect(DEFAULT_MAX_WAIT_SECONDS).toBe(55);
    expect(parseHttpArgs(["--http", "127.0.0.1:0"])).not.toHaveProperty("maxWaitSeconds");
    expect(parseHttpArgs(["--http", "127.0.0.1:0", "--max-wait-seconds", "40"])).toMatchObject({ maxWaitSeconds: 40 });
    expect(() => parseHttpArgs(["--http", "127.0.0.1:0", "--max-wait-seconds", "301"])).toThrow(/--max-wait-seconds expects at most 300/);
    expect(() => parseHttpArgs(["--http", "127.0.0.1:0", "--max-wait-seconds", "0"])).toThrow(/--max-wait-seconds expects a whole number of at least 1/);
  });
});
