// The control endpoint's boundary: a Unix socket 0600 in a 0700 directory beside the state database, refused to another
// local user (a client run as an unprivileged uid), its directory checked before use, a dead bridge's socket replaced,
// requests validated with an answer naming the field, and watchers told when the bridge stops.
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { controlEndpoint, ensurePrivateDir } from "../../src/control/endpoint.ts";
import { openControlServer, type ControlServer } from "../../src/control/server.ts";
import { poll } from "../support/poll.ts";
import { tempDir } from "../support/temp-dir.ts";
import { fakePerson, TASK, type FakePerson } from "./fake-person.ts";

const NOBODY = 65534;
let server: ControlServer | null = null;
let fake: FakePerson | null = null;
afterEach(async () => {
  await server?.close("test over");
  server = null;
  fake?.store.close();
  fake = null;
});

/** A world-traversable directory holding the state database's name, so only the endpoint's own modes stand guard. */
function openParent(): string {
  const dir = tempDir("control-endpoint-");
  chmodSync(dir, 0o755);
  return join(dir, "state.sqlite3");
}

async function start(database: string): Promise<ControlServer> {
  fake = await fakePerson();
  server = await openControlServer(controlEndpoint(database), fake.person, () => {});
  return server;
}

/** One request, every reply line until the bridge closes the connection. */
function ask(path: string, line: string): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const s = connect(path);
    let buf = "";
    s.setEncoding("utf8");
    s.on("connect", () => s.write(`${line}\n`));
    s.on("data", (c: string) => (buf += c));
    s.on("error", reject);
    s.on("close", () => resolve(buf.split("\n").filter(Boolean).map((l) => JSON.parse(l))));
  });
}

