// The artifact tools (codex_files, codex_artifact), the codex-artifact:// resource and the viewer: parse, one call, render.
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError, type CallToolResult, type ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { LIST_MAX_LIMIT, type ArtifactRead, type BridgeService, type FileEntry } from "../../service/bridge.ts";
import { ARTIFACT_VIEWER_URI, MCP_APP_MIME } from "../apps/uris.ts";
import { inputOf, listed, outputOf } from "./listing.ts";
import { describeError, READ_ONLY, wrap } from "./result.ts";

export const ARTIFACT_URI_SCHEME = "codex-artifact";

const projectId = z.string({ error: "project_id: required; pass one of the configured project ids" }).min(1, { error: "project_id: must not be empty" });
const relPath = (what: string) => z.string({ error: `path: ${what}` }).max(4096, { error: "path: at most 4096 bytes" });
// Listed without the 2^53-1 maximum the SDK prints for every integer.
const NO_SAFE_MAX = { maximum: undefined } as unknown as z.core.GlobalMeta;
const byteCount = (field: string, fix: string) =>
  z.number({ error: `${field}: ${fix}` }).int({ error: `${field}: ${fix}` }).min(0, { error: `${field}: ${fix}` }).meta(NO_SAFE_MAX);

const filesInput = {
  project_id: projectId,
  path: relPath("a directory relative to the project, e.g. \"src\"").optional(),
  recursive: z.boolean({ error: "recursive: true or false" }).optional(),
  query: z.string({ error: "query: a name substring or glob such as \"*.png\"" }).max(512, { error: "query: at most 512 characters" }).optional(),
  offset: byteCount("offset", "a non-negative integer (next_offset of the previous page)").optional(),
  limit: z
    .number({ error: `limit: an integer from 1 to ${LIST_MAX_LIMIT}` })
    .int({ error: `limit: an integer from 1 to ${LIST_MAX_LIMIT}` })
    .min(1, { error: `limit: an integer from 1 to ${LIST_MAX_LIMIT}` })
    .max(LIST_MAX_LIMIT, { error: `limit: at most ${LIST_MAX_LIMIT}` })
    .optional(),
};

const entrySchema = z.object({
  path: z.string(),
  size: z.number(),
  mtime: z.string(),
  kind: z.enum(["file", "dir", "symlink"]),
  mime: z.string().optional(),
});

const filesOutput = {
  project_id: z.string(),
  path: z.string(),
  entries: z.array(entrySchema),
  total: z.number(),
  next_offset: z.number().optional(),
  truncated: z.boolean().optional(),
};

const artifactInput = {
  project_id: projectId,
  path: relPath("a file path relative to the project, e.g. \"out/report.pdf\""),
  offset: byteCount("offset", "a byte offset from 0 to the file size").optional(),
  length: byteCount("length", "a byte count up to chunk_bytes").optional(),
};

const artifactOutput = {
  project_id: z.string(),
  path: z.string(),
  uri: z.string(),
  size: z.number(),
  mime: z.string(),
  sha256: z.string(),
  text: z.boolean().optional(),
  /** The content blocks hold the whole file. */
  complete: z.boolean(),
  chunk_bytes: z.number(),
  offset: z.number().optional(),
  length: z.number().optional(),
  next_offset: z.number().optional(),
};
type ArtifactOutput = z.infer<z.ZodObject<typeof artifactOutput>>;

// What tools/list declares: the keys a reader acts on, the rest admitted. The full shapes above type the results;
// spelling them out in the listing would cost every conversation ~1,000 characters for no decision it enables.
const filesListed = outputOf({ entries: z.array(z.unknown()), total: z.number(), next_offset: z.number().optional() });
const artifactListed = outputOf({ uri: z.string(), sha256: z.string(), complete: z.boolean(), next_offset: z.number().optional() });

/** `codex-artifact://<project>/<path>`, each part percent-encoded; a range rides in the query. */
export function artifactUri(project: string, rel: string, range?: { offset: number; length: number }): string {
  const base = `${ARTIFACT_URI_SCHEME}://${encodeURIComponent(project)}/${rel.split("/").map(encodeURIComponent).join("/")}`;
  return range ? `${base}?offset=${range.offset}&length=${range.length}` : base;
}

