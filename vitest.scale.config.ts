// `npm run test:scale`: a year of use on one machine: state growth and retention, cost with stored history, a full
// disk, a hung app-server and damaged state, against the bridge's own code and the real app-server.
// SCALE_QUICK=1 runs the bounded subset CI uses. Not part of `npm test`.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/scale/**/*.test.ts"],
    testTimeout: 3_600_000,
    hookTimeout: 300_000,
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
  },
});
