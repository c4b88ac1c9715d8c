// What `doctor` and `codex_health` report: config, projects, SQLite, the app-server handshake, login and live
// models. Never includes identities or secrets.
import { statSync } from "node:fs";
import { UnverifiedCodexError } from "../codex/errors.ts";
import { SUPPORTED_HINT, SUPPORTED_RANGE } from "../codex/protocol/verified.ts";
import type { Failure } from "../store/rows.ts";
import type { CodexRuntime, SharedServerInfo } from "./app-server.ts";
import { probeHome, profileHomes, type HomeProbe, type ProfileHome } from "./home-health.ts";
import { protocolLine } from "./protocol-check.ts";
import type { RuntimeSlot } from "./pool.ts";

export interface HealthCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface HealthReport {
  healthy: boolean;
  bridge: { version: string; fingerprint: string; target: string; pid: number; uptime_s: number };
  config: { path: string; exists: boolean; projects: { id: string; cwd: string; ok: boolean; problem?: string }[]; profiles: string[] };
  sqlite: { path: string; ok: boolean; problem?: string };
  codex: {
    bin: string | null;
    version: string | null;
    /** The supported range of Codex releases, oldest to newest verified ("0.147.0 to 0.171.0"). */
    supported: string;
    /** `verified`, or `unverified: <version> (what the start-up check found)`. */
    protocol?: string;
    app_server: string;
    /** "spawn": the bridge's own app-server child; "shared": the Codex home's shared one, described in `server`. */
    runtime: "spawn" | "shared";
    server?: SharedServerInfo;
    pid: number | null;
    login: string;
    models: number | null;
    /** Present when the web-tool relay is off because this Codex refused dynamic tools. */
    relay_disabled?: string;
  };
  /** Per profile: its Codex home, whether a login is present there, its live model count. */
  profiles?: ProfileHome[];
  checks: HealthCheck[];
  /** The most recent failed, interrupted or lost turn or start. */
  last_failure?: Failure & { task_id: string; at: string };
  warnings?: string[];
}

export interface HealthInputs {
  runtime: CodexRuntime | null;
  /** Every app-server the profiles use (the default one among them). */
  homes?: readonly RuntimeSlot[];
  build: { version: string; fingerprint: string; runtimeTarget: string };
  startedAt: number;
  config: { path: string; exists: boolean; error?: string; restartNeeded?: string[]; projects: { id: string; cwd: string }[]; issues: { id: string; problem: string }[]; profiles: string[] };
  store: {
    path: string;
    error?: string;
    /** What is wrong with the file now (disk_full, state_corrupt, …) and how many intake writes wait for it. */
    condition?: () => { cause: string; message: string; since: string; held: number } | null;
  };
  codexBin: string | null;
  codexError?: string;
  env: Record<string, string | undefined>;
  /** The most recent task failure the store holds, if any. */
  lastFailure?: () => (Failure & { task_id: string; at: string }) | null;
}

