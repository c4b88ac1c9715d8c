// What the bridge keeps of the app-server's stderr for its own log: how many lines, how many warnings and errors,
// and the source (Rust module path) of the last error, never the text, which can quote prompts, paths or output.

// Codex logs through `tracing`: `<timestamp>  ERROR codex_core::codex: message` (coloured with ANSI escapes even
// into a pipe); other lines are plain text.
const LEVELED = /^\S*\s+(ERROR|WARN)\s+([A-Za-z_][\w]*(?:::[\w]+)*)/;
const ANSI = /\x1b\[[0-9;]*m/g;

export interface StderrSummary {
  lines: number;
  warnings: number;
  errors: number;
  /** The module that logged the last ERROR line, e.g. `codex_core::client`; null when none did. */
  last_error: string | null;
}

export class StderrCounter {
  private partial = "";
  readonly summary: StderrSummary = { lines: 0, warnings: 0, errors: 0, last_error: null };

  /** Counts the complete lines in `chunk`; returns the source of each ERROR line seen. */
  push(chunk: string): string[] {
    const text = this.partial + chunk;
    const lines = text.split("\n");
    this.partial = (lines.pop() ?? "").slice(-4096);
    const errors: string[] = [];
    for (const raw of lines) {
      const line = raw.replace(ANSI, "");
      if (!line.trim()) continue;
      this.summary.lines++;
      const m = LEVELED.exec(line);
      if (m?.[1] === "WARN") this.summary.warnings++;
      if (m?.[1] === "ERROR") {
        this.summary.errors++;
        this.summary.last_error = m[2]!;
        errors.push(m[2]!);
      }
    }
    return errors;
  }
}
