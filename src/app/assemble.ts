// The composition root: builds the whole bridge (config, state, Codex runtime, task domain, service, MCP server)
// once, for serve, serve --http, doctor and the self-test kit alike.
import type { Platform } from "../../platform/types.ts";
import { BUILD_INFO } from "../build-info.ts";
import { hostPlatform, locateCodex } from "../codex/locate.ts";
import { loadConfig, type LoadedConfig } from "../config/load.ts";
import { ConfigWatch } from "../config/watch.ts";
import type { OpenedStore } from "../store/open.ts";
import { Repo } from "../store/repo.ts";
import { redactor } from "../policy/redact.ts";
import { collectHealth, type HealthReport } from "../runtime/health.ts";
import { CodexRuntime } from "../runtime/app-server.ts";
import { RuntimePool } from "../runtime/pool.ts";
import { replaceProjects, taskSettings, type TaskSettings } from "../config/settings.ts";
import { TaskDomain } from "../tasks/domain.ts";
import { RetentionRunner } from "../tasks/retention.ts";
import { ArtifactReads } from "../service/artifacts.ts";
import { storageProblem } from "../tasks/alerts.ts";
import { BridgeService } from "../service/bridge.ts";
import { PersonService } from "../service/person.ts";
import { viewReads } from "../views/reads.ts";
import { createMcpServer, type WaitHold } from "../mcp/server.ts";
import type { EventLog, Logger } from "../log.ts";
import { describeStartupError, openBridgeState, type OpenedState } from "./open-state.ts";
import { openPersonChannels } from "./person-channels.ts";

export { describeStartupError } from "./open-state.ts";

export interface Bridge {
  platform: Platform;
  config: LoadedConfig;
  /** The config file read again when it changes (projects apply at once); codex-bridge projects add/remove rely on it. */
  configWatch: ConfigWatch;
  store: OpenedStore;
  repo: Repo;
  runtimes: RuntimePool;
  settings: TaskSettings;
  domain: TaskDomain;
  service: BridgeService;
  /** The person at the machine's surface (the control endpoint's commands). */
  person: PersonService;
  /** Run by close() beside the app-server's stop, before the state closes: the notifier and the control endpoint say goodbye. */
  beforeClose: (() => Promise<void>)[];
  codexBin: string | null;
  codexError?: string;
  health(): Promise<HealthReport>;
  close(): Promise<void>;
}

export interface AssembleOptions {
  env: Record<string, string | undefined>;
  cwd: string;
  log: EventLog;
  lockWaitMs?: number;
  /** How much of the state file is checked before use (doctor checks all of it). */
  integrity?: "quick" | "full";
  /** Codex versions trusted without the start-up protocol check; default the verified-<version> modules (tests narrow it). */
  verifiedCodex?: readonly string[];
}

export function resolveCodex(env: Record<string, string | undefined>, configBin?: string): { bin: string | null; error?: string } {
  const e = configBin && !env.CODEX_BIN && !env.CODEX_EXE ? { ...env, CODEX_BIN: configBin } : env;
  const r = locateCodex({ env: e, platform: hostPlatform() });
  return "error" in r ? { bin: null, error: r.error } : { bin: r.path };
}