/** Everything `doctor` and `codex_health` report. Never includes identities or secrets. */
export async function collectHealth(h: HealthInputs): Promise<HealthReport> {
  const checks: HealthCheck[] = [];
  const warnings: string[] = [];
  checks.push(h.config.error ? { name: "config", ok: false, detail: h.config.error } : { name: "config", ok: true, detail: `${h.config.path}${h.config.exists ? "" : " (no file: defaults)"}` });
  const projects = [
    ...h.config.projects.map((p) => {
      let ok = true;
      let problem: string | undefined;
      try {
        ok = statSync(p.cwd).isDirectory();
        if (!ok) problem = "not a directory";
      } catch {
        ok = false;
        problem = "does not exist";
      }
      return { id: p.id, cwd: p.cwd, ok, ...(problem ? { problem } : {}) };
    }),
    ...h.config.issues.map((i) => ({ id: i.id, cwd: "", ok: false, problem: i.problem })),
  ];
  for (const p of projects) checks.push({ name: `project ${p.id}`, ok: p.ok, detail: p.ok ? p.cwd : p.problem ?? "unusable" });
  if (h.config.restartNeeded?.length) warnings.push(`the config file changed ${h.config.restartNeeded.join(", ")}: restart the bridge to apply (projects apply at once)`);
  if (projects.length === 0) warnings.push("no projects configured: add [projects.<id>] cwd = \"/abs/path\" (codex-bridge init writes a starter)");
  const storage = h.store.condition?.() ?? null;
  if (h.store.error) checks.push({ name: "sqlite", ok: false, detail: h.store.error });
  else if (storage) checks.push({ name: "sqlite", ok: false, detail: `${storage.cause} since ${storage.since}: ${storage.message}` });
  else checks.push({ name: "sqlite", ok: true, detail: `${h.store.path} writable` });

  let version: string | null = null;
  let appServer = "not started";
  let login = "unknown";
  let models: number | null = null;
  let pid: number | null = null;
  let protocol: string | undefined;
  let relayDisabled: string | undefined;
  let probe: HomeProbe | null = null;
  if (!h.codexBin) {
    checks.push({ name: "codex", ok: false, detail: `${h.codexError ?? "Codex not found: install @openai/codex or set CODEX_BIN"} (supported: Codex ${SUPPORTED_RANGE})` });
  } else if (h.runtime) {
    try {
      const client = await h.runtime.ensure();
      pid = client.pid;
      const silence = h.runtime.silence();
      if (client.readingPaused || silence) throw new Unavailable(silence ? `${silence}; codex_runtime restart with force=true kills and replaces it` : "not read from while the state database refuses writes (see the sqlite check)");
      const p = h.runtime.protocol;
      version = p?.version ?? null;
      appServer = "initialized";
      protocol = p ? protocolLine(p) : undefined;
      const shared = h.runtime.sharedServer;
      const where = shared ? `, attached to the shared app-server ${shared.socket} (pid ${shared.pid ?? "?"}, ${shared.started_by === "bridge" ? "started by the bridge" : "already running"})` : "";
      checks.push({ name: "app-server", ok: true, detail: `initialize ok, codex ${version ?? "?"} (supported: ${SUPPORTED_RANGE}), protocol ${protocol ?? "unchecked"}${where}` });
      if (p && !p.verified) warnings.push(`codex ${version ?? "?"} is not a protocol version this bridge was verified against (supported: ${SUPPORTED_RANGE}); it passed the start-up check (${p.checks.join(", ")})`);
      if (p?.relayRefused) {
        relayDisabled = p.relayRefused;
        warnings.push(`web-tool relay disabled: ${p.relayRefused}`);
      }
      probe = await probeHome(client);
      login = probe.login === "present" ? `logged in (${probe.loginKind})` : probe.login === "absent" ? "not logged in (codex login needed)" : probe.login === "not needed" ? "no login needed by the configured provider" : `unknown (${probe.loginError})`;
      checks.push({ name: "login", ok: probe.login !== "absent", detail: login });
      models = probe.models;
      checks.push(probe.modelsError ? { name: "models", ok: false, detail: probe.modelsError } : { name: "models", ok: (models ?? 0) > 0, detail: `${models} live models` });
    } catch (err) {
      appServer = err instanceof Unavailable ? "not answering" : "failed";
      if (err instanceof UnverifiedCodexError) {
        protocol = `unverified: ${err.version} (${err.problem})`;
        if (err.version !== "unknown") version = err.version;
      }
      const why = err instanceof UnverifiedCodexError ? `${err.message}; ${SUPPORTED_HINT}` : err instanceof Error ? err.message : String(err);
      checks.push({ name: "app-server", ok: false, detail: err instanceof Unavailable ? err.message : `could not start/initialize ${h.codexBin}: ${why}` });
    }
  }
  let profiles: ProfileHome[] | undefined;
  if (h.homes && h.runtime && h.codexBin && appServer === "initialized") {
    profiles = await profileHomes(h.homes, { runtime: h.runtime, probe });
    // The default home's own checks are above; another home counts against health when it does not work.
    for (const p of profiles) if (p.problem && (p.isolated || p.app_server === "failed")) checks.push({ name: `profile ${p.id}`, ok: false, detail: `${p.codex_home}: ${p.problem}` });
  }
  if (h.env.CONTROL_PLANE_API_KEY) {
    warnings.push("CONTROL_PLANE_API_KEY is in the bridge's environment (the bridge drops it for Codex); start the bridge through `env -u CONTROL_PLANE_API_KEY` or use a file: key in tunnel-client");
  }
  const lastFailure = h.lastFailure?.() ?? null;
  return {
    healthy: checks.every((c) => c.ok),
    bridge: { version: h.build.version, fingerprint: h.build.fingerprint, target: h.build.runtimeTarget, pid: process.pid, uptime_s: Math.round((Date.now() - h.startedAt) / 1000) },
    config: { path: h.config.path, exists: h.config.exists, projects, profiles: h.config.profiles },
    sqlite: { path: h.store.path, ok: !h.store.error && !storage, ...(storage ? { problem: storage.cause } : {}) },
    codex: { bin: h.codexBin, version, supported: SUPPORTED_RANGE, ...(protocol ? { protocol } : {}), app_server: appServer, runtime: h.runtime?.mode ?? "spawn", ...(h.runtime?.sharedServer ? { server: h.runtime.sharedServer } : {}), pid: pid ?? h.runtime?.sharedServer?.pid ?? null, login, models, ...(relayDisabled ? { relay_disabled: relayDisabled } : {}) },
    ...(profiles ? { profiles } : {}),
    checks,
    ...(lastFailure ? { last_failure: lastFailure } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}

/** The app-server is there but cannot be asked now (not answering, or not read from): said as it is, not as a failed start. */
class Unavailable extends Error {}
