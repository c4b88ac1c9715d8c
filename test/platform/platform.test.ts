// The host layer of the platform: which runtime is detected, process liveness, the per-OS config/data directories,
// and the Windows reparse-point check.
import { describe, expect, it } from "vitest";
import { symlinkSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { detectRuntime, getPlatform } from "../../platform/index.ts";
import { isReparsePoint, osDirs } from "../../platform/host-node.ts";
import { tempDir } from "../support/temp-dir.ts";

describe("getPlatform", () => {
  it("matches the runtime running the tests and is cached", async () => {
    const g = globalThis as { Bun?: unknown; Deno?: unknown };
    const expected = g.Bun !== undefined ? "bun" : g.Deno !== undefined ? "deno" : "node";
    expect(detectRuntime()).toBe(expected);
    const platform = await getPlatform();
    expect(platform.name).toBe(expected);
    expect(await getPlatform()).toBe(platform);
  });

  it("dirs() follows the OS conventions of this machine", async () => {
    const dirs = (await getPlatform()).dirs();
    expect(dirs.home).toBe(homedir());
    if (process.platform === "linux") {
      expect(dirs.config).toBe(process.env.XDG_CONFIG_HOME?.startsWith("/") ? process.env.XDG_CONFIG_HOME : join(homedir(), ".config"));
    }
  });
});

describe("processAlive", () => {
  it("is true for this process and false for nonsense pids", async () => {
    const platform = await getPlatform();
    expect(platform.processAlive(process.pid)).toBe(true);
    expect(platform.processAlive(0)).toBe(false);
    expect(platform.processAlive(-1)).toBe(false);
    expect(platform.processAlive(1.5)).toBe(false);
  });

  it("is false once a child has exited", async () => {
    const platform = await getPlatform();
    const child = platform.spawn(process.execPath, ["-e", "0"], { env: { PATH: process.env.PATH ?? "" } });
    await child.exited;
    expect(platform.processAlive(child.pid)).toBe(false);
  });
});

describe("osDirs", () => {
  const home = "/home/u";
  it("uses XDG variables on Linux and ignores relative ones", () => {
    expect(osDirs({ XDG_CONFIG_HOME: "/cfg", XDG_DATA_HOME: "/dat" }, "linux", home)).toEqual({ config: "/cfg", data: "/dat", home });
    expect(osDirs({ XDG_CONFIG_HOME: "rel", XDG_DATA_HOME: "" }, "linux", home)).toEqual({
      config: "/home/u/.config",
      data: "/home/u/.local/share",
      home,
    });
  });

  it("uses Application Support on macOS", () => {
    const support = join(home, "Library", "Application Support");
    expect(osDirs({ XDG_CONFIG_HOME: "/cfg" }, "darwin", home)).toEqual({ config: support, data: support, home });
  });

  it("uses APPDATA and LOCALAPPDATA on Windows", () => {
    expect(osDirs({ APPDATA: "C:\\Users\\u\\AppData\\Roaming", LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" }, "win32", home)).toEqual({
      config: "C:\\Users\\u\\AppData\\Roaming",
      data: "C:\\Users\\u\\AppData\\Local",
      home,
    });
  });
});

describe("isReparsePoint", () => {
  it("is false off Windows even for a symlink, and checks links on Windows", () => {
    const dir = tempDir("cb-reparse-");
    const link = join(dir, "link");
    symlinkSync(tmpdir(), link, "dir");
    expect(isReparsePoint(link, "linux")).toBe(false);
    // lstat reports Windows junctions as symbolic links; the same check recognises this link when told it is Windows.
    expect(isReparsePoint(link, "win32")).toBe(true);
    expect(isReparsePoint(dir, "win32")).toBe(false);
    expect(isReparsePoint(join(dir, "missing"), "win32")).toBe(false);
  });
});
