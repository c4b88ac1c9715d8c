// The artifact half of the service: a project's files listed and one read, within the configured limits. The readers
// (MIME tables, file-type sniffing, glob matching) load on first use, not at start-up. Nothing here is redacted: a
// file is served byte for byte, and its path and errors only ever quote the caller's own relative path.
import type { ListResult } from "../artifacts/list.ts";
import type { ArtifactRead } from "../artifacts/read.ts";

export interface ArtifactSettings {
  maxArtifactBytes: number;
  inlineArtifactBytes: number;
  sensitivePaths: string[];
}

/** A project named by id or alias, as the artifact reads need it: its directory and whether hard links are served. */
export type ProjectLookup = (idOrAlias: string) => { cwd: string; allowHardLinks: boolean };

export interface FilesInput {
  project_id: string;
  path?: string;
  recursive?: boolean;
  query?: string;
  offset?: number;
  limit?: number;
}

export interface ArtifactInput {
  project_id: string;
  path: string;
  offset?: number;
  length?: number;
}

export class ArtifactReads {
  constructor(
    private readonly settings: ArtifactSettings,
    private readonly project: ProjectLookup,
  ) {}

  async files(input: FilesInput): Promise<ListResult> {
    const root = this.project(input.project_id).cwd;
    const { listFiles } = await import("../artifacts/list.ts");
    return listFiles(root, { path: input.path, recursive: input.recursive, query: input.query, offset: input.offset, limit: input.limit, sensitive: this.settings.sensitivePaths });
  }

  /** One file, or one range of it; the caller releases it once its bytes are written out. */
  async artifact(input: ArtifactInput): Promise<ArtifactRead> {
    const p = this.project(input.project_id);
    const { readArtifact } = await import("../artifacts/read.ts");
    return readArtifact(p.cwd, input.path, {
      sensitive: this.settings.sensitivePaths,
      allowHardLinks: p.allowHardLinks === true,
      maxBytes: this.settings.maxArtifactBytes,
      inlineBytes: this.settings.inlineArtifactBytes,
      offset: input.offset,
      length: input.length,
    });
  }
}
