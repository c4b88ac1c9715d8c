// An executable that starts test/support/fake-app-server.ts, to stand in for the codex binary (CODEX_BIN) where the
// real one cannot produce a case on demand; its behaviour is picked by FAKE_* variables in the bridge's environment.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUN } from "./bridge-process.ts";
import { PROJECT_ROOT } from "./real-codex.ts";

export function writeFakeCodex(dir: string): string {
  const wrapper = join(dir, "fake-codex");
  writeFileSync(wrapper, `#!/bin/sh\nexec "${BUN}" "${join(PROJECT_ROOT, "test", "support", "fake-app-server.ts")}"\n`);
  chmodSync(wrapper, 0o755);
  return wrapper;
}
