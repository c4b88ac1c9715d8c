// The reliability suite's global setup: a directory where each phase leaves its figures, and at the end one summary
// with the headline figures (kills survived, faults survived, inputs, paths, secret placements, leaks, hangs).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

interface PhaseFile {
  phase: string;
  figures: Record<string, number | string>;
  quick: boolean;
  binary: string | null;
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), "codex-bridge-reliability-"));
  project.provide("reliabilityFiguresDir", dir);
  return () => {
    const phases: PhaseFile[] = existsSync(dir)
      ? readdirSync(dir).filter((f) => f.endsWith(".json")).map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as PhaseFile)
      : [];
    rmSync(dir, { recursive: true, force: true });
    console.log(summary(phases));
  };
}

const num = (phases: PhaseFile[], key: string) => phases.reduce((s, p) => s + (typeof p.figures[key] === "number" ? (p.figures[key] as number) : 0), 0);

function summary(phases: PhaseFile[]): string {
  const lines = ["", "==== codex-bridge reliability figures ===="];
  const first = phases[0];
  lines.push(`mode: ${first?.quick ? "quick (RELIABILITY_QUICK=1)" : "full"} · bridge: ${first?.binary ?? "source (bun src/cli/main.ts)"}`);
  for (const p of phases.sort((a, b) => a.phase.localeCompare(b.phase))) {
    lines.push(`-- ${p.phase}`);
    lines.push(`   ${Object.entries(p.figures).map(([k, v]) => `${k}: ${typeof v === "number" ? v.toLocaleString("en-US") : v}`).join(" · ")}`);
  }
  lines.push("-- headline");
  lines.push(`kills survived: ${num(phases, "kills survived")} of ${num(phases, "kills")} (bridge kill -9 across ${num(phases, "tasks")} tasks)`);
  lines.push(`app-server faults survived: ${num(phases, "faults survived")} of ${num(phases, "faults")}`);
  lines.push(`inputs tried: ${(num(phases, "tool calls") + num(phases, "raw lines")).toLocaleString("en-US")} (${num(phases, "tool calls").toLocaleString("en-US")} fuzzed tool calls, ${num(phases, "raw lines").toLocaleString("en-US")} malformed JSON-RPC lines)`);
  lines.push(`paths tried: ${num(phases, "paths tried")} (+ ${num(phases, "swap races")} swap races)`);
  lines.push(`secret placements tried: ${num(phases, "secret placements")}`);
  lines.push(`leaks found: ${num(phases, "leaks")}`);
  lines.push(`escapes found: ${num(phases, "escapes")}`);
  lines.push(`hangs: ${num(phases, "hangs")}`);
  lines.push(`phases reporting: ${phases.length} of 7`);
  return lines.join("\n");
}
