// The HTTP mode's argument parsing and request guards, as pure functions.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  allowedHostHeaders,
  checkRequest,
  HttpArgError,
  isLoopbackAddress,
  isLoopbackOrigin,
  parseHttpArgs,
  readTokenFile,
} from "../../src/cli/http-options.ts";
import { tempDir } from "../support/temp-dir.ts";

describe("parseHttpArgs", () => {
  it("accepts loopback IPv4, IPv6 and localhost (pinned to 127.0.0.1)", () => {
    expect(parseHttpArgs(["--http", "127.0.0.1:8765"])).toMatchObject({ host: "127.0.0.1", bindAddress: "127.0.0.1", port: 8765, tokenFile: null });
    expect(parseHttpArgs(["--http=[::1]:0"])).toMatchObject({ host: "::1", bindAddress: "::1", port: 0 });
    expect(parseHttpArgs(["--http", "localhost:9000", "--token-file", "/x/token"])).toMatchObject({ bindAddress: "127.0.0.1", port: 9000, tokenFile: "/x/token" });
  });

  it("refuses a non-loopback address unless --allow-non-loopback, naming the flag", () => {
    expect(() => parseHttpArgs(["--http", "0.0.0.0:8765"])).toThrow(/not a loopback address.*--allow-non-loopback/);
    expect(() => parseHttpArgs(["--http", "192.168.1.5:8765"])).toThrow(HttpArgError);
    expect(parseHttpArgs(["--http", "0.0.0.0:8765", "--allow-non-loopback"])).toMatchObject({ bindAddress: "0.0.0.0", allowNonLoopback: true });
  });

  it("gives clear errors for malformed values", () => {
    expect(() => parseHttpArgs(["--http"])).toThrow(/--http needs a value/);
    expect(() => parseHttpArgs(["--http", "8765"])).toThrow(/--http expects HOST:PORT/);
    expect(() => parseHttpArgs(["--http", "127.0.0.1:http"])).toThrow(/--http port must be a number/);
    expect(() => parseHttpArgs(["--http", "127.0.0.1:70000"])).toThrow(/--http port/);
    expect(() => parseHttpArgs(["--http", "evil.example:80"])).toThrow(/--http host must be an IP address or "localhost"/);
    expect(() => parseHttpArgs(["--http", "127.0.0.1:1", "--token-file"])).toThrow(/--token-file needs a value/);
    expect(() => parseHttpArgs(["--http", "127.0.0.1:1", "--verbose"])).toThrow(/unknown option "--verbose"/);
  });
});

describe("loopback checks", () => {
  it("recognizes loopback addresses and origins only", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "::1", "localhost", "LOCALHOST"]) expect(isLoopbackAddress(h), h).toBe(true);
    for (const h of ["0.0.0.0", "10.0.0.1", "::", "example.com", "localhost.evil.example"]) expect(isLoopbackAddress(h), h).toBe(false);
    for (const o of ["http://localhost:3000", "http://127.0.0.1", "https://[::1]:8443"]) expect(isLoopbackOrigin(o), o).toBe(true);
    for (const o of ["null", "http://evil.example", "http://127.0.0.1.evil.example", "file://", "chrome-extension://abc"]) expect(isLoopbackOrigin(o), o).toBe(false);
  });
});

describe("checkRequest", () => {
  const hosts = allowedHostHeaders({ bindAddress: "127.0.0.1", host: "127.0.0.1", port: 8765 });
  const digest = createHash("sha256").update("s3cret").digest();

  it("admits the bound address and localhost on the bound port", () => {
    for (const host of ["127.0.0.1:8765", "localhost:8765", "LOCALHOST:8765"]) expect(checkRequest({ host }, hosts, null), host).toEqual({ ok: true });
  });

  it("refuses foreign Host headers and wrong ports with 403 (DNS rebinding)", () => {
    for (const host of ["evil.example:8765", "evil.example", "127.0.0.1:9999", "127.0.0.1", ""]) {
      expect(checkRequest({ host }, hosts, null), host).toMatchObject({ ok: false, status: 403 });
    }
  });

  it("refuses a non-loopback Origin with 403 even with the right Host", () => {
    expect(checkRequest({ host: "127.0.0.1:8765", origin: "http://evil.example" }, hosts, null)).toMatchObject({ ok: false, status: 403 });
    expect(checkRequest({ host: "127.0.0.1:8765", origin: "http://localhost:5173" }, hosts, null)).toEqual({ ok: true });
  });

  it("requires the exact bearer token when one is configured (401), after the Host check", () => {
    const ok = { host: "127.0.0.1:8765" };
    expect(checkRequest(ok, hosts, digest)).toMatchObject({ ok: false, status: 401 });
    expect(checkRequest({ ...ok, authorization: "Bearer wrong" }, hosts, digest)).toMatchObject({ ok: false, status: 401 });
    expect(checkRequest({ ...ok, authorization: "Basic s3cret" }, hosts, digest)).toMatchObject({ ok: false, status: 401 });
    expect(checkRequest({ ...ok, authorization: "Bearer s3cret" }, hosts, digest)).toEqual({ ok: true });
    expect(checkRequest({ host: "evil.example:8765", authorization: "Bearer s3cret" }, hosts, digest)).toMatchObject({ status: 403 });
  });
});

describe("readTokenFile", () => {
  it("trims the token, warns about a readable file without printing the token, and names the flag on errors", () => {
    const d = tempDir("codex-bridge-token-");
    const f = join(d, "token");
    writeFileSync(f, "  abc123-token \n");
    chmodSync(f, 0o644);
    const warnings: string[] = [];
    expect(readTokenFile(f, (w) => warnings.push(w))).toBe("abc123-token");
    expect(warnings.join("\n")).toMatch(/--token-file .* readable by other users/);
    expect(warnings.join("\n")).not.toContain("abc123-token");
    chmodSync(f, 0o600);
    warnings.length = 0;
    readTokenFile(f, (w) => warnings.push(w));
    expect(warnings).toEqual([]);
    writeFileSync(f, "\n \n");
    expect(() => readTokenFile(f, () => {})).toThrow(/--token-file .*empty/);
    expect(() => readTokenFile(join(d, "missing"), () => {})).toThrow(/--token-file .*cannot read it \(ENOENT\)/);
  });
});
