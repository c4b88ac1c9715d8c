import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // test/browser/ needs a real Chromium: npm run test:browser (vitest.browser.config.ts) runs it; test/reliability/ is
    // the long fault and fuzz suite: npm run test:reliability (vitest.reliability.config.ts); test/scale/ is npm run
    // test:scale and test/hosts/ npm run test:hosts (real Codex CLI, Claude Code and Gemini CLI as MCP clients).
    exclude: [...configDefaults.exclude, "test/browser/**", "test/reliability/**", "test/scale/**", "test/hosts/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
