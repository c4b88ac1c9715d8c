// Reads the ledger .ci/run writes (one step per line, tab-separated) and prints a breakdown and then ONE plain line,
// "N passed, N failed", counting every test of every vitest JSON report, bun test and deno test run plus one per
// check step.
// Exit status: 0 only when nothing failed.
//
// Ledger lines:
//   vitest <TAB> NAME <TAB> REPORT.json <TAB> EXIT   tests from vitest's JSON reporter
//   bun    <TAB> NAME <TAB> OUTPUT.txt  <TAB> EXIT   tests from the "N pass" / "N fail" summary of bun test
//   deno   <TAB> NAME <TAB> OUTPUT.txt  <TAB> EXIT   tests from the "ok | N passed | N failed" summary of deno test
//   check  <TAB> NAME <TAB> EXIT                     one pass or one fail
import { existsSync, readFileSync } from "node:fs";

// The first line of a failure message, short enough to read in the summary; the full text is in the step's output.
function firstLine(message) {
  const line = String(message ?? "").replace(/\x1b\[[0-9;]*m/g, "").split("\n").find((l) => l.trim()) ?? "";
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function vitestCounts(reportPath, exit) {
  if (!existsSync(reportPath)) return { passed: 0, failed: 1, note: "no JSON report (the run crashed before writing it)" };
  let report;
  try {
    report = JSON.parse(readFileSync(reportPath, "utf8"));
  } catch (err) {
    return { passed: 0, failed: 1, note: `unreadable JSON report: ${err.message}` };
  }
  const passed = report.numPassedTests ?? 0;
  let failed = report.numFailedTests ?? 0;
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  const notes = [];
  const failures = [];
  for (const file of report.testResults ?? []) {
    for (const t of file.assertionResults ?? []) {
      if (t.status === "failed") failures.push(`${t.fullName ?? t.title}: ${firstLine((t.failureMessages ?? [])[0])}`);
    }
  }
  // A file that fails to load, or whose beforeAll throws, may fail without any failed test: count the file once.
  for (const file of report.testResults ?? []) {
    const failedTests = (file.assertionResults ?? []).filter((t) => t.status === "failed").length;
    if (file.status === "failed" && failedTests === 0) {
      failed += 1;
      notes.push(`file failed without a failed test: ${file.name}${file.message ? ` (${String(file.message).split("\n")[0]})` : ""}`);
    }
  }
  if (exit !== 0 && failed === 0) {
    failed = 1;
    notes.push(`vitest exited ${exit} with no failed test (unhandled error?)`);
  }
  if (skipped) notes.push(`${skipped} skipped`);
  return { passed, failed, note: notes.join("; "), failures };
}

function bunCounts(outputPath, exit) {
  const text = existsSync(outputPath) ? readFileSync(outputPath, "utf8") : "";
  const pass = /^\s*(\d+) pass\s*$/m.exec(text);
  const fail = /^\s*(\d+) fail\s*$/m.exec(text);
  if (!pass || !fail) return { passed: 0, failed: 1, note: `no bun test summary (exit ${exit})` };
  let failed = Number(fail[1]);
  const notes = [];
  if (exit !== 0 && failed === 0) {
    failed = 1;
    notes.push(`bun test exited ${exit} with no failed test`);
  }
  const failures = [...text.matchAll(/^\(fail\) (.+?)(?: \[[\d.]+m?s\])?$/gm)].map((m) => m[1]);
  return { passed: Number(pass[1]), failed, note: notes.join("; "), failures };
}

// deno test colours its output even into a file; its summary line reads, once the colours are stripped,
// "ok | 59 passed | 0 failed (13s)" or "FAILED | 4 passed (2 steps) | 4 failed | 1 ignored (361ms)".
function denoCounts(outputPath, exit) {
  const text = existsSync(outputPath) ? readFileSync(outputPath, "utf8").replace(/\x1b\[[0-9;]*m/g, "") : "";
  const summary = /^(?:ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed(?: \(\d+ steps?\))?(?: \| (\d+) ignored)?/m.exec(text);
  if (!summary) return { passed: 0, failed: 1, note: `no deno test summary (exit ${exit})` };
  let failed = Number(summary[2]);
  const notes = [];
  if (exit !== 0 && failed === 0) {
    failed = 1;
    notes.push(`deno test exited ${exit} with no failed test`);
  }
  if (summary[3] && Number(summary[3]) > 0) notes.push(`${summary[3]} ignored`);
  // deno test's ERRORS section: "<test name> => <file>:<line>" and, a line later, "error: <message>".
  const failures = [...text.matchAll(/^(.+?) => \S+:\d+:\d+\nerror: (.*)$/gm)].map((m) => `${m[1]}: ${firstLine(m[2])}`);
  return { passed: Number(summary[1]), failed, note: notes.join("; "), failures: [...new Set(failures)] };
}

function main(ledgerPath) {
  if (!ledgerPath || !existsSync(ledgerPath)) {
    console.log("0 passed, 1 failed");
    console.error(`ci-summary: no ledger at ${ledgerPath}`);
    return 1;
  }
  let passed = 0;
  let failed = 0;
  const rows = [];
  for (const line of readFileSync(ledgerPath, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const [kind, name, a, b] = line.split("\t");
    let c;
    if (kind === "vitest") c = vitestCounts(a, Number(b));
    else if (kind === "bun") c = bunCounts(a, Number(b));
    else if (kind === "deno") c = denoCounts(a, Number(b));
    else if (kind === "check") c = Number(a) === 0 ? { passed: 1, failed: 0, note: "" } : { passed: 0, failed: 1, note: `exit ${a}` };
    else c = { passed: 0, failed: 1, note: `unknown ledger line: ${line}` };
    passed += c.passed;
    failed += c.failed;
    rows.push(`  ${c.failed ? "FAIL" : "ok  "} ${name}: ${c.passed} passed, ${c.failed} failed${c.note ? ` (${c.note})` : ""}`);
    for (const f of (c.failures ?? []).slice(0, 10)) rows.push(`       - ${f}`);
  }
  console.log("Summary:");
  for (const r of rows) console.log(r);
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 && passed > 0 ? 0 : 1;
}

process.exitCode = main(process.argv[2]);
