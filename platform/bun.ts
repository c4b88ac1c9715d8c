// The platform for Bun (the compiled binary and `bun` runs): Bun spawn and bun:sqlite behind the shared interface.
import type { Platform } from "./types.ts";
import { isReparsePoint, osDirs, processAlive } from "./host-node.ts";
import { connectSocketWebSocket } from "./socket-ws.ts";
import { spawnChild } from "./spawn-node.ts";
import { openBunDatabase } from "./sqlite-bun.ts";

export const bunPlatform: Platform = {
  name: "bun",
  spawn: spawnChild,
  connectSocket: (path) => connectSocketWebSocket(path),
  openDatabase: openBunDatabase,
  processAlive,
  dirs: () => osDirs(),
  isReparsePoint: (path) => isReparsePoint(path),
  collectGarbage: (full) => (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(full),
};
