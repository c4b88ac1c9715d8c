// `npm run test:reliability`: the fault, fuzz, hostile-path, secret, flood and shared-database phases against the real
// bridge process (CODEX_BRIDGE_BIN, or the source), one phase at a time, with a summary of figures at the end.
// RELIABILITY_QUICK=1 runs the bounded subset CI uses. Not part of `npm test`.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/reliability/**/*.test.ts"],
    globalSetup: ["test/reliability/global-setup.ts"],
    testTimeout: 3_600_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
  },
});