const NATIVE_IMAGE = /^image\/(png|jpeg|gif|webp|bmp|avif|tiff|x-icon|vnd\.microsoft\.icon|heic|heif)$/;

function renderEntry(e: FileEntry): string {
  const tag = e.kind === "dir" ? "d" : e.kind === "symlink" ? "l" : "f";
  return e.kind === "dir" ? `${tag} ${e.path}/ ${e.mtime}` : `${tag} ${e.path} ${e.size} ${e.mtime}${e.mime ? ` ${e.mime}` : ""}`;
}

function toBase64(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("base64");
}

function toText(b: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(b);
  } catch {
    return undefined;
  }
}

function summary(a: ArtifactRead): string {
  return `${a.path} · ${a.mime} · ${a.size} B · sha256 ${a.sha256}`;
}

function artifactResult(project: string, a: ArtifactRead): CallToolResult {
  const uri = artifactUri(project, a.path);
  const name = a.path.split("/").pop() ?? a.path;
  const link = { type: "resource_link" as const, uri, name, mimeType: a.mime, size: a.size };
  const structured: ArtifactOutput = {
    project_id: project,
    path: a.path,
    uri,
    size: a.size,
    mime: a.mime,
    sha256: a.sha256,
    complete: a.data !== undefined && a.range === undefined,
    chunk_bytes: a.chunkBytes,
  };
  if (a.text) structured.text = true;
  const content: CallToolResult["content"] = [];
  if (a.range && a.data) {
    const { offset, length } = a.range;
    structured.offset = offset;
    structured.length = length;
    const end = offset + length;
    if (end < a.size) structured.next_offset = end;
    const chunks = Math.max(1, Math.ceil(a.size / a.chunkBytes));
    const chunkUri = artifactUri(project, a.path, a.range);
    const text = a.text ? toText(a.data) : undefined;
    content.push({
      type: "text",
      text: `${summary(a)}\nbytes ${offset}-${end} of ${a.size} (chunk ${Math.floor(offset / a.chunkBytes) + 1} of ${chunks})${end < a.size ? `; next offset=${end}` : "; last chunk"}`,
    });
    content.push({
      type: "resource",
      resource: text !== undefined ? { uri: chunkUri, mimeType: a.mime, text } : { uri: chunkUri, mimeType: a.mime, blob: toBase64(a.data) },
    });
  } else if (a.data) {
    content.push({ type: "text", text: summary(a) });
    if (NATIVE_IMAGE.test(a.mime)) content.push({ type: "image", data: toBase64(a.data), mimeType: a.mime });
    else if (a.mime.startsWith("audio/")) content.push({ type: "audio", data: toBase64(a.data), mimeType: a.mime });
    else {
      const text = a.text ? toText(a.data) : undefined;
      content.push({ type: "resource", resource: text !== undefined ? { uri, mimeType: a.mime, text } : { uri, mimeType: a.mime, blob: toBase64(a.data) } });
    }
    content.push(link);
  } else {
    const chunks = Math.ceil(a.size / a.chunkBytes);
    content.push({
      type: "text",
      text: `${summary(a)}\nAbove the inline limit: read it in ${chunks} chunks with codex_artifact offset=0, ${a.chunkBytes}, ... and length=${a.chunkBytes}, then check the SHA-256.`,
    });
    content.push(link);
  }
  return { content, structuredContent: structured };
}

