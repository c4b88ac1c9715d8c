#!/usr/bin/env bash
# Runs the MCP conformance suite (server scenarios, Streamable HTTP) against `codex-bridge serve --http` and exits
# non-zero only on unexpected results (a failure not in conformance/baseline.yml, or a baseline entry that now passes).
# Offline: the bridge gets an empty config, an in-memory state, and a throwaway CODEX_HOME; the suite only talks to
# the loopback URL. The suite needs Node 22 (installed on first use into .cache/node22), the bridge runs from source under Bun unless
# CODEX_BRIDGE_BIN names a built binary.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Node 22 lives outside node_modules/.bin so that npm scripts keep running on the system Node (20+).
NODE22_DIR="$ROOT/.cache/node22"
NODE22="$NODE22_DIR/node_modules/node/bin/node"
NODE22_VERSION="22.23.3"
SUITE="$ROOT/node_modules/@modelcontextprotocol/conformance/dist/index.js"
BASELINE="${CONFORMANCE_BASELINE:-$ROOT/conformance/baseline.yml}"
BUN="$ROOT/node_modules/.bin/bun"

fail() { echo "conformance: $*" >&2; exit 2; }
if [ ! -x "$NODE22" ]; then
  echo "conformance: installing node@$NODE22_VERSION into .cache/node22 (the suite needs Node 22)" >&2
  npm install --silent --no-save --no-package-lock --no-audit --no-fund --prefix "$NODE22_DIR" "node@$NODE22_VERSION" >&2 \
    || fail "could not install node@$NODE22_VERSION from the npm registry"
fi
[ -x "$NODE22" ] || fail "Node 22 is missing ($NODE22)"
case "$("$NODE22" --version)" in v22.*) ;; *) fail "$NODE22 is not Node 22";; esac
[ -f "$SUITE" ] || fail "@modelcontextprotocol/conformance is missing: run npm ci"

if [ -n "${CODEX_BRIDGE_BIN:-}" ]; then
  BRIDGE=("$CODEX_BRIDGE_BIN")
else
  [ -x "$BUN" ] || fail "bun is missing ($BUN): run npm ci, or set CODEX_BRIDGE_BIN to a built binary"
  BRIDGE=("$BUN" "$ROOT/src/cli/main.ts")
fi
CODEX_NATIVE="$(ls "$ROOT"/node_modules/@openai/codex-*/vendor/*/bin/codex 2>/dev/null | head -n 1 || true)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/codex-bridge-conformance.XXXXXX")"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

started=$(date +%s%N)
mkdir -p "$WORK/home" "$WORK/codex-home"
: > "$WORK/config.toml"
# A clean environment: nothing of the caller's Codex home, config or keys reaches the bridge.
env -i PATH="$PATH" HOME="$WORK/home" CODEX_HOME="$WORK/codex-home" \
  CODEX_BRIDGE_CONFIG="$WORK/config.toml" CODEX_BRIDGE_STATE=":memory:" ${CODEX_NATIVE:+CODEX_BIN="$CODEX_NATIVE"} \
  "${BRIDGE[@]}" serve --http 127.0.0.1:0 2> "$WORK/bridge.log" &
SERVER_PID=$!

URL=""
for _ in $(seq 1 300); do
  URL="$(grep -o 'ready url=http://[^ ]*/mcp' "$WORK/bridge.log" 2>/dev/null | head -n 1 | cut -d= -f2 || true)"
  [ -n "$URL" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/bridge.log" >&2; fail "the bridge exited before it was ready"; }
  sleep 0.1
done
[ -n "$URL" ] || { cat "$WORK/bridge.log" >&2; fail "the bridge was not ready after 30 s"; }
ready=$(date +%s%N)
echo "conformance: bridge ready at $URL in $(( (ready - started) / 1000000 )) ms"

set +e
"$NODE22" "$SUITE" server --url "$URL" --expected-failures "$BASELINE" -o "$WORK/results" > "$WORK/suite.log" 2>&1
status=$?
set -e
finished=$(date +%s%N)

# The per-scenario summary and whatever the baseline comparison said; the full log only on failure.
sed -n '/^=== SUMMARY ===/,$p' "$WORK/suite.log"
if [ "$status" -ne 0 ]; then
  echo "--- full suite output ---"
  cat "$WORK/suite.log"
  echo "--- bridge stderr ---"
  cat "$WORK/bridge.log"
fi
echo "conformance: suite took $(( (finished - ready) / 1000000 )) ms, $(( (finished - started) / 1000000 )) ms in all; exit $status"
exit "$status"
