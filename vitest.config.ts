import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // test/browser/ needs a real Chromium: npm run test:browser (vitest.browser.config.ts) runs it.
    exclude: [...configDefaults.exclude, "test/browser/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
