// Project directories in Windows form: only a plain drive path passes; every form Windows rewrites is refused by name.
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/config/load.ts";
import { windowsCwdProblem } from "../../src/config/windows-cwd.ts";

describe("windowsCwdProblem", () => {
  it.each([
    ["C:\\Projects\\app"],
    ["d:/work/app"],
    ["C:\\Projects\\my.app\\src"],
    ["C:\\"],
    ["C:\\Projects\\console"],
    ["C:\\Projects\\com10"],
  ])("accepts %s", (p) => {
    expect(windowsCwdProblem(p)).toBeNull();
  });

  it.each([
    ["\\\\server\\share\\app", /UNC/],
    ["//server/share/app", /UNC/],
    ["\\\\?\\C:\\Projects\\app", /device prefix/],
    ["\\\\.\\C:\\Projects\\app", /device prefix/],
    ["\\\\?\\UNC\\server\\share", /device prefix/],
    ["C:\\Projects\\CON", /reserved device name/],
    ["C:\\Projects\\nul.txt", /reserved device name/],
    ["C:\\Projects\\LPT1\\x", /reserved device name/],
    ["C:\\Projects\\COM¹", /reserved device name/],
    ["C:\\Projects\\conout$", /reserved device name/],
    ["C:\\Projects\\app:stream", /alternate data stream/],
    ["C:\\Projects\\app::$DATA", /alternate data stream/],
    ["C:\\Projects\\app.", /dot or a space/],
    ["C:\\Projects\\app ", /dot or a space/],
    ["C:\\Projects\\..\\Windows", /\.\./],
    ["C:\\Projects\\.\\app", /"\."/],
    ["C:\\Projects\\a|b", /does not allow/],
    ["C:Projects\\app", /absolute drive path/],
    ["\\Projects\\app", /absolute drive path/],
    ["/home/user/app", /absolute drive path/],
  ])("refuses %s", (p, why) => {
    expect(windowsCwdProblem(p)).toMatch(why);
  });
});

describe("config with Windows project directories", () => {
  it("names the project key, the path and the problem, before touching the disk", () => {
    const text = `[projects.share]\ncwd = '\\\\server\\share\\app'\n[projects.stream]\ncwd = 'C:\\Projects\\app:secret'`;
    let message = "";
    try {
      parseConfigText(text, { path: "cfg.toml", windows: true });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/projects\.share\.cwd "\\\\\\\\server\\\\share\\\\app" is a UNC or network path/);
    expect(message).toMatch(/projects\.stream\.cwd .* alternate data stream/);
  });

  it("checks allowed_roots entries the same way", () => {
    expect(() => parseConfigText(`allowed_roots = ['C:\\Work\\AUX']`, { path: "cfg.toml", windows: true })).toThrow(/allowed_roots\[0\] .*reserved device name/);
  });
});
