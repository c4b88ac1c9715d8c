// The [notify] table as the config loader reads it: defaults (nothing sent, content-free), and refusals that name the
// key and the fix (a plain-http webhook off this machine, a command that names no program, an unknown key).
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfigText } from "../../src/config/load.ts";

const parse = (text: string) => parseConfigText(text, { path: "/cfg/config.toml", strict: false }).config;
const refusal = (text: string): string => {
  try {
    parse(text);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error("accepted");
};

describe("[notify]", () => {
  it("defaults to no sink, content-free, every event, 12 a minute", () => {
    expect(parse("").notify).toEqual({ desktop: false, include_text: false, events: ["request_pending", "task_ended", "bridge_stopping"], max_per_minute: 12 });
  });

  it("takes a command, an https webhook with an ntfy topic, the desktop and include_text", () => {
    const n = parse(`[notify]\ndesktop = true\ncommand = ["/usr/local/bin/tell-me", "--quiet"]\nurl = "https://ntfy.sh"\ntopic = "my-bridge-2f9c"\ninclude_text = true\nevents = ["request_pending"]\n`).notify;
    expect(n).toEqual({ desktop: true, command: ["/usr/local/bin/tell-me", "--quiet"], url: "https://ntfy.sh", topic: "my-bridge-2f9c", include_text: true, events: ["request_pending"], max_per_minute: 12 });
    expect(parse(`[notify]\nurl = "http://127.0.0.1:8080/hook"\n`).notify.url).toBe("http://127.0.0.1:8080/hook");
  });

  it("refuses plain http off this machine, an empty command and unknown keys, naming them", () => {
    expect(refusal(`[notify]\nurl = "http://ntfy.example.com/topic"\n`)).toMatch(/notify\.url.*https:\/\/ address \(plain http only to 127\.0\.0\.1/);
    expect(refusal(`[notify]\ncommand = []\n`)).toMatch(/notify\.command.*must name a program/);
    expect(refusal(`[notify]\nsound = true\n`)).toMatch(/sound.*desktop, command, url, topic, include_text, events, max_per_minute/);
  });
});
