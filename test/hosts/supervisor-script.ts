// Test support: the supervisor every mocked host model plays, decided from what the host showed it of the previous
// tool results (each host shows something else: Codex CLI and Claude Code the structured JSON, Gemini CLI the text,
// so only the ids and states are read, with regular expressions). One whole supervised task with an approval:
// health, start, wait until Codex asks, answer it, wait until the turn ends, result.
export type Step = { tool: string; args: Record<string, unknown> } | { done: string };

export const TASK_PROMPT = "Write approved.txt (it needs an approval).";
export const FINAL_WORDS = "The supervised task is done.";

/** The next step, from every tool result the model has read so far (oldest first) and the calls it made. */
export function nextStep(results: string[], calls: string[]): Step {
  if (!calls.includes("codex_health")) return { tool: "codex_health", args: {} };
  if (!calls.includes("codex_start")) return { tool: "codex_start", args: { project_id: "demo", prompt: TASK_PROMPT } };
  const all = results.join("\n");
  const taskId = /\bt_[0-9a-f]{10}\b/.exec(all)?.[0];
  if (!taskId) return { done: `no task id in: ${all.slice(0, 400)}` };
  if (calls.includes("codex_result")) return { done: FINAL_WORDS };
  const last = results.at(-1) ?? "";
  const waits = calls.filter((c) => c === "codex_wait").length;
  if (waits > 30) return { done: "gave up waiting" };
  const asked = /\br_[0-9a-f]{10}\b/.exec(last)?.[0];
  if (calls.at(-1) === "codex_wait" && asked && !calls.includes("codex_respond")) {
    return { tool: "codex_respond", args: { task_id: taskId, request_id: asked, action: "accept" } };
  }
  if (calls.at(-1) === "codex_wait" && /\bcompleted\b/.test(last) && calls.includes("codex_respond")) return { tool: "codex_result", args: { task_id: taskId } };
  // Gemini CLI adds wait_for_previous to every tool; its model may set it (the bridge ignores it).
  return { tool: "codex_wait", args: { task_id: taskId, timeout_seconds: 20 } };
}

export const PERSON_WORDS = "The person decides this one on the task card.";
/** Tools the posing model leaves alone: they would end the task or restart the runtime, not answer the request. */
const LEFT_ALONE = new Set(["codex_cancel", "codex_runtime", "codex_start", "codex_send", "codex_health"]);

/**
 * Under approvals = "person", a model that tries to answer anyway: it waits for the request, answers it with
 * codex_respond, then calls every other tool its host listed with the request's ids, then reads codex_status.
 */
export function posingStep(results: string[], calls: string[], listed: string[]): Step {
  if (!calls.includes("codex_health")) return { tool: "codex_health", args: {} };
  if (!calls.includes("codex_start")) return { tool: "codex_start", args: { project_id: "demo", prompt: TASK_PROMPT } };
  const all = results.join("\n");
  const taskId = /\bt_[0-9a-f]{10}\b/.exec(all)?.[0];
  if (!taskId) return { done: `no task id in: ${all.slice(0, 400)}` };
  const asked = /\br_[0-9a-f]{10}\b/.exec(all)?.[0];
  if (!asked) return calls.filter((c) => c === "codex_wait").length > 30 ? { done: "no request came" } : { tool: "codex_wait", args: { task_id: taskId, timeout_seconds: 20 } };
  const ids = { task_id: taskId, request_id: asked };
  if (!calls.includes("codex_respond")) return { tool: "codex_respond", args: { ...ids, action: "accept" } };
  if (!calls.includes("codex_submit_tool_result")) return { tool: "codex_submit_tool_result", args: { ...ids, status: "success", result: "approved" } };
  for (const tool of listed) {
    if (!calls.includes(tool) && !LEFT_ALONE.has(tool)) return { tool, args: tool.startsWith("codex_card") ? { ...ids, action: "accept" } : { task_id: taskId } };
  }
  if (calls.at(-1) !== "codex_status") return { tool: "codex_status", args: { task_id: taskId } };
  return { done: PERSON_WORDS };
}
