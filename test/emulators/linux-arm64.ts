// Emulator aid (not part of the product): runs the linux-arm64 release executable under qemu-user, with the arm64
// Codex from npm, as a user on an arm64 Linux machine would: --version, doctor, and a whole supervised task over
// stdio against a loopback mock model. Codex's bundled bwrap cannot create namespaces under qemu-user, so the task's
// profile runs commands without a sandbox (danger-full-access); that is the emulator's limit, not the bridge's.
// Usage: bun test/emulators/linux-arm64.ts BINARY ARM64_CODEX   (.ci/run registers the qemu binfmt entry first)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { mkdtempSync } from "node:fs";
import { isolatedCodexEnv, writeIsolatedCodexHome } from "../../src/codex/isolated-home.ts";
import { startMockProvider } from "../../src/selftest/mock-provider/index.ts";
import { connect, finish, step } from "./session.ts";

const [binary, codexBin] = process.argv.slice(2).map((p) => resolve(p));
if (!binary || !codexBin) {
  console.error("usage: bun test/emulators/linux-arm64.ts BINARY ARM64_CODEX");
  process.exit(2);
}
const root = mkdtempSync(join(tmpdir(), "codex-bridge-arm64-"));
const project = join(root, "project");
mkdirSync(project);
writeFileSync(join(project, "README.md"), "# arm64 project\n");
spawnSync("git", ["init", "-q", "-b", "main"], { cwd: project });
const provider = await startMockProvider();
const home = join(root, "codex-home");
writeIsolatedCodexHome({ dir: home, providerBaseUrl: provider.baseUrl });
const config = join(root, "config.toml");
writeFileSync(
  config,
  [`[projects.arm]`, `cwd = ${JSON.stringify(project)}`, ``, `[profiles.default]`, `approval_policy = "never"`, `sandbox_type = "danger-full-access"`, ``].join("\n"),
);
const env: Record<string, string> = {
  ...isolatedCodexEnv(process.env, { codexHome: home }),
  CODEX_BIN: codexBin,
  CODEX_BRIDGE_CONFIG: config,
  CODEX_BRIDGE_STATE: join(root, "state.sqlite3"),
  QEMU_LD_PREFIX: process.env.QEMU_LD_PREFIX ?? "/usr/aarch64-linux-gnu",
};
const run = (args: string[]) => spawnSync(binary, args, { cwd: root, env, encoding: "utf8", timeout: 120_000 });

try {
  await step("linux-arm64 --version", () => {
    const r = run(["--version"]);
    if (r.status !== 0 || !/^codex-bridge \S+/.test(r.stdout)) throw new Error(`exit ${r.status}: ${r.stdout}${r.stderr}`);
    return r.stdout.trim();
  });
  await step("linux-arm64 doctor --json with the arm64 Codex", () => {
    const r = run(["doctor", "--json"]);
    const report = JSON.parse(r.stdout) as Record<string, any>;
    if (r.status !== 0 || !report.healthy) throw new Error(`exit ${r.status}: ${r.stdout}${r.stderr}`);
    if (report.bridge.target !== "bun-linux-arm64") throw new Error(`target ${report.bridge.target}`);
    return `healthy, target ${report.bridge.target}, codex ${report.codex.version} (supported ${report.codex.supported}), ${report.codex.models} models`;
  });
  await step("linux-arm64 a whole supervised task over stdio (arm64 Codex, no-sandbox profile)", async () => {
    provider.enqueue(
      { kind: "output", items: [{ type: "message", text: "Writing it." }, { type: "exec", cmd: "echo written-under-qemu > arch.txt" }] },
      { kind: "output", items: [{ type: "message", text: "arch.txt written." }] },
    );
    const s = await connect(binary, ["serve"], env, root);
    try {
      const started = Date.now();
      const task = await s.ok("codex_start", { project_id: "arm", prompt: "write the machine name to arch.txt" });
      let state = task.state as string;
      for (let i = 0; i < 30 && !["completed", "failed", "interrupted", "connection_lost", "unknown"].includes(state); i++) {
        state = (await s.ok("codex_wait", { task_id: task.task_id, timeout_seconds: 10 })).state as string;
      }
      if (state !== "completed") throw new Error(`the task ended ${state}; ${s.stderr().slice(-800)}`);
      const result = await s.ok("codex_result", { task_id: task.task_id });
      const cmd = (result.evidence?.commands ?? [])[0];
      if (!cmd || cmd.exit_code !== 0) throw new Error(`command evidence: ${JSON.stringify(result.evidence)}`);
      // The command itself is the host's shell (qemu-user runs only the arm64 executables: the bridge and Codex).
      const written = readFileSync(join(project, "arch.txt"), "utf8");
      if (written !== "written-under-qemu\n") throw new Error(`arch.txt holds ${JSON.stringify(written)}`);
      const artifact = await s.ok("codex_artifact", { project_id: "arm", path: "arch.txt" });
      if (artifact.size !== written.length) throw new Error(`artifact ${JSON.stringify(artifact)}`);
      const health = await s.ok("codex_health");
      if (health.bridge?.target !== "bun-linux-arm64" || health.codex?.version !== "0.171.0") throw new Error(`health ${JSON.stringify(health.bridge)} ${JSON.stringify(health.codex)}`);
      return `completed in ${((Date.now() - started) / 1000).toFixed(1)} s: \`${cmd.command}\` exit 0; the artifact read back; final "${result.final_message}"`;
    } finally {
      await s.close();
    }
  });
} finally {
  await provider.close();
  if (existsSync(root)) rmSync(root, { recursive: true, force: true });
}
finish("linux-arm64 under qemu-user");
