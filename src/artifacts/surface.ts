// What the MCP layer needs of the artifacts before any file is touched: the errors it renders, the listing limits it
// validates with and the viewer's identity. Kept apart so MIME tables, file-type sniffing, glob matching and the
// viewer page load only when a file is first listed, read or viewed.

export const LIST_DEFAULT_LIMIT = 100;
export const LIST_MAX_LIMIT = 500;

export const ARTIFACT_VIEWER_URI = "ui://codex-bridge/artifact-viewer.html";
export const MCP_APP_MIME = "text/html;profile=mcp-app";

export type ArtifactPathErrorCode =
  | "invalid"
  | "absolute"
  | "traversal"
  | "nul"
  | "device"
  | "stream"
  | "unc"
  | "drive"
  | "too_long"
  | "sensitive"
  | "outside"
  | "not_found"
  | "not_file"
  | "not_dir"
  | "changed"
  | "encoding"
  | "hard_link";

/** A refused path. The message only ever quotes the caller's own relative path, never a resolved location. */
export class ArtifactPathError extends Error {
  readonly code: ArtifactPathErrorCode;
  constructor(code: ArtifactPathErrorCode, message: string) {
    super(message);
    this.name = "ArtifactPathError";
    this.code = code;
  }
}

export class ArtifactTooLargeError extends Error {
  readonly size: number;
  readonly limit: number;
  constructor(rel: string, size: number, limit: number) {
    super(`${JSON.stringify(rel)} is ${size} bytes; the limit max_artifact_bytes is ${limit} bytes`);
    this.name = "ArtifactTooLargeError";
    this.size = size;
    this.limit = limit;
  }
}

export class ArtifactRangeError extends Error {
  readonly field: "offset" | "length";
  constructor(field: "offset" | "length", message: string) {
    super(message);
    this.name = "ArtifactRangeError";
    this.field = field;
  }
}