function parseArtifactUri(uri: URL, variables: Record<string, string | string[]>): { project: string; rel: string; range?: { offset: number; length?: number } } {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join("/") : (v ?? ""));
  const rawPath = one(variables.path).split(/[?#]/)[0];
  let project: string;
  let rel: string;
  try {
    project = decodeURIComponent(one(variables.project));
    rel = rawPath.split("/").map(decodeURIComponent).join("/");
  } catch {
    throw new McpError(ErrorCode.InvalidParams, "malformed percent-encoding in the artifact URI");
  }
  const q = uri.searchParams;
  if (!q.has("offset") && !q.has("length")) return { project, rel };
  const num = (name: string): number | undefined => {
    const v = q.get(name);
    if (v === null) return undefined;
    if (!/^\d+$/.test(v)) throw new McpError(ErrorCode.InvalidParams, `${name}: a non-negative integer`);
    return Number(v);
  };
  return { project, rel, range: { offset: num("offset") ?? 0, length: num("length") } };
}

/** What the artifact tools need of the service: a listing and a read. */
export type ArtifactAccess = Pick<BridgeService, "files" | "artifact">;

/** Registers codex_files, codex_artifact, the codex-artifact:// template and the MCP Apps viewer. */
export function registerArtifactTools(server: McpServer, service: ArtifactAccess): void {

  listed(server.registerTool(
    "codex_files",
    {
      title: "List project files",
      description: "List or search files of a project (metadata only). query: name substring or glob; implies recursive. Sorted by path; page with offset.",
      inputSchema: inputOf(filesInput),
      outputSchema: filesListed,
      annotations: READ_ONLY,
    },
    wrap(async (args) => {
      const r = await service.files(args);
      const base = (args.path ?? "").replace(/\\/g, "/").replace(/^\.?\/+|\/+$/g, "");
      const from = (args.offset ?? 0) + (r.entries.length ? 1 : 0);
      const head = `${args.project_id}:${base || "."} ${from}-${(args.offset ?? 0) + r.entries.length} of ${r.total}${r.next_offset !== undefined ? ` (next_offset=${r.next_offset})` : ""}${r.truncated ? " [walk truncated: narrow path or query]" : ""}`;
      const structured: z.infer<z.ZodObject<typeof filesOutput>> = { project_id: args.project_id, path: base, entries: r.entries, total: r.total };
      if (r.next_offset !== undefined) structured.next_offset = r.next_offset;
      if (r.truncated) structured.truncated = true;
      return { content: [{ type: "text", text: [head, ...r.entries.map(renderEntry)].join("\n") }], structuredContent: structured };
    }),
  ));

  listed(server.registerTool(
    "codex_artifact",
    {
      title: "Read a project file",
      description:
        "One project file: image/audio natively, others as an embedded resource plus a codex-artifact:// link. Large files: read by offset/length (at most chunk_bytes).",
      inputSchema: inputOf(artifactInput),
      outputSchema: artifactListed,
      annotations: READ_ONLY,
      _meta: { ui: { resourceUri: ARTIFACT_VIEWER_URI }, "ui/resourceUri": ARTIFACT_VIEWER_URI },
    },
    wrap(async (args) => {
      const a = await service.artifact(args);
      try {
        return artifactResult(args.project_id, a);
      } finally {
        a.release();
      }
    }),
  ));

  server.registerResource(
    "project-file",
    new ResourceTemplate(`${ARTIFACT_URI_SCHEME}://{project}/{+path}`, { list: undefined }),
    {
      title: "Project file",
      description: "A file of a configured project. Files above the inline limit are read in ranges: append ?offset=N&length=M (at most chunk_bytes).",
    },
    async (uri, variables): Promise<ReadResourceResult> => {
      const { project, rel, range } = parseArtifactUri(uri, variables);
      let a: ArtifactRead;
      try {
        a = await service.artifact({ project_id: project, path: rel, offset: range?.offset, length: range?.length });
      } catch (e) {
        const text = describeError(e);
        if (text !== undefined) throw new McpError(ErrorCode.InvalidParams, text);
        throw e;
      }
      if (!a.data) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `${a.path} is ${a.size} bytes (sha256 ${a.sha256}), above the inline limit: read ranges with ${artifactUri(project, a.path, { offset: 0, length: a.chunkBytes })} or codex_artifact offset/length`,
        );
      }
      const outUri = a.range ? artifactUri(project, a.path, a.range) : artifactUri(project, a.path);
      try {
        const text = a.text ? toText(a.data) : undefined;
        return {
          contents: [text !== undefined ? { uri: outUri, mimeType: a.mime, text } : { uri: outUri, mimeType: a.mime, blob: toBase64(a.data) }],
        };
      } finally {
        a.release();
      }
    },
  );

  server.registerResource(
    "artifact-viewer",
    ARTIFACT_VIEWER_URI,
    { title: "Artifact viewer", description: "MCP Apps view that previews and downloads codex_artifact results.", mimeType: MCP_APP_MIME },
    async (): Promise<ReadResourceResult> => {
      const { ARTIFACT_VIEWER_HTML } = await import("../apps/artifact-viewer.ts");
      return { contents: [{ uri: ARTIFACT_VIEWER_URI, mimeType: MCP_APP_MIME, text: ARTIFACT_VIEWER_HTML }] };
    },
  );
}
