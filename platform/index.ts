// Picks the Platform for the runtime we are in. The runtime modules hold no static driver imports,
// so bundling all three is cheap; each loads its SQLite driver lazily.
import type { Platform } from "./types.ts";
import { nodePlatform } from "./node.ts";
import { bunPlatform } from "./bun.ts";
import { denoPlatform } from "./deno.ts";

export type RuntimeName = Platform["name"];

export function detectRuntime(): RuntimeName {
  const g = globalThis as { Bun?: unknown; Deno?: unknown };
  if (g.Bun !== undefined) return "bun";
  if (g.Deno !== undefined) return "deno";
  return "node";
}

let cached: Platform | undefined;

export async function getPlatform(): Promise<Platform> {
  if (cached) return cached;
  const runtime = detectRuntime();
  cached = runtime === "bun" ? bunPlatform : runtime === "deno" ? denoPlatform : nodePlatform;
  return cached;
}

export type * from "./types.ts";
