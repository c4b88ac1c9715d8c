// Test support: the one way tests wait for something that settles asynchronously (a process going away, a line
// on stderr, a notification arriving). It either returns what it waited for or throws saying what never came.

export type Truthy<T> = Exclude<T, false | 0 | 0n | "" | null | undefined>;

export interface PollOptions {
  /** How long to keep asking before giving up. */
  timeoutMs: number;
  /** What is awaited, for the error ("app-server 1234 to exit"); a function is called only when it times out. */
  what: string | (() => string);
  /** Pause between two checks, in ms (default 20; 0 for checks that wait by themselves, such as a long-poll). */
  interval?: number;
}

/**
 * Calls `check` until it returns a truthy value and resolves with that value. A check that throws counts as "not
 * yet" (it is asked again). After `timeoutMs` it throws an Error naming what was awaited and the last state seen:
 * the last value the check returned, or the last error it threw (also kept as the error's `cause`).
 */
export async function poll<T>(check: () => T | Promise<T>, opts: PollOptions): Promise<Truthy<Awaited<T>>> {
  const deadline = Date.now() + opts.timeoutMs;
  const interval = opts.interval ?? 20;
  let last: { value: unknown } | { error: unknown } = { value: undefined };
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Truthy<Awaited<T>>;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() >= deadline) {
      const what = typeof opts.what === "function" ? opts.what() : opts.what;
      const seen = "error" in last ? `last error: ${describeError(last.error)}` : `last value: ${describeValue(last.value)}`;
      throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${what}; ${seen}`, "error" in last ? { cause: last.error } : undefined);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}

function describeError(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : describeValue(err);
}

function describeValue(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? "undefined" : typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 2000 ? `${text.slice(0, 2000)}… (${text.length} chars)` : text;
}