const CLIENT = `const s=require("node:net").connect(process.argv[1]);s.on("connect",()=>{console.log("connected");process.exit(0)});s.on("error",(e)=>{console.log(e.code);process.exit(0)})`;
/** Connects to `path` from a process running as uid/gid 65534 (setpriv); prints "connected" or the error code. */
function asNobody(path: string): { ran: boolean; said: string; why: string } {
  const r = spawnSync("setpriv", [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", process.execPath, "-e", CLIENT, path], { encoding: "utf8", timeout: 30_000 });
  return { ran: r.status === 0, said: (r.stdout ?? "").trim(), why: `${r.error?.message ?? ""}${r.stderr ?? ""}`.trim() };
}

describe("where the endpoint is", () => {
  it("beside the database; in a per-user temp directory when that path is too long for a socket; a pipe on Windows", () => {
    expect(controlEndpoint("/home/me/.local/share/codex-bridge/state.sqlite3", "linux")).toEqual({
      path: "/home/me/.local/share/codex-bridge/state.sqlite3.control/socket",
      dir: "/home/me/.local/share/codex-bridge/state.sqlite3.control",
    });
    const deep = `/home/me/${"nested-directory/".repeat(8)}state.sqlite3`;
    const long = controlEndpoint(deep, "linux");
    expect(Buffer.byteLength(long.path)).toBeLessThanOrEqual(100);
    expect(long.dir).toMatch(/codex-bridge-control-[^/]+$/);
    expect(controlEndpoint(deep, "linux")).toEqual(long);
    expect(controlEndpoint(`${deep}x`, "linux").path).not.toBe(long.path);
    const pipe = controlEndpoint("C:\\Users\\me\\AppData\\Local\\codex-bridge\\state.sqlite3", "win32");
    expect(pipe.dir).toBeUndefined();
    expect(pipe.path).toMatch(/^\\\\\.\\pipe\\codex-bridge-[^\\]+-[0-9a-f]{16}$/);
  });
});

describe("the control endpoint", () => {
  it("is a socket 0600 in a 0700 directory beside the state database, and answers its owner", async () => {
    const db = openParent();
    const s = await start(db);
    expect(s.path).toBe(join(`${db}.control`, "socket"));
    expect(statSync(`${db}.control`).mode & 0o777).toBe(0o700);
    expect(statSync(s.path).isSocket()).toBe(true);
    expect(statSync(s.path).mode & 0o777).toBe(0o600);
    const [reply] = await ask(s.path, JSON.stringify({ v: 1, cmd: "tasks", all: true }));
    expect(reply).toMatchObject({ ok: true, result: [{ task_id: TASK, project_id: "demo", state: "running" }] });
  });

  it("refuses another local user (a client run as uid 65534), who can reach an open socket beside it", async (ctx) => {
    if (process.getuid?.() !== 0) ctx.skip("needs root to run a client as another uid (setpriv); run the suite as root, as CI does");
    if (spawnSync("setpriv", ["--version"]).status !== 0) ctx.skip("setpriv (util-linux) is not installed");
    const db = openParent();
    const s = await start(db);
    // The control run: the same unprivileged client connects to a socket that nothing guards, in the same parent.
    const openDir = join(db, "..", "open");
    mkdirSync(openDir, { mode: 0o777 });
    chmodSync(openDir, 0o777);
    const openSocket = join(openDir, "socket");
    const other = createServer((c) => c.end());
    await new Promise<void>((r) => other.listen(openSocket, r));
    chmodSync(openSocket, 0o777);
    try {
      const control = asNobody(openSocket);
      if (!control.ran) ctx.skip(`uid ${NOBODY} cannot run ${process.execPath} here (${control.why}); the refusal below would prove nothing`);
      expect(control.said).toBe("connected");
      expect(asNobody(s.path).said).toBe("EACCES");
    } finally {
      other.close();
    }
    // The owner still gets in.
    const [reply] = await ask(s.path, JSON.stringify({ v: 1, cmd: "pending" }));
    expect(reply).toMatchObject({ ok: true, result: [] });
  });

  it("takes a dead bridge's socket file's place, tightens a loose directory, and refuses a symlink or another user's directory", async () => {
    const db = openParent();
    const dir = `${db}.control`;
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, "socket"), "left by a dead bridge");
    const s = await start(db);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(s.path).isSocket()).toBe(true);

    const target = tempDir("control-target-");
    const link = join(target, "..", `${target.split("/").pop()}-link.control`);
    symlinkSync(target, link);
    try {
      expect(() => ensurePrivateDir(link)).toThrow(/not a directory \(a symlink or file is in the way\)/);
    } finally {
      spawnSync("rm", ["-f", link]);
    }
    if (process.getuid?.() === 0) {
      const theirs = join(tempDir("control-theirs-"), "dir");
      mkdirSync(theirs, { mode: 0o700 });
      chownSync(theirs, NOBODY, NOBODY);
      expect(() => ensurePrivateDir(theirs)).toThrow(/belongs to another user \(uid 65534\)/);
    }
  });

  it("answers a malformed request with the field to fix, and an unknown request id with what is pending", async () => {
    const s = await start(openParent());
    const [bad] = await ask(s.path, JSON.stringify({ v: 1, cmd: "decide", request_id: "r_nope", verdict: "approve", for_session: false }));
    expect(bad).toMatchObject({ ok: false, error: expect.stringMatching(/request_id: a request id like r_0123456789/) });
    const [notJson] = await ask(s.path, "approve everything");
    expect(notJson).toMatchObject({ ok: false, error: expect.stringMatching(/not one JSON object/) });
    const id = fake!.ask(7);
    const [unknown] = await ask(s.path, JSON.stringify({ v: 1, cmd: "decide", request_id: "r_0000000000", verdict: "approve", for_session: false }));
    expect(unknown).toMatchObject({ ok: false, field: "request_id", error: expect.stringContaining(`pending: ${id}`) });
  });

  it("tells a watcher the bridge stops, and removes its socket", async () => {
    const s = await start(openParent());
    const got: unknown[] = [];
    const sock = connect(s.path);
    let buf = "";
    sock.setEncoding("utf8");
    sock.on("connect", () => sock.write(`${JSON.stringify({ v: 1, cmd: "watch", task_id: TASK })}\n`));
    sock.on("data", (c: string) => {
      buf += c;
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        got.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
    });
    const closed = new Promise((r) => sock.on("close", r));
    // The watch is registered once its first reply is out; a request recorded after that reaches it.
    await poll(() => got.length > 0, { timeoutMs: 10_000, what: "the watch's first reply" });
    fake!.ask(8, "make build");
    await poll(() => got.length > 1, { timeoutMs: 10_000, what: "the request's watch line" });
    await s.close("the bridge is stopping");
    server = null;
    await closed;
    expect(got[0]).toMatchObject({ ok: true, result: { watching: TASK, live: [TASK] } });
    expect(got).toContainEqual({ line: expect.objectContaining({ task_id: TASK, text: expect.stringMatching(/^\? r_[0-9a-f]{10} command approval: make build \(in \/tmp\/person-project\/pkg\)/) }) });
    expect(got.at(-1)).toEqual({ bye: "the bridge is stopping" });
    expect(existsSync(s.path)).toBe(false);
  });
});
