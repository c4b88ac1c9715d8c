// Vitest config for the real-browser tests (npm run test:browser): only test/browser/, which needs Chromium.
// npm test uses vitest.config.ts, which excludes test/browser/, so it runs with nothing but Node and npm.
import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    exclude: [...configDefaults.exclude],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
