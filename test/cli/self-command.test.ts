// The lines init prints for Windows users: each must run as printed at the prompt it names.
import { describe, expect, it } from "vitest";
import { windowsRunLines } from "../../src/cli/self-command.ts";

describe("windowsRunLines", () => {
  it("a path that needs no quoting: one line that cmd.exe and PowerShell both run", () => {
    expect(windowsRunLines(["Z:\\tmp\\cb\\codex-bridge-windows-x64.exe"], "doctor")).toEqual(["Z:\\tmp\\cb\\codex-bridge-windows-x64.exe doctor"]);
  });

  it("a path with spaces: double quotes for cmd.exe, & and single quotes for PowerShell, never shell-style quoting", () => {
    const lines = windowsRunLines(["C:\\Program Files\\it's here\\codex-bridge.exe"], "doctor");
    expect(lines).toEqual([
      `"C:\\Program Files\\it's here\\codex-bridge.exe" doctor   (cmd.exe)`,
      `& 'C:\\Program Files\\it''s here\\codex-bridge.exe' doctor   (PowerShell)`,
    ]);
  });

  it("the runtime and script form quotes each word", () => {
    const lines = windowsRunLines(["C:\\Program Files\\nodejs\\node.exe", "C:\\cb\\dist\\codex-bridge.mjs"], "doctor");
    expect(lines[0]).toBe(`"C:\\Program Files\\nodejs\\node.exe" "C:\\cb\\dist\\codex-bridge.mjs" doctor   (cmd.exe)`);
  });
});
