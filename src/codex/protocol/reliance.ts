// The shape of "what the bridge relies on" in the app-server protocol: each method, notification and server request
// it uses, with the fields it sends and reads, and the enum values it branches on. Each protocol module declares its
// own part next to its method names; a verified-<version> module lists them for the Codex version they were checked on.
import { z } from "zod";

export interface SurfaceEntry {
  kind: "request" | "clientNotification" | "notification" | "serverRequest";
  method: string;
  /** Dotted paths the bridge sends in params (requests) or in its answer (server requests). */
  sends?: string[];
  /**
   * Dotted paths the bridge reads: in the result (requests) or in params (notifications, server requests).
   * `a[]` steps into array items; `item{type=agentMessage}` picks the variant of a tagged union.
   */
  reads?: string[];
}

/** Enum values the bridge branches on, by the schema definition that declares them. */
export interface SurfaceValues {
  definition: string;
  values: readonly string[];
}

export interface ProtocolSurface {
  entries: SurfaceEntry[];
  values: SurfaceValues[];
}

export interface VerifiedProtocol {
  /** The Codex version (`codex --version`, the app-server's userAgent) this surface was checked against. */
  version: string;
  surface: ProtocolSurface;
}

/**
 * Every key of T, as a list: listing them in an object typed Record<keyof T, true> makes the compiler refuse a missing
 * or an extra key, so the params interface and the declared surface cannot drift apart.
 */
export const keysOf = <T>(keys: Record<keyof T & string, true>): string[] => Object.keys(keys);

/** The dotted paths a zod shape reads (objects, optional/nullable wrappers and arrays walked; other leaves stop). */
export function zodPaths(schema: z.ZodType, prefix = ""): string[] {
  let s: z.ZodType = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
  if (s instanceof z.ZodArray) return zodPaths(s.element as z.ZodType, `${prefix}[]`);
  if (!(s instanceof z.ZodObject)) return [];
  const out: string[] = [];
  for (const [key, child] of Object.entries(s.shape as Record<string, z.ZodType>)) {
    const path = prefix ? `${prefix}.${key}` : key;
    out.push(path, ...zodPaths(child, path));
  }
  return out;
}
