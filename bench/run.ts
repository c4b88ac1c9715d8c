// npm run bench [-- --quick] [-- --json] [-- --no-build] [-- --only=startup,turns,fake,artifact]: the raw app-server and the compiled bridge measured in the
// same run, figure by figure (start-up, trivial turns, memory, a 5,000-delta message, an event storm, wake and
// approval latency, status round trips, a 32 MiB artifact). Prints the table and writes bench/results.json. A
// report, not a test: nothing asserts, missed targets are marked. --quick (for CI) keeps it under two minutes.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { measureArtifact } from "./perf/artifact.ts";
import { measureWithFake } from "./perf/fake-figures.ts";
import { machineLine } from "./perf/procfs.ts";
import { formatRows, perfRows, type PerfReport } from "./perf/report.ts";
import { measureStartup } from "./perf/startup.ts";
import { measureTurns } from "./perf/turns.ts";
import { ensureBinary, openWorld, ROOT } from "./perf/world.ts";

/** How much of each figure a run takes: the full run, and --quick for CI. */
const SIZES = {
  full: { startupRuns: 15, turns: 300, deltaRuns: 3, samples: 100, statusCalls: 200, storm: 100_000, artifactRuns: 3 },
  quick: { startupRuns: 5, turns: 20, deltaRuns: 1, samples: 25, statusCalls: 50, storm: 100_000, artifactRuns: 1 },
} as const;

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const size = quick ? SIZES.quick : SIZES.full;
const SECTIONS = ["startup", "turns", "fake", "artifact"] as const;
const onlyArg = args.find((a) => a.startsWith("--only="));
const only = new Set(onlyArg ? onlyArg.slice("--only=".length).split(",") : SECTIONS);
for (const name of only) {
  if (!(SECTIONS as readonly string[]).includes(name)) {
    process.stderr.write(`bench: --only names "${name}"; the sections are ${SECTIONS.join(", ")}\n`);
    process.exit(2);
  }
}
const log = (s: string) => process.stderr.write(`${s}\n`);

const began = performance.now();
const machine = machineLine();
const binary = ensureBinary(log, !args.includes("--no-build"));
const world = await openWorld();
const report: PerfReport = {};
try {
  if (only.has("startup")) {
    log(`start-up: ${size.startupRuns} runs each ...`);
    report.startup = await measureStartup(world, binary, size.startupRuns);
  }
  if (only.has("turns")) {
    log(`turns: ${size.turns} of one task on each side, then ${size.deltaRuns} 5,000-delta message(s) ...`);
    report.turns = await measureTurns(world, binary, size.turns, size.deltaRuns, log);
  }
  if (only.has("fake")) {
    log(`fake app-server: ${size.samples} wake and approval samples, ${size.statusCalls} status calls, a ${size.storm.toLocaleString("en-US")}-event storm ...`);
    report.fake = await measureWithFake(world, binary, size.samples, size.statusCalls, size.storm);
  }
  if (only.has("artifact")) {
    log(`artifact: 32 MiB, ${size.artifactRuns} run(s) ...`);
    report.artifact = await measureArtifact(world, binary, size.artifactRuns);
  }
} finally {
  await world.close();
}

const rows = perfRows(report);
const seconds = (performance.now() - began) / 1000;
const results = { generatedAt: new Date().toISOString(), mode: quick ? "quick" : "full", machine, runtime: `bun ${process.versions.bun ?? "?"}`, binary: "dist-binaries/codex-bridge-linux-x64", seconds, sizes: size, rows, samples: report };
// A partial run is for looking at one figure; it leaves the last full table's results alone.
if (!onlyArg) writeFileSync(join(ROOT, "bench", "results.json"), JSON.stringify(results, null, 2) + "\n");
if (args.includes("--json")) process.stdout.write(JSON.stringify(results, null, 2) + "\n");
else {
  process.stdout.write(`codex-bridge performance (${quick ? "quick" : "full"} run, ${seconds.toFixed(0)} s): raw codex app-server vs the bridge binary, same run\n`);
  process.stdout.write(`machine: ${machine}\n\n${formatRows(rows)}\n\n${onlyArg ? "" : "wrote bench/results.json\n"}`);
}
