// A missing or wrong bearer token through the MCP SDK's own Streamable HTTP client: reported as a token problem, never
// as the start of an OAuth login (no OAuth metadata anywhere: every /.well-known/* path and /register answer 404, and
// the refusal is a 403 saying `Bearer error="invalid_token"`: clients take any 401 as "start OAuth"), even for a client
// that is ready to do OAuth, and for the MCP Inspector's CLI.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { getPlatform } from "../../platform/index.ts";
import { assembleBridge, type Bridge } from "../../src/app/assemble.ts";
import { startHttpServer, type HttpBridgeServer } from "../../src/cli/serve-http.ts";
import { INIT_REQUEST, rawPost } from "../support/http-bridge.ts";
import { PROJECT_ROOT } from "../support/real-codex.ts";

const TOKEN = "tok-" + "5e1f".repeat(8);
let bridge: Bridge | null = null;
let served: HttpBridgeServer | null = null;
let dir: string | null = null;

afterEach(async () => {
  await served?.close();
  served = null;
  await bridge?.close();
  bridge = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

async function serve(): Promise<HttpBridgeServer> {
  dir = mkdtempSync(join(tmpdir(), "codex-bridge-token-"));
  writeFileSync(join(dir, "config.toml"), "");
  const env = { CODEX_BRIDGE_STATE: ":memory:", CODEX_BRIDGE_CONFIG: join(dir, "config.toml"), CODEX_BIN: join(dir, "no-codex") };
  bridge = await assembleBridge(await getPlatform(), { env, cwd: dir, log: () => {} });
  served = await startHttpServer(bridge, { host: "127.0.0.1", bindAddress: "127.0.0.1", port: 0, allowNonLoopback: false, tokenFile: null, token: TOKEN });
  return served;
}

function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: "GET" }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

async function connect(url: string, headers: Record<string, string>, authProvider?: OAuthClientProvider): Promise<Client> {
  const client = new Client({ name: "token-test", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, ...(authProvider ? { authProvider } : {}) }));
  return client;
}

/** A client ready to run an OAuth login: it records whether one was ever started. */
function oauthReadyProvider(started: string[]): OAuthClientProvider {
  return {
    get redirectUrl() {
      return "http://127.0.0.1:1/callback";
    },
    get clientMetadata() {
      return { redirect_uris: ["http://127.0.0.1:1/callback"], client_name: "token-test" };
    },
    clientInformation: () => undefined,
    saveClientInformation: () => void started.push("register"),
    tokens: () => undefined,
    saveTokens: () => void started.push("tokens"),
    redirectToAuthorization: (url: URL) => void started.push(`authorize ${url.href}`),
    saveCodeVerifier: () => {},
    codeVerifier: () => "v",
  };
}

describe("serve --http with a bearer token", () => {
  it("a missing or wrong token: 403 with Bearer error=\"invalid_token\" (never 401, which clients read as \"start OAuth\"), and the SDK client's error says so", async () => {
    const s = await serve();
    const missing = await rawPost(s.port, {}, INIT_REQUEST);
    expect(missing.status).toBe(403);
    expect(missing.headers["www-authenticate"]).toMatch(/^Bearer .*error="invalid_token"/);
    expect(missing.text).toMatch(/missing bearer token/);
    for (const headers of [{}, { authorization: "Bearer not-the-token" }] as Record<string, string>[]) {
      const err = await connect(s.url, headers).then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(err, JSON.stringify(headers)).not.toBeNull();
      expect((err as Error & { code?: number }).code).toBe(403);
      expect(err!.message).toMatch(/Unauthorized/);
      expect(err!.message).toMatch(headers.authorization ? /wrong bearer token/ : /missing bearer token/);
    }
    const ok = await connect(s.url, { authorization: `Bearer ${TOKEN}` });
    expect((await ok.listTools()).tools.length).toBeGreaterThan(5);
    await ok.close();
  });

  it("offers no OAuth: every /.well-known/* and OAuth endpoint is a plain 404, with or without a token", async () => {
    const s = await serve();
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration", "/register", "/authorize", "/token"]) {
      expect(await get(s.port, path), path).toBe(404);
    }
  });

  it("an SDK client ready for OAuth gets the token error, registers nothing, and is never sent to an authorization page", async () => {
    const s = await serve();
    const started: string[] = [];
    const err = await connect(s.url, { authorization: "Bearer not-the-token" }, oauthReadyProvider(started)).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).not.toBeNull();
    expect(started.filter((x) => x.startsWith("authorize"))).toEqual([]);
    expect(started).toEqual([]);
    expect(err!.message).toMatch(/wrong bearer token/);
  });

  it("the MCP Inspector's CLI (2.12) reports a wrong token as a wrong token, not as an OAuth login it cannot start", async () => {
    const s = await serve();
    const inspector = (token: string) =>
      new Promise<string>((resolve) => {
        const args = ["--cli", s.url, "--transport", "http", "--header", `Authorization: Bearer ${token}`, "--method", "tools/list"];
        const env = { ...process.env, MCP_CATALOG_PATH: join(dir!, "inspector-catalog.json") };
        execFile(join(PROJECT_ROOT, "node_modules", ".bin", "mcp-inspector"), args, { env, timeout: 60_000 }, (_err, stdout, stderr) => resolve(`${stdout}\n${stderr}`));
      });
    const wrong = await inspector("not-the-token");
    expect(wrong).toMatch(/wrong bearer token/);
    expect(wrong).not.toMatch(/OAuth requires a TTY/);
    expect(await inspector(TOKEN)).toContain('"codex_health"');
  }, 120_000);
});
