// Where notifications go: a command (one JSON event on stdin), a webhook (POSTed JSON) and the desktop's own
// notifications (notify-send, osascript or a Windows toast). Each delivery has a deadline, so none hangs forever.
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { Platform } from "../../platform/types.ts";
import type { NotifyEvent } from "./event.ts";

export const DELIVERY_MS = 10_000;

export interface Sink {
  readonly name: "command" | "webhook" | "desktop";
  deliver(e: NotifyEvent): Promise<void>;
}

function envOf(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return env;
}

/** Runs the program with the event on stdin; it must exit 0 within DELIVERY_MS (it is killed otherwise). */
async function runWith(platform: Platform, argv: string[], stdin: string | null): Promise<void> {
  const child = platform.spawn(argv[0]!, argv.slice(1), { env: envOf() });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.killTree("SIGKILL");
      reject(new Error("timed_out"));
    }, DELIVERY_MS);
  });
  try {
    if (stdin !== null) await Promise.race([child.write(stdin), deadline]).catch((e: unknown) => {
      if (e instanceof Error && e.message === "timed_out") throw e;
      // A program that does not read its stdin may still succeed.
    });
    child.endStdin();
    const exit = await Promise.race([child.exited, deadline]);
    if (exit.code !== 0) throw new Error(`exit_${exit.code ?? exit.signal ?? "unknown"}`);
  } finally {
    clearTimeout(timer);
  }
}

export function commandSink(platform: Platform, argv: string[]): Sink {
  return { name: "command", deliver: (e) => runWith(platform, argv, `${JSON.stringify(e)}\n`) };
}

export function webhookSink(url: string): Sink {
  return {
    name: "webhook",
    async deliver(e) {
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(e), signal: AbortSignal.timeout(DELIVERY_MS) });
      // The body is not needed; read it so the connection is released.
      await res.arrayBuffer().catch(() => undefined);
      if (!res.ok) throw new Error(`http_${res.status}`);
    },
  };
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const full = join(dir, name);
    if (existsSync(full)) return full;
  }
  return undefined;
}

const appleQuoted = (s: string) => `"${s.replace(/["\\]/g, "")}"`;
const psQuoted = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** The desktop's notifier, or null when this system has none the bridge knows. */
export function desktopSink(platform: Platform, os: string = process.platform): Sink | null {
  let argv: ((e: NotifyEvent) => string[]) | null = null;
  if (os === "darwin" && onPath("osascript")) {
    argv = (e) => ["osascript", "-e", `display notification ${appleQuoted(e.message)} with title ${appleQuoted(e.title)}`];
  } else if (os === "win32" && onPath("powershell.exe")) {
    // A toast through the Windows Runtime API PowerShell can reach without modules (untested on a real desktop here).
    argv = (e) => [
      "powershell.exe",
      "-NoProfile",
      "-Command",
      `[Windows.UI.Notifications.ToastNotificationManager, Windows.UI.Notifications, ContentType = WindowsRuntime] > $null; ` +
        `$x = [Windows.UI.Notifications.ToastNotificationManager]::GetTemplateContent([Windows.UI.Notifications.ToastTemplateType]::ToastText02); ` +
        `$t = $x.GetElementsByTagName('text'); $t.Item(0).AppendChild($x.CreateTextNode(${psQuoted(e.title)})) > $null; ` +
        `$t.Item(1).AppendChild($x.CreateTextNode(${psQuoted(e.message)})) > $null; ` +
        `[Windows.UI.Notifications.ToastNotificationManager]::CreateToastNotifier('codex-bridge').Show([Windows.UI.Notifications.ToastNotification]::new($x))`,
    ];
  } else {
    const bin = onPath("notify-send");
    if (bin) argv = (e) => [bin, "--app-name=codex-bridge", e.title, e.message];
  }
  if (!argv) return null;
  const make = argv;
  return { name: "desktop", deliver: (e) => runWith(platform, make(e), null) };
}
