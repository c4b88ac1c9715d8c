// The logger: one line per event, levels, values that are not ids withheld, a size-rotated file, errors still on stderr.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatEvent, Logger } from "../src/log.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const at = new Date("2026-01-02T03:04:05.678Z");

describe("formatEvent", () => {
  it("writes time, level, event and key=value ids; anything that is not an id is replaced by its length", () => {
    const line = formatEvent(at, "error", "turn_failed", { task: "t_0123456789", code: "auth_rejected", exit: null, n: 3, prompt: "print my secret now", path: "/home/a b/x" });
    expect(line).toBe("2026-01-02T03:04:05.678Z error turn_failed task=t_0123456789 code=auth_rejected exit=none n=3 prompt=<19ch> path=<11ch>");
    expect(formatEvent(at, "info", "Bad Event!", { "Weird Key": "x" })).toBe("2026-01-02T03:04:05.678Z info event");
  });
});

describe("Logger", () => {
  it("drops events below its level", () => {
    const out: string[] = [];
    const l = new Logger({ level: "warn", stderr: (s) => out.push(s), now: () => at });
    l.log("info", "ready");
    l.log("debug", "noise");
    l.log("warn", "relay_stale", { request: "r_0123456789" });
    expect(out).toEqual(["2026-01-02T03:04:05.678Z warn relay_stale request=r_0123456789\n"]);
  });

  it("writes to a file rotated by size, keeping PATH.1 … PATH.N; errors and the ready line also reach stderr", () => {
    const dir = mkdtempSync(join(tmpdir(), "cb-log-"));
    dirs.push(dir);
    const file = join(dir, "logs", "bridge.log");
    const out: string[] = [];
    const l = new Logger({ level: "debug", file, maxFileBytes: 400, keepFiles: 2, stderr: (s) => out.push(s), now: () => at });
    for (let i = 0; i < 40; i++) l.log("info", "turn_completed", { task: `t_${String(i).padStart(10, "0")}` });
    l.log("error", "turn_failed", { task: "t_0000000040", code: "rate_limited" });
    l.announce("ready", { pid: 1 });
    expect(readdirSync(join(dir, "logs")).sort()).toEqual(["bridge.log", "bridge.log.1", "bridge.log.2"]);
    for (const f of readdirSync(join(dir, "logs"))) expect(readFileSync(join(dir, "logs", f)).length).toBeLessThanOrEqual(400);
    expect(readFileSync(file, "utf8")).toContain("turn_failed task=t_0000000040 code=rate_limited");
    expect(out).toEqual([
      "2026-01-02T03:04:05.678Z error turn_failed task=t_0000000040 code=rate_limited\n",
      "2026-01-02T03:04:05.678Z info ready pid=1\n",
    ]);
  });

  it("says a bridge's own sentence on one line", () => {
    const out: string[] = [];
    new Logger({ stderr: (s) => out.push(s), now: () => at }).say("error", "startup_failed", "config /x/config.toml:\n  bad key");
    expect(out).toEqual(["2026-01-02T03:04:05.678Z error startup_failed config /x/config.toml: bad key\n"]);
  });
});
