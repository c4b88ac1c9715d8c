import type { ChildHandle } from "../../../platform/types.ts";

/** Collects a child's stdout and hands out complete lines as they arrive. */
export function lineReader(child: ChildHandle): { next(): Promise<string>; all(): string[] } {
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  let partial = "";
  let taken = 0;
  child.onStdout((chunk) => {
    partial += chunk;
    let nl: number;
    while ((nl = partial.indexOf("\n")) >= 0) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      lines.push(line);
      const waiter = waiters.shift();
      if (waiter) {
        taken++;
        waiter(line);
      }
    }
  });
  return {
    next() {
      if (taken < lines.length) return Promise.resolve(lines[taken++]!);
      return new Promise<string>((resolve, reject) => {
        waiters.push(resolve);
        void child.exited.then((exit) => {
          const i = waiters.indexOf(resolve);
          if (i >= 0) {
            waiters.splice(i, 1);
            reject(new Error(`child exited (${JSON.stringify(exit)}) before printing a line`));
          }
        });
      });
    },
    all: () => [...lines],
  };
}
