// The platform for Node (the ESM bundle, vitest): child_process spawn and the libsql driver behind the shared interface.
import type { Platform } from "./types.ts";
import { isReparsePoint, osDirs, processAlive } from "./host-node.ts";
import { connectSocketWebSocket } from "./socket-ws.ts";
import { spawnChild } from "./spawn-node.ts";
import { openLibsqlDatabase } from "./sqlite-libsql.ts";

export const nodePlatform: Platform = {
  name: "node",
  spawn: spawnChild,
  connectSocket: (path) => connectSocketWebSocket(path),
  openDatabase: openLibsqlDatabase,
  processAlive,
  dirs: () => osDirs(),
  isReparsePoint: (path) => isReparsePoint(path),
};
