// Deno runs the source directly with npm compatibility: node:child_process, node:fs and the libsql addon all work.
import type { Platform } from "./types.ts";
import { isReparsePoint, osDirs, processAlive } from "./host-node.ts";
import { connectSocketWebSocket } from "./socket-ws.ts";
import { spawnChild } from "./spawn-node.ts";
import { openLibsqlDatabase } from "./sqlite-libsql.ts";

export const denoPlatform: Platform = {
  name: "deno",
  spawn: spawnChild,
  connectSocket: (path) => connectSocketWebSocket(path),
  openDatabase: openLibsqlDatabase,
  processAlive,
  dirs: () => osDirs(),
  isReparsePoint: (path) => isReparsePoint(path),
};
