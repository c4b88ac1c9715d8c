// test:scale, full disk: the real bridge process (source under Bun, or CODEX_BRIDGE_BIN) with its state on a small
// tmpfs that a filler file fills while a turn streams, twice. The bridge must stay up, answer every call, say
// disk_full with what to do, and, once the filler is gone, store everything and finish the turn by itself.
// Needs root (mount); without it the phase says so and is skipped.
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bridgeFixture, callTool, type ToolAnswer } from "../support/bridge-process.ts";
import type { TunnelEmulator } from "../support/tunnel-emulator.ts";

const QUICK = process.env.SCALE_QUICK === "1";
const DELTAS = QUICK ? 2_000 : 20_000;
const TMPFS_BYTES = 4 * 1024 * 1024;

let mountDir = "";
let mounted = false;
let why = "";

beforeAll(() => {
  if (process.platform !== "linux" || process.getuid?.() !== 0) {
    why = "needs root on Linux to mount a small tmpfs";
    return;
  }
  mountDir = mkdtempSync(join(tmpdir(), "codex-bridge-fulldisk-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${TMPFS_BYTES},mode=0700`, "tmpfs", mountDir], { stdio: "pipe" });
    mounted = true;
  } catch (err) {
    why = `mount -t tmpfs failed: ${(err as Error).message.split("\n")[0]}`;
  }
});

afterAll(() => {
  if (mounted) execFileSync("umount", ["-l", mountDir], { stdio: "pipe" });
  if (mountDir) rmSync(mountDir, { recursive: true, force: true });
});

/** Writes a filler file until the file system refuses more; returns its size. */
function fill(path: string): number {
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
    // The last page or so may still be free: take what is left byte-wise so the next write must fail.
    for (const size of [4096, 512, 1]) {
      try {
        for (;;) written += writeSync(fd, chunk.subarray(0, size));
      } catch {
        // full at this size
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

const fixture = bridgeFixture();

describe("test:scale full disk", () => {
  it("the state's disk filling mid-turn, twice, leaves the bridge running, answering and recovering by itself", async (ctx) => {
    if (!mounted) {
      console.log(`full-disk phase skipped: ${why}`);
      ctx.skip();
      return;
    }
    const setup = await fixture.prepare({ approvalPolicy: "never" });
    const t = await fixture.start(setup, { env: { CODEX_BRIDGE_STATE: join(mountDir, "state.sqlite3") } });
    await t.initialize();
    // The slowest answer while the disk is full (codex_wait holds by design and is not counted).
    let slowest = 0;
    let calls = 0;
    let diskFull = false;
    const call = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> => {
      const t0 = Date.now();
      const a = await callTool(t, name, args);
      if (diskFull && name !== "codex_wait") {
        slowest = Math.max(slowest, Date.now() - t0);
        calls++;
      }
      return a;
    };
    expect((await call("codex_health", {})).structured.healthy).toBe(true);
    const figures: string[] = [];
    for (const round of [1, 2]) {
      const text = Array.from({ length: DELTAS }, (_, i) => `r${round}w${i}`).join(" ");
      setup.provider.enqueue({ kind: "output", delayMs: 1500, items: [{ type: "message", text, deltas: DELTAS }] });
      const start = await call("codex_start", { project_id: "demo", prompt: `stream ${round}` });
      expect(start.isError, start.text).toBe(false);
      const id = start.structured.task_id as string;
      const filler = join(mountDir, "filler");
      fill(filler);
      diskFull = true;
      const filledAt = Date.now();

      const health = await until(t, async () => {
        const h = await call("codex_health", {});
        // Said as soon as a write fails; "paused" once the intake itself holds what the app-server streams.
        const detail = JSON.stringify(h.structured.checks ?? []);
        return h.structured.sqlite?.problem === "disk_full" && /reading from the app-server is paused/.test(detail) ? h : null;
      }, "codex_health to say disk_full with the intake held");
      const reportedMs = Date.now() - filledAt;
      const sqlite = (health.structured.checks as { name: string; detail: string }[]).find((c) => c.name === "sqlite")!;
      expect(sqlite.detail).toMatch(/the disk is full.*Free space/);
      expect(sqlite.detail).toContain(mountDir);
      // Reads keep answering on the full disk; the task says why it is not moving.
      const status = await call("codex_status", { task_id: id });
      expect(status.isError, status.text).toBe(false);
      expect(status.text).toMatch(/bridge disk_full/);
      const refused = await call("codex_start", { project_id: "demo", prompt: "more" });
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/disk is full/);
      expect(t.exit, t.stderr.slice(-2000)).toBeNull();

      rmSync(filler);
      diskFull = false;
      const freedAt = Date.now();
      const done = await until(t, async () => {
        const w = await call("codex_wait", { task_id: id, timeout_seconds: 5 });
        return ["completed", "failed", "interrupted", "connection_lost"].includes(w.structured.state) ? w : null;
      }, `task ${id} to finish once space returned`);
      const recoveredMs = Date.now() - freedAt;
      expect(done.structured.state).toBe("completed");
      const result = await call("codex_result", { task_id: id });
      expect(result.structured.final_message).toBe(text);
      expect((await call("codex_health", {})).structured.sqlite.ok).toBe(true);
      figures.push(`round ${round}: disk_full reported in ${reportedMs} ms, turn finished ${recoveredMs} ms after space returned, ${DELTAS} deltas all stored`);
    }
    expect(t.exit, t.stderr.slice(-2000)).toBeNull();
    console.log(["==== test:scale full disk ====", ...figures, `tool calls while the disk was full: ${calls}, slowest ${slowest} ms; bridge still running (pid ${t.pid})`].join("\n"));
  });
});

async function until<T>(t: TunnelEmulator, check: () => Promise<T | null>, what: string, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (t.exit) throw new Error(`the bridge exited (${JSON.stringify(t.exit)}) while waiting for ${what}; stderr: ${t.stderr.slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr: ${t.stderr.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
