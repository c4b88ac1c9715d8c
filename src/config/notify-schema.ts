// The [notify] table: who hears when a request awaits a person, a task ends, or the bridge stops with work live.
// Kept apart from schema.ts so the notification settings read in one place.
import { z } from "zod";

export const NOTIFY_EVENTS = ["request_pending", "task_ended", "bridge_stopping"] as const;
export const DEFAULT_NOTIFY_PER_MINUTE = 12;

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** https anywhere; plain http only to this machine (a local relay, or a test's loopback server). */
function webhookProblem(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return "must be an absolute https:// address";
  }
  if (u.protocol === "https:") return null;
  if (u.protocol === "http:" && LOOPBACK_HOSTS.has(u.hostname)) return null;
  return "must be an https:// address (plain http only to 127.0.0.1, [::1] or localhost)";
}

export const notifyInputSchema = z.strictObject({
  /** The desktop's own notifications: notify-send, osascript or a Windows toast, whichever exists. */
  desktop: z.boolean({ error: "must be true or false" }).optional(),
  /** A program and its arguments; it gets one JSON event on stdin per notification. */
  command: z
    .array(z.string({ error: "must be a list of strings: the program, then its arguments" }), { error: "must be a list of strings: the program, then its arguments" })
    .min(1, { error: "must name a program: [\"/path/to/program\", \"arg\", …]" })
    .optional(),
  /** Each event is POSTed here as JSON (e.g. an ntfy server, with `topic`). */
  url: z
    .string({ error: "must be a string holding an https:// address" })
    .superRefine((v, ctx) => {
      const p = webhookProblem(v);
      if (p) ctx.addIssue({ code: "custom", message: p });
    })
    .optional(),
  /** Added to every webhook event as "topic", which is how ntfy's JSON publishing picks the topic. */
  topic: z.string({ error: "must be a string" }).regex(/^[A-Za-z0-9_-]{1,64}$/, { error: "must be 1-64 letters, digits, '_' or '-'" }).optional(),
  /** Adds the prompt, message, command text and paths (redacted); off by default: ids, project, state, kind only. */
  include_text: z.boolean({ error: "must be true or false" }).optional(),
  events: z.array(z.enum(NOTIFY_EVENTS, { error: `must be a list of: ${NOTIFY_EVENTS.join(", ")}` })).optional(),
  max_per_minute: z.number({ error: "must be a whole number from 1 to 600" }).int().min(1).max(600).optional(),
});
export type NotifyInput = z.infer<typeof notifyInputSchema>;

export interface NotifySettings {
  desktop: boolean;
  command?: string[];
  url?: string;
  topic?: string;
  include_text: boolean;
  events: (typeof NOTIFY_EVENTS)[number][];
  max_per_minute: number;
}

export function resolveNotify(input: NotifyInput | undefined): NotifySettings {
  return {
    desktop: input?.desktop ?? false,
    ...(input?.command ? { command: input.command } : {}),
    ...(input?.url ? { url: input.url } : {}),
    ...(input?.topic ? { topic: input.topic } : {}),
    include_text: input?.include_text ?? false,
    events: input?.events ?? [...NOTIFY_EVENTS],
    max_per_minute: input?.max_per_minute ?? DEFAULT_NOTIFY_PER_MINUTE,
  };
}
