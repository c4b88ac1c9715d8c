// codex_files and codex_artifact through an in-memory MCP client: the original bytes in the right form, a compact
// text summary, the size limits, and tool errors that name the field and the fix.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { CallToolResult, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ARTIFACT_VIEWER_URI } from "../../src/mcp/apps/uris.ts";
import { connect, makePdf, makePng, makeWav, sha256, type Harness } from "../artifacts/fixtures.ts";
import { removeTempDir, tempDir } from "../support/temp-dir.ts";

const MiB = 1024 * 1024;
let root: string;
let h: Harness;
const files: Record<string, Buffer> = {};

function put(rel: string, data: Buffer): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), data);
  files[rel] = data;
}

beforeAll(async () => {
  root = tempDir("cb-tools-");
  put("out/report.pdf", makePdf());
  put("out/chart.png", makePng(16, 8));
  put("out/beep.wav", makeWav());
  put("data/table.csv", Buffer.from("id,name,score\n1,Ada,9.5\n2,Émile,7\n"));
  put("bin/blob.dat", crypto.randomBytes(70_000));
  put("out/disguised.txt", makePng(2, 2));
  put("out/noext", makePdf());
  put("src/main.ts", Buffer.from("export const x = 1;\n"));
  fs.writeFileSync(path.join(root, ".env"), "TOKEN=x\n");
  fs.mkdirSync(path.join(root, ".git"));
  fs.writeFileSync(path.join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
  h = await connect({ projects: () => ({ demo: { cwd: root }, other: { cwd: root } }) });
});

afterAll(async () => {
  await h.close();
  removeTempDir(root);
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await h.client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(r: CallToolResult): string {
  return r.content.filter((c) => c.type === "text").map((c) => (c as { text: string }).text).join("\n");
}

/** The file's bytes as carried by a codex_artifact result, whatever the content form. */
function bytesOf(r: CallToolResult): { form: string; bytes: Buffer } {
  for (const c of r.content) {
    if (c.type === "image" || c.type === "audio") return { form: c.type, bytes: Buffer.from(c.data, "base64") };
    if (c.type === "resource") {
      const res = c.resource as { text?: string; blob?: string };
      if (res.blob !== undefined) return { form: "resource-blob", bytes: Buffer.from(res.blob, "base64") };
      return { form: "resource-text", bytes: Buffer.from(res.text ?? "", "utf8") };
    }
  }
  throw new Error("no bytes in result");
}

function bytesOfResource(r: ReadResourceResult): Buffer {
  const c = r.contents[0] as { text?: string; blob?: string };
  return c.blob !== undefined ? Buffer.from(c.blob, "base64") : Buffer.from(c.text ?? "", "utf8");
}

describe("tools/list", () => {
  it("declares both tools read-only with schemas, and codex_artifact points at the viewer", async () => {
    const { tools } = await h.client.listTools();
    for (const name of ["codex_files", "codex_artifact"]) {
      const t = tools.find((x) => x.name === name)!;
      expect(t.title).toBeTruthy();
      expect(t.outputSchema).toBeTruthy();
      expect(t.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    }
    const art = tools.find((x) => x.name === "codex_artifact")!;
    expect(art._meta?.ui).toEqual({ resourceUri: ARTIFACT_VIEWER_URI });
    expect(art._meta?.["ui/resourceUri"]).toBe(ARTIFACT_VIEWER_URI);
    expect(JSON.stringify(tools).length).toBeLessThan(4000);
  });
});

describe("codex_artifact returns the original bytes in the right form", () => {
  const cases: [string, string, string][] = [
    ["out/report.pdf", "resource-blob", "application/pdf"],
    ["out/chart.png", "image", "image/png"],
    ["out/beep.wav", "audio", "audio/wav"],
    ["data/table.csv", "resource-text", "text/csv"],
    ["bin/blob.dat", "resource-blob", "application/octet-stream"],
    ["out/disguised.txt", "image", "image/png"],
    ["out/noext", "resource-blob", "application/pdf"],
  ];
  for (const [rel, form, mimeType] of cases) {
    it(`${rel} → ${form} (${mimeType}), byte-identical, and resources/read agrees`, async () => {
      const r = await call("codex_artifact", { project_id: "demo", path: rel });
      expect(r.isError).toBeFalsy();
      const got = bytesOf(r);
      expect(got.form).toBe(form);
      expect(sha256(got.bytes)).toBe(sha256(files[rel]));
      const sc = r.structuredContent as Record<string, unknown>;
      expect(sc.mime).toBe(mimeType);
      expect(sc.sha256).toBe(sha256(files[rel]));
      expect(sc.size).toBe(files[rel].length);
      expect(sc.complete).toBe(true);
      const link = r.content.find((c) => c.type === "resource_link") as { uri: string; mimeType?: string } | undefined;
      expect(link?.uri).toBe(`codex-artifact://demo/${rel}`);
      const viaResource = await h.client.readResource({ uri: link!.uri });
      expect(sha256(bytesOfResource(viaResource))).toBe(sha256(files[rel]));
      expect(viaResource.contents[0].mimeType).toBe(mimeType);
    });
  }

  it("keeps the text content compact: a summary line, not the bytes", async () => {
    const r = await call("codex_artifact", { project_id: "demo", path: "bin/blob.dat" });
    expect(textOf(r).length).toBeLessThan(200);
  });
});

describe("bad input is a tool error naming the field and the fix", () => {
  it("unknown project lists the valid ids", async () => {
    const r = await call("codex_artifact", { project_id: "nope", path: "a" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/project_id "nope" is not configured; use one of: demo, other/);
  });
  it("traversal names the path field", async () => {
    const r = await call("codex_artifact", { project_id: "demo", path: "../../etc/passwd" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^path: /);
    expect(textOf(r)).not.toContain(root);
  });
  it("sensitive file is refused", async () => {
    const r = await call("codex_artifact", { project_id: "demo", path: ".ENV" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/sensitive_paths/);
  });
  it("a wrong type names the field", async () => {
    const r = await call("codex_files", { project_id: "demo", limit: 9999 });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/limit: at most 500/);
    const r2 = await call("codex_artifact", { project_id: "demo", path: "out/chart.png", offset: -1 });
    expect(r2.isError).toBe(true);
    expect(textOf(r2)).toMatch(/offset:/);
  });
  it("length above chunk_bytes names length", async () => {
    const r = await call("codex_artifact", { project_id: "demo", path: "bin/blob.dat", offset: 0, length: 8 * MiB });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^length: /);
  });
  it("resources/read of a hostile URI is refused", async () => {
    await expect(h.client.readResource({ uri: "codex-artifact://demo/%252e%252e/%252e%252e/etc/passwd" })).rejects.toThrow(/path: /);
    await expect(h.client.readResource({ uri: "codex-artifact://demo/.env" })).rejects.toThrow(/sensitive_paths/);
    await expect(h.client.readResource({ uri: "codex-artifact://ghost/a.txt" })).rejects.toThrow(/use one of: demo, other/);
  });
});

describe("hard links", () => {
  it("are refused with the reason and the opt-in, unless the project sets allow_hard_links", async () => {
    const outside = tempDir("tools-outside");
    try {
      fs.writeFileSync(path.join(outside, "secret.txt"), "outside secret\n");
      fs.linkSync(path.join(outside, "secret.txt"), path.join(root, "data", "linked.txt"));
      const r = await call("codex_artifact", { project_id: "demo", path: "data/linked.txt" });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/^path: .*hard link.*allow_hard_links = true/);
      expect(textOf(r)).not.toContain("outside secret");
      await expect(h.client.readResource({ uri: "codex-artifact://demo/data/linked.txt" })).rejects.toThrow(/allow_hard_links/);

      const trusting = await connect({ projects: () => ({ demo: { cwd: root, allowHardLinks: true } }) });
      try {
        const ok = await trusting.client.callTool({ name: "codex_artifact", arguments: { project_id: "demo", path: "data/linked.txt" } });
        expect(ok.isError).toBeFalsy();
        expect(bytesOf(ok as CallToolResult).bytes.toString()).toBe("outside secret\n");
      } finally {
        await trusting.close();
      }
    } finally {
      fs.rmSync(path.join(root, "data", "linked.txt"), { force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe("codex_files", () => {
  it("lists recursively in path order, skipping .git and sensitive files", async () => {
    const r = await call("codex_files", { project_id: "demo", recursive: true });
    expect(r.isError).toBeFalsy();
    const sc = r.structuredContent as { entries: { path: string; kind: string }[]; total: number };
    const paths = sc.entries.map((e) => e.path);
    expect(paths).toEqual([...paths].sort());
    expect(paths).toContain("out/chart.png");
    expect(paths).toContain("data");
    expect(paths.some((p) => p.startsWith(".git"))).toBe(false);
    expect(paths).not.toContain(".env");
    const lines = textOf(r).split("\n");
    expect(lines.length).toBe(sc.entries.length + 1);
    expect(lines.find((l) => l.includes("out/chart.png"))).toMatch(/^f out\/chart\.png \d+ \d{4}-\d\d-\d\dT[\d:]+Z image\/png$/);
  });
  it("searches by glob and by substring", async () => {
    const g = (await call("codex_files", { project_id: "demo", query: "*.PNG" })).structuredContent as { entries: { path: string }[] };
    expect(g.entries.map((e) => e.path)).toEqual(["out/chart.png"]);
    const s = (await call("codex_files", { project_id: "demo", query: "table" })).structuredContent as { entries: { path: string }[] };
    expect(s.entries.map((e) => e.path)).toEqual(["data/table.csv"]);
  });
  it("paginates with next_offset", async () => {
    const all = (await call("codex_files", { project_id: "demo", recursive: true })).structuredContent as { entries: { path: string }[]; total: number };
    const seen: string[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const sc = (await call("codex_files", { project_id: "demo", recursive: true, offset, limit: 3 })).structuredContent as {
        entries: { path: string }[];
        next_offset?: number;
        total: number;
      };
      expect(sc.entries.length).toBeLessThanOrEqual(3);
      expect(sc.total).toBe(all.total);
      seen.push(...sc.entries.map((e) => e.path));
      offset = sc.next_offset;
    }
    expect(seen).toEqual(all.entries.map((e) => e.path));
  });
  it("lists a subdirectory non-recursively", async () => {
    const sc = (await call("codex_files", { project_id: "demo", path: "out" })).structuredContent as { entries: { path: string }[] };
    expect(sc.entries.map((e) => e.path)).toEqual(["out/beep.wav", "out/chart.png", "out/disguised.txt", "out/noext", "out/report.pdf"]);
  });
});

describe("viewer resource", () => {
  it("is listed and readable as a self-contained MCP App", async () => {
    const { resources } = await h.client.listResources();
    const v = resources.find((r) => r.uri === ARTIFACT_VIEWER_URI);
    expect(v?.mimeType).toBe("text/html;profile=mcp-app");
    const read = await h.client.readResource({ uri: ARTIFACT_VIEWER_URI });
    const html = (read.contents[0] as { text: string }).text;
    expect(read.contents[0].mimeType).toBe("text/html;profile=mcp-app");
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).not.toMatch(/<script[^>]+src=/i);
    expect(html).toContain("ui/initialize");
    expect(html).toContain("ui/download-file");
    const { resourceTemplates } = await h.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain("codex-artifact://{project}/{+path}");
  });
});

describe("large files", () => {
  let big: Harness;
  let bigRoot: string;
  const sizes = { at32: 32 * MiB, over: 32 * MiB + 1, at40: 40 * MiB };
  const data: Record<string, Buffer> = {};

  beforeAll(async () => {
    bigRoot = tempDir("cb-big-");
    data["f32.bin"] = crypto.randomBytes(sizes.at32);
    data["f40.bin"] = crypto.randomBytes(sizes.at40);
    for (const [k, v] of Object.entries(data)) fs.writeFileSync(path.join(bigRoot, k), v);
    // The over-limit file is sparse: its content never matters because it must not be read.
    const fd = fs.openSync(path.join(bigRoot, "over.bin"), "w");
    fs.ftruncateSync(fd, sizes.over);
    fs.closeSync(fd);
    big = await connect({ projects: () => ({ big: { cwd: bigRoot } }) });
  });

  afterAll(async () => {
    await big.close();
    removeTempDir(bigRoot);
  });

  async function fetchInChunks(harness: Harness, project: string, rel: string, inline: number): Promise<{ bytes: Buffer; chunks: number }> {
    const first = (await harness.client.callTool({ name: "codex_artifact", arguments: { project_id: project, path: rel } })) as CallToolResult;
    expect(first.isError).toBeFalsy();
    const meta = first.structuredContent as { size: number; sha256: string; chunk_bytes: number; complete: boolean };
    expect(meta.complete).toBe(false);
    expect(JSON.stringify(first).length).toBeLessThan(2000);
    expect(first.content.some((c) => c.type === "resource_link")).toBe(true);
    expect(meta.chunk_bytes).toBeLessThanOrEqual(inline);
    const parts: Buffer[] = [];
    let offset: number | undefined = 0;
    let chunks = 0;
    while (offset !== undefined) {
      const r = (await harness.client.callTool({
        name: "codex_artifact",
        arguments: { project_id: project, path: rel, offset, length: meta.chunk_bytes },
      })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      // No single response exceeds the threshold plus a small envelope.
      expect(JSON.stringify(r).length).toBeLessThanOrEqual(inline + 4096);
      const part = bytesOf(r).bytes;
      expect(part.length).toBeLessThanOrEqual(inline);
      parts.push(part);
      chunks++;
      offset = (r.structuredContent as { next_offset?: number }).next_offset;
    }
    const bytes = Buffer.concat(parts);
    expect(sha256(bytes)).toBe(meta.sha256);
    return { bytes, chunks };
  }

  it("a 32 MiB file (the default limit) transfers as chunks under the inline threshold", async () => {
    const { bytes, chunks } = await fetchInChunks(big, "big", "f32.bin", 4 * MiB);
    expect(sha256(bytes)).toBe(sha256(data["f32.bin"]));
    expect(chunks).toBeGreaterThan(8);
  });

  it("a file over the limit is refused before any byte is read", async () => {
    const spy = vi.spyOn(fs, "readSync");
    try {
      const r = (await big.client.callTool({ name: "codex_artifact", arguments: { project_id: "big", path: "over.bin" } })) as CallToolResult;
      expect(r.isError).toBe(true);
      expect(textOf(r)).toContain(`${sizes.over} bytes`);
      expect(textOf(r)).toContain(`${32 * MiB} bytes`);
      expect(spy).not.toHaveBeenCalled();
      const ranged = (await big.client.callTool({ name: "codex_artifact", arguments: { project_id: "big", path: "over.bin", offset: 0, length: 10 } })) as CallToolResult;
      expect(ranged.isError).toBe(true);
      expect(spy).not.toHaveBeenCalled();
      // The spy does see reads: a file within the limit is read through it.
      await big.client.callTool({ name: "codex_artifact", arguments: { project_id: "big", path: "f32.bin", offset: 0, length: 10 } });
      expect(spy).toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  it("a 40 MiB artifact (limit raised) arrives in chunks under the threshold and reassembles byte-identical", async () => {
    const raised = await connect({ projects: () => ({ big: { cwd: bigRoot } }), maxArtifactBytes: 64 * MiB, inlineArtifactBytes: 4 * MiB });
    try {
      const { bytes } = await fetchInChunks(raised, "big", "f40.bin", 4 * MiB);
      expect(sha256(bytes)).toBe(sha256(data["f40.bin"]));
      // resources/read refuses the whole file with a pointer to ranges, and serves a range.
      await expect(raised.client.readResource({ uri: "codex-artifact://big/f40.bin" })).rejects.toThrow(/offset=0&length=/);
      const part = await raised.client.readResource({ uri: "codex-artifact://big/f40.bin?offset=1000&length=5000" });
      expect(bytesOfResource(part).equals(data["f40.bin"].subarray(1000, 6000))).toBe(true);
    } finally {
      await raised.close();
    }
  });
});
