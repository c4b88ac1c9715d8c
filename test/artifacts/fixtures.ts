// Test support for the artifact tests: real PNG/WAV/PDF bytes, and an MCP client connected in memory to a server
// with only the artifact tools registered.
import crypto from "node:crypto";
import zlib from "node:zlib";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerArtifactTools } from "../../src/mcp/tools/artifacts.ts";
import { resolveProject, type ProjectSpec } from "../../src/config/settings.ts";
import { ArtifactReads, type ArtifactSettings } from "../../src/service/artifacts.ts";
import { DEFAULT_SENSITIVE_PATHS } from "../../src/artifacts/sensitive.ts";

export function sha256(b: Uint8Array): string {
  return crypto.createHash("sha256").update(b).digest("hex");
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** A real, decodable RGB PNG of the given size (a red/blue gradient). */
export function makePng(w = 4, h = 3): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const raw = Buffer.alloc(h * (1 + w * 3));
  for (let y = 0; y < h; y++) {
    raw[y * (1 + w * 3)] = 0;
    for (let x = 0; x < w; x++) {
      const o = y * (1 + w * 3) + 1 + x * 3;
      raw[o] = (x * 255) / Math.max(1, w - 1);
      raw[o + 1] = 40;
      raw[o + 2] = (y * 255) / Math.max(1, h - 1);
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", zlib.deflateSync(raw)),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/** 0.1 s of 8 kHz mono 16-bit PCM. */
export function makeWav(): Buffer {
  const samples = 800;
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(Math.sin(i / 4) * 8000), i * 2);
  const h = Buffer.alloc(44);
  h.write("RIFF", 0, "latin1");
  h.writeUInt32LE(36 + data.length, 4);
  h.write("WAVE", 8, "latin1");
  h.write("fmt ", 12, "latin1");
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(8000, 24);
  h.writeUInt32LE(16000, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write("data", 36, "latin1");
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

/** A minimal one-page PDF (valid structure, no xref offsets needed by sniffers). */
export function makePdf(): Buffer {
  return Buffer.from(
    "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
      "3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
    "latin1",
  );
}

export interface Harness {
  client: Client;
  server: McpServer;
  close(): Promise<void>;
}

export async function connect(deps: Partial<ArtifactSettings> & { projects: () => Record<string, { cwd: string; aliases?: string[]; allowHardLinks?: boolean }> }): Promise<Harness> {
  const server = new McpServer({ name: "codex-bridge-test", version: "0.0.0" });
  const { projects, ...settings } = deps;
  const settingsIn = { maxArtifactBytes: 32 * 1024 * 1024, inlineArtifactBytes: 4 * 1024 * 1024, sensitivePaths: [...DEFAULT_SENSITIVE_PATHS], ...settings };
  registerArtifactTools(server, new ArtifactReads(settingsIn, (id) => {
    const specs: Record<string, ProjectSpec> = Object.fromEntries(
      Object.entries(projects()).map(([k, p]) => [k, { id: k, cwd: p.cwd, aliases: p.aliases, allow_hard_links: p.allowHardLinks }]),
    );
    const p = resolveProject(specs, id);
    return { cwd: p.cwd, allowHardLinks: p.allow_hard_links === true };
  }));
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test-client", version: "0.0.0" });
  await Promise.all([server.connect(a), client.connect(b)]);
  return {
    client,
    server,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
