// The app-server's stderr reduced to counts and the source of the last error, on lines as the real 0.171.0 writes them.
import { describe, expect, it } from "vitest";
import { StderrCounter } from "../../src/codex/stderr-summary.ts";

const E = "\x1b";
const REAL = [
  `WARNING: proceeding, even though we could not create PATH aliases: Refusing to create helper binaries under temporary dir "/tmp" (codex_home: AbsolutePathBuf("/tmp/h8-home-TIHRkY"))`,
  `${E}[2m2026-11-30T13:27:47.773968Z${E}[0m ${E}[31mERROR${E}[0m ${E}[2mcodex_app_server${E}[0m${E}[2m:${E}[0m Codex could not find bubblewrap on PATH.`,
  `${E}[2m2026-11-30T13:27:48.802725Z${E}[0m ${E}[33m WARN${E}[0m ${E}[2mcodex_models_manager::model_info${E}[0m${E}[2m:${E}[0m Unknown model mock-model is used.`,
  `2026-11-30T13:27:49.000000Z ERROR codex_core::client: unexpected status 401 for /home/someone/project`,
];

describe("StderrCounter", () => {
  it("counts lines, warnings and errors, keeps the last error's source and none of the text", () => {
    const c = new StderrCounter();
    const text = REAL.join("\n") + "\n";
    // Split mid-line, as pipes deliver it.
    const errors = [...c.push(text.slice(0, 100)), ...c.push(text.slice(100))];
    expect(errors).toEqual(["codex_app_server", "codex_core::client"]);
    expect(c.summary).toEqual({ lines: 4, warnings: 1, errors: 2, last_error: "codex_core::client" });
    expect(JSON.stringify(c.summary)).not.toContain("/home/someone");
  });
});
