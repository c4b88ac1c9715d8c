// Entry point for every runtime and for the compiled binary. (Stub: replaced by the real dispatcher.)
const args = process.argv.slice(2);
if (args[0] === "--version") {
  console.log("codex-bridge 0.1.0");
} else {
  console.error("codex-bridge: not built yet");
  process.exitCode = 2;
}
