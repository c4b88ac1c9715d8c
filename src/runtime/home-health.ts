// Per profile, what `doctor` and `codex_health` say about its Codex home: where it is, whether a login is present
// there and how many models its app-server lists live. Only presence is read: never the identity, token or key.
import type { AppServerClient } from "../codex/client.ts";
import { accountRead } from "../codex/protocol/account.ts";
import type { CodexRuntime, SharedServerInfo } from "./app-server.ts";
import { listAllModels } from "./model-catalog.ts";
import type { RuntimeSlot } from "./pool.ts";

/** present: Codex holds a login; absent: none, and the provider needs one; not needed: the provider needs none. */
export type LoginState = "present" | "absent" | "not needed" | "unknown";

export interface HomeProbe {
  login: LoginState;
  /** The account kind (chatgpt, apiKey) when present; never who it is. */
  loginKind?: string;
  loginError?: string;
  models: number | null;
  modelsError?: string;
}

export interface ProfileHome {
  id: string;
  codex_home: string;
  /** true when the profile set codex_home: a home apart from the user's own. */
  isolated: boolean;
  app_server: "initialized" | "failed";
  /** "spawn": the bridge's own app-server; "shared": the home's shared one (see `server`). */
  runtime: "spawn" | "shared";
  /** The shared server attached to: its socket, pid, and who started it. */
  server?: SharedServerInfo;
  login: LoginState;
  models: number | null;
  problem?: string;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function probeHome(client: AppServerClient): Promise<HomeProbe> {
  const probe: HomeProbe = { login: "unknown", models: null };
  try {
    const acct = await accountRead(client, { timeoutMs: 10_000 });
    if (acct.account) {
      probe.login = "present";
      probe.loginKind = String(acct.account.type ?? "account");
    } else probe.login = acct.requiresOpenaiAuth ? "absent" : "not needed";
  } catch (err) {
    probe.loginError = errorText(err);
  }
  try {
    probe.models = (await listAllModels(client)).length;
  } catch (err) {
    probe.modelsError = errorText(err);
  }
  return probe;
}

/**
 * Every profile with its home. The default app-server was probed already (its result is passed in); every other
 * home's app-server is started here, which is its first use when no task ran on it yet.
 */
export async function profileHomes(slots: readonly RuntimeSlot[], probed: { runtime: CodexRuntime; probe: HomeProbe | null }): Promise<ProfileHome[]> {
  const out: ProfileHome[] = [];
  for (const slot of slots) {
    let probe: HomeProbe | null = slot.runtime === probed.runtime ? probed.probe : null;
    let problem: string | undefined;
    if (!probe) {
      try {
        probe = await probeHome(await slot.runtime.ensure());
      } catch (err) {
        problem = `app-server did not start: ${errorText(err)}`;
      }
    }
    const fix = slot.isolated ? `codex-bridge login --profile ${slot.profiles[0]}` : "codex login";
    problem ??= probe?.login === "absent" ? `no login in this home: run ${fix}` : probe?.loginError ?? probe?.modelsError;
    for (const id of slot.profiles) {
      out.push({
        id,
        codex_home: slot.home,
        isolated: slot.isolated,
        app_server: probe ? "initialized" : "failed",
        runtime: slot.runtime.mode,
        ...(slot.runtime.sharedServer ? { server: slot.runtime.sharedServer } : {}),
        login: probe?.login ?? "unknown",
        models: probe?.models ?? null,
        ...(problem ? { problem } : {}),
      });
    }
  }
  return out;
}
