// What a serving bridge opens for the person at the machine, beside its MCP transport: the owner-only control
// endpoint (`codex-bridge tasks|watch|pending|approve…`) and the notifier ([notify]). Neither is needed to serve
// MCP, so a failure to open one is logged and the bridge serves on.
import type { Platform } from "../../platform/types.ts";
import type { NotifySettings } from "../config/notify-schema.ts";
import { controlEndpoint } from "../control/endpoint.ts";
import { openControlServer } from "../control/server.ts";
import type { EventLog } from "../log.ts";
import { Notifier } from "../notify/notifier.ts";
import { commandSink, desktopSink, webhookSink, type Sink } from "../notify/sinks.ts";
import type { PersonService } from "../service/person.ts";

// A stopping bridge gives its last notification this long, beside stopping the app-server (it exits within a second).
const STOP_NOTICE_MS = 600;

export interface PersonChannelsInput {
  platform: Platform;
  /** The state database's real path; undefined for a :memory: state. */
  database: string | undefined;
  notify: NotifySettings;
  person: PersonService;
  beforeClose: (() => Promise<void>)[];
}

export async function openPersonChannels(bridge: PersonChannelsInput, log: EventLog): Promise<void> {
  const notifier = new Notifier(bridge.notify, sinksOf(bridge.platform, bridge.notify, log), bridge.person, log);
  notifier.start();
  bridge.beforeClose.push(() => notifier.stopping(STOP_NOTICE_MS));
  // A throwaway :memory: state has no file to put the endpoint beside, and nobody else could find it.
  const database = bridge.database;
  if (!database) return;
  try {
    const control = await openControlServer(controlEndpoint(database), bridge.person, log);
    bridge.beforeClose.push(() => control.close("the bridge is stopping"));
  } catch (err) {
    log("warn", "control_unavailable", { code: (err as NodeJS.ErrnoException).code ?? "error" });
  }
}

function sinksOf(platform: Platform, s: NotifySettings, log: EventLog): Sink[] {
  const sinks: Sink[] = [];
  if (s.command) sinks.push(commandSink(platform, s.command));
  if (s.url) sinks.push(webhookSink(s.url));
  if (s.desktop) {
    const desktop = desktopSink(platform);
    if (desktop) sinks.push(desktop);
    else log("warn", "notify_desktop_unavailable", { platform: process.platform });
  }
  return sinks;
}
