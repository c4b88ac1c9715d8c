// The layering of codex-bridge as rules, checked by `npm test` (test/architecture/layers.test.ts):
// cli -> app/selftest -> mcp -> service -> views -> tasks -> runtime/policy -> codex/store/config/artifacts -> platform.
// Nothing points back up, nothing is circular, and only platform/ touches a runtime or a SQLite driver.
const SRC = "^src/";
const layer = (names) => `^src/(${names.join("|")})/`;

const DOMAINS = ["service", "views", "tasks", "runtime", "policy"];
const INFRA = ["codex", "store", "config", "artifacts"];

/** from-layer -> layers it must never import. */
const FORBIDDEN = [
  ["cli", []],
  ["selftest", ["cli"]],
  ["app", ["cli", "selftest"]],
  ["mcp", ["cli", "selftest", "app", "control", "store", "codex", "tasks", "runtime", "policy", "config"]],
  // The person's control endpoint is a sibling of mcp: it reaches the domains only through the service.
  ["control", ["cli", "selftest", "app", "mcp", "store", "codex", "tasks", "runtime", "policy", "config", "views"]],
  // The notifier reads the bridge through the service too; it may use the config's types and the redaction.
  ["notify", ["cli", "selftest", "app", "mcp", "control", "store", "codex", "tasks", "runtime", "views"]],
  ["service", ["cli", "selftest", "app", "mcp", "control", "notify"]],
  ["views", ["cli", "selftest", "app", "mcp", "service"]],
  ["tasks", ["cli", "selftest", "app", "mcp", "service", "views"]],
  ["runtime", ["cli", "selftest", "app", "mcp", "service", "views", "tasks", "policy"]],
  ["policy", ["cli", "selftest", "app", "mcp", "service", "views", "tasks", "runtime", "codex", "artifacts"]],
  ["codex", ["cli", "selftest", "app", "mcp", ...DOMAINS, "store", "config", "artifacts"]],
  ["store", ["cli", "selftest", "app", "mcp", ...DOMAINS, "codex", "config", "artifacts"]],
  // config takes its default sensitive_paths from the artifacts table; artifacts never read config.
  ["config", ["cli", "selftest", "app", "mcp", ...DOMAINS, "codex", "store"]],
  ["artifacts", ["cli", "selftest", "app", "mcp", ...DOMAINS, "codex", "store", "config"]],
].filter(([, to]) => to.length > 0);

module.exports = {
  forbidden: [
    ...FORBIDDEN.map(([from, to]) => ({
      name: `layer-${from}`,
      comment: `src/${from} must not import ${to.join(", ")} (data flows one way: see the README's Architecture)`,
      severity: "error",
      from: { path: layer([from]) },
      to: { path: layer(to) },
    })),
    {
      name: "mcp-only-through-the-service",
      comment: "src/mcp reaches the bridge only through src/service (BridgeService and the types, errors and limits it exports), besides the shared leaf modules at the top of src/",
      severity: "error",
      from: { path: "^src/mcp/" },
      to: { path: "^(src|platform)/", pathNot: "^src/(mcp|service)/|^src/[^/]+\\.ts$" },
    },
    {
      name: "mcp-apps-stand-alone",
      comment: "the MCP Apps pages (src/mcp/apps/) are page text: they import nothing outside their folder",
      severity: "error",
      from: { path: "^src/mcp/apps/" },
      to: { path: "^(src|platform)/", pathNot: "^src/mcp/apps/" },
    },
    {
      name: "mcp-transport-knows-no-tool",
      comment: "the transports (src/mcp/transport/) carry messages; they know no tool and no page",
      severity: "error",
      from: { path: "^src/mcp/transport/" },
      to: { path: "^src/mcp/(tools|apps)/" },
    },
    {
      name: "mcp-tools-know-no-transport",
      comment: "the tools (src/mcp/tools/) work the same on every transport",
      severity: "error",
      from: { path: "^src/mcp/tools/" },
      to: { path: "^src/mcp/transport/" },
    },
    {
      name: "no-circular",
      comment: "modules must not import each other in a circle",
      severity: "error",
      from: { path: SRC },
      to: { circular: true },
    },
    {
      name: "platform-only-runtime",
      comment: "only platform/ may import a runtime (bun:*, child processes) or a SQLite driver",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(bun:|node:child_process$|child_process$|libsql$|node_modules/libsql/|better-sqlite3)" },
    },
    {
      name: "platform-is-the-bottom",
      comment: "platform/ imports nothing from src/",
      severity: "error",
      from: { path: "^platform/" },
      to: { path: SRC },
    },
    {
      name: "redaction-is-pure",
      comment: "redaction is pure code: it imports nothing of the project",
      severity: "error",
      from: { path: "^src/policy/redact\\.ts$" },
      to: { path: "^(src|platform)/" },
    },
    {
      name: "leaves-stay-leaves",
      comment: "the shared leaf modules at the top of src/ import no layer",
      severity: "error",
      from: { path: "^src/[^/]+\\.ts$" },
      to: { path: layer(["cli", "selftest", "app", "mcp", ...DOMAINS, ...INFRA]) },
    },
    {
      name: "no-orphans",
      comment: "every source module is used (entry points excepted)",
      severity: "error",
      from: { orphan: true, path: "^(src|platform)/", pathNot: "\\.d\\.ts$|^src/cli/main\\.ts$|^platform/(bun|deno|node)\\.ts$" },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^(test|bench|conformance|scripts|dist|dist-binaries)/" },
  },
};
