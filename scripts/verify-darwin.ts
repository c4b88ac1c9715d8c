// CI check of the two darwin executables, without macOS: each is a 64-bit Mach-O executable for its CPU, and its
// code signature verifies page by page (every SHA-256 page hash re-computed, the signed range reaching the signature).
// Usage: bun scripts/verify-darwin.ts [DIR]   (default dist-binaries); exit 1 when either fails.
import fs from "node:fs";
import path from "node:path";
import { verifySignature } from "./macho-codesign.ts";

const CPU = { "darwin-x64": 0x01000007, "darwin-arm64": 0x0100000c } as const;
const dir = process.argv[2] ?? "dist-binaries";
let failed = 0;
for (const [target, cpu] of Object.entries(CPU)) {
  const file = path.join(dir, `codex-bridge-${target}`);
  const buf = fs.readFileSync(file);
  const problems: string[] = [];
  if (buf.readUInt32LE(0) !== 0xfeedfacf) problems.push("not a 64-bit Mach-O file");
  else {
    if (buf.readUInt32LE(4) !== cpu) problems.push(`CPU type 0x${buf.readUInt32LE(4).toString(16)}, expected 0x${cpu.toString(16)}`);
    if (buf.readUInt32LE(12) !== 2) problems.push("not an executable (MH_EXECUTE)");
  }
  const sig = problems.length ? null : verifySignature(buf);
  if (sig && !sig.ok) problems.push(...sig.problems);
  if (problems.length || !sig) {
    failed++;
    console.log(`${target}: signature INVALID: ${problems.join("; ")}`);
  } else {
    console.log(`${target}: signature verified (${sig.adhoc ? "ad hoc" : "signed"}, identifier ${sig.identifier}, ${sig.pages} pages re-hashed, all match)`);
  }
}
process.exit(failed ? 1 : 0);
