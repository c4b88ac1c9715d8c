// What a thread/start or turn/start carries from a profile and project, and what Codex reported back for a thread:
// the requested and native layers of a task's context evidence.
import type { ThreadStartResult } from "../codex/protocol/thread.ts";
import type { ProfileSpec, ProjectSpec } from "../config/settings.ts";

/** What Codex itself reports it will use, as opposed to what the bridge asked for; unknown stays unknown. */
export function nativeContext(res: ThreadStartResult): Record<string, unknown> {
  const sandbox = (res.sandbox ?? null) as Record<string, unknown> | null;
  return {
    cwd: typeof res.cwd === "string" ? res.cwd : "unverified",
    model: typeof res.model === "string" ? res.model : "unverified",
    effort: typeof res.reasoningEffort === "string" ? res.reasoningEffort : "(default)",
    approval_policy: typeof res.approvalPolicy === "string" ? res.approvalPolicy : res.approvalPolicy ? JSON.stringify(res.approvalPolicy) : "unverified",
    sandbox: sandbox && typeof sandbox.type === "string" ? sandbox.type : "unverified",
    network_access: sandbox && typeof sandbox.networkAccess === "boolean" ? sandbox.networkAccess : "unverified",
  };
}

export function sandboxPolicy(profile: ProfileSpec, project: ProjectSpec): Record<string, unknown> {
  switch (profile.sandbox_type) {
    case "read-only":
      return { type: "readOnly", networkAccess: profile.network_access };
    case "danger-full-access":
      return { type: "dangerFullAccess" };
    default:
      return { type: "workspaceWrite", writableRoots: [project.cwd], networkAccess: profile.network_access, excludeTmpdirEnvVar: false, excludeSlashTmp: false };
  }
}
