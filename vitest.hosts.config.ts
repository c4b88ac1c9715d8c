// `npm run test:hosts`: real MCP hosts (Codex CLI, Claude Code, Gemini CLI) as supervisors of the bridge, offline, each
// host's own model replaced by a loopback mock of its API. Claude Code and Gemini CLI come from .ci/hosts (`npm ci` there). Not
// part of `npm test`.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/hosts/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
  },
});
