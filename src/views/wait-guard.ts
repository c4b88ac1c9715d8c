// At most one wait per connection and task reads through the automatic cursor at a time: two would be handed the
// same events and both move the cursor past them. A second one is refused, never queued.
import { BridgeError } from "../bridge-error.ts";

export class WaitGuard {
  private readonly held = new Set<string>();

  /** Claims every task for the connection, or throws naming the first one already being waited on. */
  claim(connectionKey: string, taskIds: string[]): () => void {
    const keys = taskIds.map((id) => `${connectionKey}\u0000${id}`);
    const busy = taskIds.find((_, i) => this.held.has(keys[i]!));
    if (busy) {
      throw new BridgeError(
        `another codex_wait on ${busy} is still running on this connection; wait for its answer instead of starting a second one (or pass an explicit cursor to read independently)`,
        "task_id",
      );
    }
    for (const k of keys) this.held.add(k);
    return () => {
      for (const k of keys) this.held.delete(k);
    };
  }
}