/** Builds the whole bridge from the environment (or from config and state opened already): Codex runtime, task domain. */
export async function assembleBridge(platform: Platform, opts: AssembleOptions, opened?: OpenedState): Promise<Bridge> {
  const dirs = platform.dirs();
  const { config, store } = opened ?? (await openBridgeState(platform, opts));
  const codex = resolveCodex(opts.env, config.config.codex.bin);
  const repo = new Repo(store.db, redactor, store.condition);
  let domain: TaskDomain;
  const settings = taskSettings(config.config, opts.env);
  const runtimes = new RuntimePool({
    profiles: settings.profiles,
    env: opts.env,
    userHome: dirs.home,
    make: (env, shared) =>
      new CodexRuntime(
        { platform, codexBin: codex.bin, env, version: BUILD_INFO.version, verifiedVersions: opts.verifiedCodex, log: opts.log, ...(shared ? { shared } : {}), liveness: { ...livenessOf(config.config.codex), busy: () => domain.activeCounts().active > 0 } },
        {
          notification: (c, n) => domain.onNotification(c, n),
          request: (c, r) => domain.onServerRequest(c, r),
          exit: (c) => domain.onExit(c),
          late: (c, r) => domain.onLateResponse(c, r),
          silence: () => domain.writes.wakeWaiters(),
        },
      ),
  });
  domain = new TaskDomain(repo, runtimes, settings, opts.log);
  const recovered = domain.recoverAfterRestart();
  if (recovered.lost || recovered.stale || recovered.uncertain) {
    opts.log("warn", "recovered_after_restart", { lost: recovered.lost, stale: recovered.stale, uncertain: recovered.uncertain });
  }
  // The config file as it is now: projects added or removed apply at once, anything else is said to need a restart.
  const configWatch = new ConfigWatch(
    config,
    () => loadConfig({ env: opts.env, configDir: dirs.config }),
    (next) => replaceProjects(settings.projects, taskSettings(next.config, opts.env).projects),
  );
  // Finished tasks past retention_days are compacted in small steps whenever no turn runs.
  const retention = new RetentionRunner(repo, config.config.retention_days, opts.log);
  retention.start();
  const startedAt = Date.now();
  const health = () => {
    const cfg = configWatch.refresh();
    const now = cfg.current;
    return collectHealth({
        runtime: runtimes.default,
        homes: runtimes.all(),
        build: BUILD_INFO,
        startedAt,
        config: {
          path: now.path,
          exists: now.exists,
          ...(cfg.error ? { error: `${now.path} no longer loads, so the running bridge keeps the config it last loaded: ${cfg.error}` } : {}),
          restartNeeded: cfg.restartNeeded,
          projects: Object.values(now.config.projects).map((p) => ({ id: p.id, cwd: p.cwd })),
          issues: now.projectIssues,
          profiles: Object.keys(now.config.profiles),
        },
        store: { path: store.path, condition: () => storageProblem(repo, domain.writes) },
        codexBin: codex.bin,
        codexError: codex.error,
        env: opts.env,
        lastFailure: () => repo.lastFailure(),
      });
  };
  const c = config.config;
  const artifacts = new ArtifactReads({ maxArtifactBytes: c.max_artifact_bytes, inlineArtifactBytes: c.inline_artifact_bytes, sensitivePaths: c.sensitive_paths }, (id) => {
    const p = domain.project(id);
    return { cwd: p.cwd, allowHardLinks: p.allow_hard_links === true };
  });
  const reads = viewReads(domain, repo, settings);
  const service = new BridgeService(domain, reads, artifacts, platform, health, opts.log, () => void configWatch.refresh());
  const beforeClose: Bridge["beforeClose"] = [];
  return {
    platform,
    config,
    configWatch,
    store,
    repo,
    runtimes,
    settings,
    domain,
    service,
    person: new PersonService(domain, reads),
    beforeClose,
    codexBin: codex.bin,
    codexError: codex.error,
    health,
    async close() {
      domain.writes.stop();
      retention.stop();
      // Side by side: a last notification gets the app-server's stop time too (a stopping bridge has under a second).
      await Promise.all([...beforeClose.splice(0).map((hook) => hook().catch(() => {})), runtimes.stop(300)]);
      domain.close();
      store.close();
    },
  };
}

function livenessOf(c: LoadedConfig["config"]["codex"]): { unresponsiveMs?: number; restartAfterMs?: number } {
  return {
    ...(c.unresponsive_seconds !== undefined ? { unresponsiveMs: c.unresponsive_seconds * 1000 } : {}),
    ...(c.unresponsive_restart_seconds !== undefined ? { restartAfterMs: c.unresponsive_restart_seconds * 1000 } : {}),
  };
}

/** The bridge for a server command, or null after saying on stderr (through the logger) why it could not start. */
export async function assembleForServe(platform: Platform, logger: Logger, opened?: OpenedState): Promise<Bridge | null> {
  try {
    const bridge = await assembleBridge(platform, { env: process.env, cwd: process.cwd(), log: logger.log }, opened);
    const { store, person, beforeClose } = bridge;
    await openPersonChannels({ platform, database: store.lock?.database, notify: bridge.config.config.notify, person, beforeClose }, logger.log);
    return bridge;
  } catch (err) {
    logger.say("error", "startup_failed", describeStartupError(err));
    return null;
  }
}

/** One MCP server over the bridge's service; each stdio connection or HTTP session gets its own. */
export function mcpServerFor(bridge: Bridge, waitHold?: WaitHold) {
  return createMcpServer({ service: bridge.service, version: BUILD_INFO.version, waitHold });
}
