// What a serving bridge opens for the person at the machine, beside its MCP transport: the owner-only control
// endpoint (`codex-bridge tasks|watch|pending|approve…`). Neither is needed to serve MCP, so a failure to open one
// is logged and the bridge serves on.
import { controlEndpoint } from "../control/endpoint.ts";
import { openControlServer } from "../control/server.ts";
import type { EventLog } from "../log.ts";
import type { PersonService } from "../service/person-service.ts";

export interface PersonChannelsInput {
  /** The state database's real path; undefined for a :memory: state. */
  database: string | undefined;
  person: PersonService;
  beforeClose: (() => Promise<void>)[];
}

export async function openPersonChannels(bridge: PersonChannelsInput, log: EventLog): Promise<void> {
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
