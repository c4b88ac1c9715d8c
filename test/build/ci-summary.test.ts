// The last lines CI prints: counts per step, and for a failed step the failed tests by name with the first line of
// their error, so a failure is diagnosable from the summary alone.
import { afterEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/temp-dir.ts";

const script = new URL("../../scripts/ci-summary.mjs", import.meta.url).pathname;
let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function summarize(files: Record<string, string>, ledger: string[]): { out: string; status: number | null } {
  dir = tempDir("cb-ci-summary-");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, "ledger.tsv"), ledger.map((l) => l.replaceAll("DIR", dir)).join("\n") + "\n");
  const r = spawnSync(process.execPath, [script, join(dir, "ledger.tsv")], { encoding: "utf8" });
  return { out: r.stdout, status: r.status };
}

describe("ci-summary", () => {
  it("names each failed test of vitest, bun and deno with its first error line, and ends with one count line", () => {
    const vitest = {
      numPassedTests: 3,
      numFailedTests: 1,
      testResults: [
        {
          name: "a.test.ts",
          status: "failed",
          assertionResults: [
            { status: "passed", fullName: "ok one" },
            { status: "failed", fullName: "lock > wins once", failureMessages: ["\n\u001b[31mAssertionError: expected 2 to be 3\u001b[39m\n    at x"] },
          ],
        },
      ],
    };
    const deno = [
      " ERRORS ",
      "",
      "holder lock > racing => ./test/deno/vitest-shim.ts:79:8",
      "error: \u001b[31mAssertionError\u001b[0m: expected [] to have a length of 1",
      "    at x",
      "",
      " FAILURES ",
      "",
      "holder lock > racing => ./test/deno/vitest-shim.ts:79:8",
      "",
      "\u001b[31mFAILED\u001b[0m | 86 passed | 1 failed | 3 ignored (22s)",
    ].join("\n");
    const bun = ["(fail) spawn > exits [12.00ms]", "", " 89 pass", " 1 fail"].join("\n");
    const { out, status } = summarize(
      { "v.json": JSON.stringify(vitest), "deno.txt": deno, "bun.txt": bun },
      ["vitest\tunit\tDIR/v.json\t1", "deno\tdeno\tDIR/deno.txt\t1", "bun\tbun\tDIR/bun.txt\t1", "check\tbuild\t0"],
    );
    expect(status).toBe(1);
    const lines = out.trimEnd().split("\n");
    expect(lines).toContain("       - lock > wins once: AssertionError: expected 2 to be 3");
    expect(lines).toContain("       - holder lock > racing: AssertionError: expected [] to have a length of 1");
    expect(lines).toContain("       - spawn > exits");
    expect(lines.filter((l) => l.includes("holder lock > racing"))).toHaveLength(1);
    expect(lines.at(-1)).toBe("179 passed, 3 failed");
  });

  it("lists no test lines when everything passed", () => {
    const { out, status } = summarize({ "bun.txt": " 5 pass\n 0 fail\n" }, ["bun\tbun\tDIR/bun.txt\t0", "check\tbuild\t0"]);
    expect(status).toBe(0);
    expect(out).not.toContain("       - ");
    expect(out.trimEnd().split("\n").at(-1)).toBe("6 passed, 0 failed");
  });
});
