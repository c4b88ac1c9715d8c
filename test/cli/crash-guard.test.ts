// The last net under a serving bridge: a storage error nothing caught is logged by name and the process keeps
// running; any other uncaught error is logged by name before the process exits as it would have anyway.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUN } from "../support/bridge-process.ts";
import { PROJECT_ROOT } from "../support/real-codex.ts";

const CHILD = join(PROJECT_ROOT, "test", "cli", "fixtures", "crash-guard-child.ts");
const run = (kind: string) => spawnSync(BUN, [CHILD, kind], { cwd: PROJECT_ROOT, encoding: "utf8", timeout: 30_000 });

describe("crash guard", () => {
  it("an uncaught storage error is logged naming the cause and the file, and the bridge keeps running", () => {
    const r = run("storage");
    expect(r.stdout).toBe("still running\n");
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/error uncaught_storage_error disk_full: .*\/state\/of\/this\/bridge\.sqlite3.*the disk is full.*\(the bridge keeps running\)/);
  });

  it("any other uncaught error is logged by name and still ends the process", () => {
    const r = run("defect");
    expect(r.stdout).toBe("");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error uncaught_exception TypeError: a defect/);
  });
});
