// What makes an answer the person's: a per-task key that only the task card's view receives. The MCP layer puts it in
// the `_meta` of tool results, which MCP Apps hosts hand to the view and never to the model, so a model that calls
// every tool it sees still cannot produce it. The key is an HMAC of the task id under a secret made when the bridge
// starts: bound to one task, nothing to store, gone with the process (the card picks up a fresh one from its next
// codex_card result), and refused once the task has settled.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export class CardKeys {
  constructor(private readonly secret: Buffer = randomBytes(32)) {}

  /** The key of one task's card: 32 URL-safe characters (192 bits). */
  keyFor(taskId: string): string {
    return createHmac("sha256", this.secret).update(`task-card:${taskId}`).digest("base64url").slice(0, 32);
  }

  /** True only for this task's key, compared in constant time. */
  matches(taskId: string, key: unknown): boolean {
    if (typeof key !== "string") return false;
    const want = Buffer.from(this.keyFor(taskId));
    const got = Buffer.from(key);
    return got.length === want.length && timingSafeEqual(got, want);
  }
}
