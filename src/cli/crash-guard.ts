// The last net under a serving bridge: an error nothing caught is named in the log. A storage error (a full disk,
// a damaged or unwritable state file) never ends the process: the bridge keeps answering and says the condition in
// codex_health; anything else is a defect, logged by name before the process exits as it would have anyway.
import type { Logger } from "../log.ts";
import { storageCause, storeFailure, StoreError } from "../store/errors.ts";

const SQLITE_CODE = /^SQLITE_/;

function isStorageError(err: unknown): boolean {
  if (err instanceof StoreError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return (typeof code === "string" && SQLITE_CODE.test(code)) || storageCause(err) === "disk_full";
}

/** Installs the handlers once per process; `statePath` names the file in what is said. */
export function installCrashGuard(logger: Logger, statePath: () => string): void {
  const onError = (kind: "exception" | "rejection") => (err: unknown) => {
    if (isStorageError(err)) {
      const e = storeFailure(statePath(), err);
      logger.say("error", "uncaught_storage_error", `${e.storageCause}: ${e.message} (the bridge keeps running)`);
      return;
    }
    const name = err instanceof Error ? err.name : typeof err;
    const message = err instanceof Error ? err.message : String(err);
    logger.say("error", kind === "exception" ? "uncaught_exception" : "unhandled_rejection", `${name}: ${message}`);
    process.exit(1);
  };
  process.on("uncaughtException", onError("exception"));
  process.on("unhandledRejection", onError("rejection"));
}
