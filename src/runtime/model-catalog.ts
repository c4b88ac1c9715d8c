// The live model catalog: every page of model/list, one page for the supervisor, and the check that a requested
// model, effort or service tier is one this Codex offers.
import type { AppServerClient } from "../codex/client.ts";
import { modelList } from "../codex/protocol/model.ts";
import { BridgeError } from "../bridge-error.ts";

export interface LiveModel {
  id: string;
  model: string;
  efforts: string[];
  tiers: string[];
  hidden: boolean;
  isDefault: boolean;
  displayName: string;
}

/** Every page of this Codex's live model/list, hidden models included; never cached. */
export async function listAllModels(client: AppServerClient): Promise<LiveModel[]> {
  const out: LiveModel[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 20; page++) {
    const res: { data?: unknown[]; nextCursor?: string | null } = await modelList(client, { includeHidden: true, ...(cursor ? { cursor } : {}) });
    for (const raw of res.data ?? []) {
      const m = (raw ?? {}) as Record<string, unknown>;
      const efforts = Array.isArray(m.supportedReasoningEfforts)
        ? m.supportedReasoningEfforts.map((e) => (typeof e === "string" ? e : String((e as Record<string, unknown>)?.reasoningEffort ?? ""))).filter(Boolean)
        : [];
      const tiers = Array.isArray(m.serviceTiers) ? m.serviceTiers.map((t) => String((t as Record<string, unknown>)?.id ?? "")).filter(Boolean) : [];
      out.push({ id: String(m.id ?? ""), model: String(m.model ?? m.id ?? ""), efforts, tiers, hidden: m.hidden === true, isDefault: m.isDefault === true, displayName: String(m.displayName ?? m.model ?? "") });
    }
    cursor = res.nextCursor ?? null;
    if (!cursor) break;
  }
  return out;
}

/** Refuses a model, effort or service tier that this Codex does not offer, before any thread or turn is started. */
export async function checkModelChoice(client: AppServerClient, model: string | null, effort: string | null, tier: string | null, tierField = "profile"): Promise<void> {
  if (!model && !effort && !tier) return;
  const models = await listAllModels(client);
  const m = model ? models.find((x) => x.model === model || x.id === model) : undefined;
  if (model && !m) throw new BridgeError(`model "${model}" is not in this Codex's model/list; codex_models lists the available ones`, "model");
  // Without a model the thread keeps Codex's own choice, so a value is only refused when no model offers it.
  const efforts = m ? m.efforts : [...new Set(models.flatMap((x) => x.efforts))];
  if (effort && efforts.length > 0 && !efforts.includes(effort)) {
    throw new BridgeError(`effort "${effort}" is not offered ${m ? `by ${model}` : "by any model"}; use one of: ${efforts.join(", ")}`, "effort");
  }
  const tiers = m ? m.tiers : [...new Set(models.flatMap((x) => x.tiers))];
  if (tier && !tiers.includes(tier)) {
    throw new BridgeError(`service tier "${tier}" is not offered ${m ? `by ${model}` : "by any model"}; use one of: ${tiers.join(", ") || "none (leave service_tier empty)"}`, tierField);
  }
}

export interface ModelPage {
  models: { model: string; default?: true; efforts: unknown[] }[];
  next_cursor: string | null;
}

/** One page of model/list as the supervisor reads it. */
export async function modelPage(client: AppServerClient, input: { cursor?: string; include_hidden?: boolean }): Promise<ModelPage> {
  const res = await modelList(client, { includeHidden: input.include_hidden ?? false, ...(input.cursor ? { cursor: input.cursor } : {}) });
  const models = (res.data ?? []).map((m) => ({
    model: String(m.model ?? m.id),
    ...(m.isDefault ? { default: true as const } : {}),
    efforts: Array.isArray(m.supportedReasoningEfforts) ? m.supportedReasoningEfforts.map((e) => (typeof e === "string" ? e : (e as Record<string, unknown>).reasoningEffort)) : [],
  }));
  return { models, next_cursor: res.nextCursor ?? null };
}
