import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // test/browser/ needs a real Chromium: npm run test:browser (vitest.browser.config.ts) runs it; test/reliability/ is
    // the long fault and fuzz suite: npm run test:reliability (vitest.reliability.config.ts).
    exclude: [...configDefaults.exclude, "test/browser/**", "test/reliability/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
