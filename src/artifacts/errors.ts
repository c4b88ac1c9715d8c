// The artifact errors: a refused path, a file above max_artifact_bytes, a bad byte range. Kept apart so the MCP layer
// can tell them apart without loading MIME tables, file-type sniffing or glob matching.

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
