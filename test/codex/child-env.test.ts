// The app-server child's environment per profile, as a pure function: inherit keeps everything but the dropped
// names; minimal keeps only what a process needs plus env_allow; the key, the HTTP token and env_deny never pass.
import { describe, expect, it } from "vitest";
import { appServerEnv } from "../../src/codex/child-env.ts";

const BASE = {
  HOME: "/home/u",
  PATH: "/home/u/bin:/usr/bin",
  TMPDIR: "/tmp/u",
  LANG: "en_US.UTF-8",
  LC_TIME: "de_DE.UTF-8",
  CODEX_HOME: "/home/u/.codex",
  CONTROL_PLANE_API_KEY: "cp",
  CODEX_BRIDGE_HTTP_TOKEN: "tok",
  OPENAI_API_KEY: "sk",
  GIT_AUTHOR_NAME: "U",
  SSH_AUTH_SOCK: "/run/ssh",
  UNSET: undefined,
};

describe("appServerEnv", () => {
  it("inherit keeps the bridge's environment minus the tunnel key and the HTTP token", () => {
    const env = appServerEnv(BASE, { mode: "inherit" }, "linux");
    const { CONTROL_PLANE_API_KEY: _k, CODEX_BRIDGE_HTTP_TOKEN: _t, UNSET: _u, ...rest } = BASE;
    expect(env).toEqual(rest);
    expect(appServerEnv(BASE, undefined, "linux")).toEqual(env);
  });

  it("inherit drops env_deny names too", () => {
    const env = appServerEnv(BASE, { mode: "inherit", deny: ["OPENAI_API_KEY", "SSH_AUTH_SOCK"] }, "linux");
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(env.SSH_AUTH_SOCK).toBeUndefined();
    expect(env.GIT_AUTHOR_NAME).toBe("U");
  });

  it("minimal keeps HOME, CODEX_HOME, TMPDIR, locale and env_allow, with the system PATH", () => {
    const env = appServerEnv(BASE, { mode: "minimal", allow: ["GIT_AUTHOR_NAME"] }, "linux");
    expect(env).toEqual({
      HOME: "/home/u",
      CODEX_HOME: "/home/u/.codex",
      TMPDIR: "/tmp/u",
      LANG: "en_US.UTF-8",
      LC_TIME: "de_DE.UTF-8",
      GIT_AUTHOR_NAME: "U",
      PATH: "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
    });
  });

  it("minimal with PATH in env_allow keeps the user's PATH; env_deny beats env_allow", () => {
    const env = appServerEnv(BASE, { mode: "minimal", allow: ["PATH", "SSH_AUTH_SOCK"], deny: ["SSH_AUTH_SOCK"] }, "linux");
    expect(env.PATH).toBe("/home/u/bin:/usr/bin");
    expect(env.SSH_AUTH_SOCK).toBeUndefined();
  });

  it("a profile's codex_home replaces the bridge's CODEX_HOME in both modes", () => {
    expect(appServerEnv(BASE, { mode: "inherit", codexHome: "/srv/codex-a" }, "linux").CODEX_HOME).toBe("/srv/codex-a");
    expect(appServerEnv(BASE, { mode: "minimal", codexHome: "/srv/codex-a" }, "linux").CODEX_HOME).toBe("/srv/codex-a");
    expect(appServerEnv({ PATH: "/bin" }, { mode: "minimal", codexHome: "/srv/codex-a" }, "linux").CODEX_HOME).toBe("/srv/codex-a");
  });

  it("on Windows names match in any case, the process essentials stay and PATH is the system's", () => {
    const win = {
      Path: "C:\\Users\\u\\bin;C:\\Windows\\System32",
      SystemRoot: "C:\\Windows",
      ComSpec: "C:\\Windows\\System32\\cmd.exe",
      USERPROFILE: "C:\\Users\\u",
      LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local",
      Control_Plane_Api_Key: "cp",
      OneDrive: "C:\\Users\\u\\OneDrive",
    };
    const env = appServerEnv(win, { mode: "minimal" }, "win32");
    expect(env).toEqual({
      SystemRoot: "C:\\Windows",
      ComSpec: "C:\\Windows\\System32\\cmd.exe",
      USERPROFILE: "C:\\Users\\u",
      LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local",
      PATH: "C:\\Windows\\System32;C:\\Windows;C:\\Windows\\System32\\Wbem;C:\\Windows\\System32\\WindowsPowerShell\\v1.0",
    });
    expect(appServerEnv(win, { mode: "inherit" }, "win32").Control_Plane_Api_Key).toBeUndefined();
  });
});
