// Reliability: hostile paths against codex_artifact, codex_files and codex-artifact:// reads of the real bridge
// process: traversal in every spelling, symlinks and hard links to the outside, FIFOs, sockets and devices, sensitive
// names, and symlinks swapped between inside and outside while they are read. Nothing from outside the project (nor
// a sensitive file's content) is ever returned, no request hangs, and ping is answered within a second after each.
import { spawn, type ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { prepareBridge, type BridgeSetup } from "../support/bridge-process.ts";
import { killQuietly, recordFigures, Responsiveness, scale, seeded } from "../support/reliability.ts";
import type { JsonRpcResponse, TunnelEmulator } from "../support/tunnel-emulator.ts";

let setup: BridgeSetup | null = null;
let tunnel: TunnelEmulator | null = null;
let outside: string | null = null;
let swapper: ChildProcess | null = null;
let socket: Server | null = null;
afterAll(async () => {
  killQuietly(swapper?.pid);
  socket?.close();
  if (tunnel?.exit === null) killQuietly(tunnel.pid);
  await setup?.cleanup();
  if (outside) rmSync(outside, { recursive: true, force: true });
});

const RACES = scale(600, 100);

/** Every string in a response, with base64 blobs decoded: where an escape would show. */
function revealed(res: JsonRpcResponse): string {
  const parts: string[] = [JSON.stringify(res)];
  const walk = (v: unknown, key: string): void => {
    if (typeof v === "string" && (key === "blob" || key === "data")) parts.push(Buffer.from(v, "base64").toString("latin1"));
    else if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(res, "");
  return parts.join("\n");
}

describe("reliability: hostile paths", () => {
  it("returns nothing from outside the project and nothing sensitive, in every spelling and under swap races", async () => {
    const r = seeded("paths");
    const marker = `OUTSIDE-MARKER-${r.int(1e6, 9e6)}`;
    const sensitiveMarker = `SENSITIVE-MARKER-${r.int(1e6, 9e6)}`;
    outside = mkdtempSync(join(tmpdir(), "codex-bridge-outside-"));
    const secretName = `outside-secret-${r.int(1e6, 9e6)}.txt`;
    const secret = join(outside, secretName);
    writeFileSync(secret, `${marker}\n`);
    mkdirSync(join(outside, "dir"));
    writeFileSync(join(outside, "dir", "a.txt"), `${marker} in a directory\n`);

    const sensitiveNames = [".env", "id_rsa", "token.txt", "password.txt", "service-account.json", ".htpasswd", "terraform.tfstate", "kubeconfig", "wallet.dat", ".aws/credentials", ".ssh/id_ed25519", "certs/server.key", "secrets.yaml", ".npmrc", ".git-credentials"];
    const files: Record<string, string> = { "README.md": "# inside\n", "src/a.txt": "inside a\n", "src/b.txt": "inside b\n" };
    for (const n of sensitiveNames) files[n] = `${sensitiveMarker} ${n}\n`;
    setup = await prepareBridge({ files });
    const p = setup.projectDir;
    const outsideRel = `../${basename(outside)}`;
    symlinkSync(secret, join(p, "link-out-file"));
    symlinkSync(`${outsideRel}/${secretName}`, join(p, "link-out-rel"));
    symlinkSync(outside, join(p, "link-out-dir"));
    symlinkSync(join(p, "chain2"), join(p, "chain1"));
    symlinkSync(secret, join(p, "chain2"));
    symlinkSync(join(p, "loop-b"), join(p, "loop-a"));
    symlinkSync(join(p, "loop-a"), join(p, "loop-b"));
    symlinkSync("/nonexistent/nowhere", join(p, "dangling"));
    linkSync(secret, join(p, "hard-out.txt"));
    execFileSync("mkfifo", [join(p, "fifo")]);
    execFileSync("mkfifo", [join(p, "src", "fifo.txt")]);
    socket = createServer().listen(join(p, "sock"));
    for (const [name, target] of [["dev-zero", "/dev/zero"], ["dev-urandom", "/dev/urandom"], ["dev-null", "/dev/null"], ["dev-stdin", "/dev/stdin"], ["proc-environ", "/proc/self/environ"], ["proc-mem", "/proc/self/mem"], ["dev-tty", "/dev/tty"]]) {
      symlinkSync(target!, join(p, name!));
    }
    symlinkSync(".", join(p, "alias"));
    symlinkSync(join(p, "src", "a.txt"), join(p, "swap"));
    symlinkSync(join(p, "src"), join(p, "swapdir"));
    writeFileSync(join(p, "swaphard"), "inside swap\n");

    const t = await setup.spawn({ deadlineMs: 15_000, stopGraceMs: 10_000 });
    tunnel = t;
    const live = new Responsiveness();
    await t.initialize();

    const traversal = [
      `${outsideRel}/${secretName}`, `..\\${basename(outside)}\\${secretName}`, `src/../../${basename(outside)}/${secretName}`, `./././${outsideRel}/${secretName}`,
      `%2e%2e/${basename(outside)}/${secretName}`, `%252e%252e/${basename(outside)}/${secretName}`, `%c0%ae%c0%ae/${basename(outside)}/${secretName}`, `..%2f${basename(outside)}%2f${secretName}`,
      `\uff0e\uff0e/${basename(outside)}/${secretName}`, `..\u2215${basename(outside)}\u2215${secretName}`, secret, `/${secretName}`, `//${outside}/${secretName}`, `file://${secret}`,
      "C:\\Windows\\win.ini", "\\\\server\\share\\x", "/etc/passwd", "../../../../../../etc/passwd", "~/.ssh/id_rsa", "$HOME/.bashrc",
    ];
    const links = ["link-out-file", "link-out-rel", "link-out-dir", `link-out-dir/${secretName}`, "link-out-dir/dir/a.txt", "chain1", "loop-a", "dangling", "hard-out.txt", "alias/link-out-file", "alias/alias/hard-out.txt", "src/../link-out-file"];
    const specials = ["fifo", "src/fifo.txt", "sock", "dev-zero", "dev-urandom", "dev-null", "dev-stdin", "proc-environ", "proc-mem", "dev-tty", "/dev/zero", "/proc/self/environ"];
    const malformed = ["README.md\u0000.png", `README.md\ud800`, "README.md\ufffd", "CON", "nul.txt", "COM1", "aux", "README.md:stream", "README.md. ", "README.md/", "src/a.txt/..", `${"a/".repeat(300)}x`, "x".repeat(5000), "", ".", "..", "...", "src/./../README.md"];
    const sensitiveRefs = [...sensitiveNames, ".ENV", "alias/.env", "src/../token.txt", "./kubeconfig", "%2eenv", ".git/config", ".git/HEAD"];
    const artifactPaths = [...traversal, ...links, ...specials, ...malformed, ...sensitiveRefs];
    const listings = [undefined, ".", "alias", "alias/alias", "link-out-dir", `${outsideRel}`, "..", "/", "/etc", "src/..", "%2e%2e", "swapdir", "fifo", "dev-zero", ".ssh", ".aws", ".git"];
    const queries = ["*", "**", "*secret*", "*.txt", "..", "../*", ".env", "*token*", "*.key", "outside-*", "[", "\u0000"];
    const uris = [...artifactPaths.slice(0, 40).map((x) => `codex-artifact://demo/${x}`), `codex-artifact://demo/../../${basename(outside)}/${secretName}`, "codex-artifact://demo/%2e%2e/%2e%2e/etc/passwd", `codex-artifact://demo/${encodeURIComponent(`${outsideRel}/${secretName}`)}`, "codex-artifact://../demo/README.md", "codex-artifact:///etc/passwd"];

    const stats = { paths: 0, escapes: [] as string[], sensitive: [] as string[], unanswered: 0, refused: 0, served: 0 };
    const check = (label: string, res: JsonRpcResponse | null) => {
      if (!res) {
        stats.unanswered++;
        return;
      }
      const text = revealed(res);
      // An error may quote the path it refused; a listing that names the outside file has crossed over.
      const entries = "result" in res ? JSON.stringify((res.result as { structuredContent?: { entries?: unknown } }).structuredContent?.entries ?? []) : "";
      if (text.includes(marker) || entries.includes(secretName)) stats.escapes.push(`${label}: ${text.slice(0, 200)}`);
      if (text.includes(sensitiveMarker)) stats.sensitive.push(label);
      if ("error" in res || (res.result as { isError?: boolean }).isError) stats.refused++;
      else stats.served++;
    };
    const send = async (label: string, method: string, params: Record<string, unknown>) => {
      stats.paths++;
      r.note(`${label}: ${method} ${JSON.stringify(params).slice(0, 300)}`);
      let res: JsonRpcResponse | null = null;
      try {
        res = await t.request(method, params, { deadlineMs: 15_000 });
      } catch {
        res = null;
      }
      check(label, res);
      await live.ping(t);
    };
    for (const path of artifactPaths) await send(`artifact ${JSON.stringify(path).slice(0, 80)}`, "tools/call", { name: "codex_artifact", arguments: { project_id: "demo", path } });
    for (const path of listings) await send(`files ${path}`, "tools/call", { name: "codex_files", arguments: { project_id: "demo", ...(path === undefined ? { recursive: true } : { path, recursive: true }) } });
    for (const query of queries) await send(`query ${query}`, "tools/call", { name: "codex_files", arguments: { project_id: "demo", query } });
    for (const uri of uris) await send(`read ${uri.slice(0, 80)}`, "resources/read", { uri });

    // Swap races: a helper flips a symlink, a directory symlink and a hard link between inside and outside as fast as
    // it can while the bridge reads through them.
    const script = [
      `cd ${JSON.stringify(p)}`,
      "while :; do",
      `  ln -sfn ${JSON.stringify(secret)} swap.tmp && mv -Tf swap.tmp swap`,
      `  ln -sfn ${JSON.stringify(join(p, "src", "a.txt"))} swap.tmp && mv -Tf swap.tmp swap`,
      `  ln -sfn ${JSON.stringify(join(outside, "dir"))} swapdir.tmp && mv -Tf swapdir.tmp swapdir`,
      `  ln -sfn ${JSON.stringify(join(p, "src"))} swapdir.tmp && mv -Tf swapdir.tmp swapdir`,
      `  ln -f ${JSON.stringify(secret)} swaphard.tmp && mv -f swaphard.tmp swaphard`,
      `  printf 'inside swap\\n' > swaphard.tmp2 && mv -f swaphard.tmp2 swaphard`,
      "done",
    ].join("\n");
    swapper = spawn("bash", ["-c", script], { stdio: "ignore" });
    let races = 0;
    for (let i = 0; i < RACES; i++) {
      const which = r.pick(["swap", "swapdir/a.txt", "swaphard", "alias/swap", "swapdir/../swap"]);
      races++;
      if (r.chance(0.2)) await send(`race read ${which}`, "resources/read", { uri: `codex-artifact://demo/${which}` });
      else await send(`race ${which}`, "tools/call", { name: "codex_artifact", arguments: { project_id: "demo", path: which } });
      if (r.chance(0.05)) await send("race listing", "tools/call", { name: "codex_files", arguments: { project_id: "demo", path: "swapdir" } });
    }
    killQuietly(swapper.pid);
    stats.paths -= races;

    const alive = t.exit === null && t.fatal === null;
    await live.stop(t);
    recordFigures("hostile paths", {
      "paths tried": stats.paths,
      "swap races": races,
      refused: stats.refused,
      served: stats.served,
      escapes: stats.escapes.length,
      "sensitive contents served": stats.sensitive.length,
      "unanswered requests": stats.unanswered,
      crashes: alive ? 0 : 1,
      ...live.figures(),
      hangs: live.hangs + stats.unanswered,
    });
    console.info(`[hostile-paths] seed ${r.seed}; escapes: ${JSON.stringify(stats.escapes.slice(0, 5))}; sensitive: ${JSON.stringify(stats.sensitive)}`);
    expect(stats.paths).toBeGreaterThanOrEqual(100);
    expect(stats.escapes).toEqual([]);
    expect(stats.sensitive).toEqual([]);
    expect(stats.unanswered).toBe(0);
    expect(alive).toBe(true);
    expect(live.hangs).toBe(0);
  });
});
