# Sourced by .ci/run: the other release targets run on this x86-64 Debian machine (linux-arm64 under qemu-user,
# windows-x64 under Wine, the darwin executables checked without macOS) and the oldest supported Codex. Everything
# non-Node is installed here (Debian packages, Codex builds from npm), never by npm ci. The emulator aids under
# test/emulators/ are not part of the product.

OLDEST_CODEX=0.147.0 # the oldest supported Codex (src/codex/protocol/verified.ts)
ARM64_CODEX=0.171.0  # the pinned Codex, arm64 build

apt_install() {
  local sudo="" attempt
  [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
  for attempt in 1 2; do
    if $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$WORK/apt-emu.log" 2>&1 &&
      $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >>"$WORK/apt-emu.log" 2>&1; then
      return 0
    fi
    echo "apt-get attempt $attempt failed; last lines:"; tail -n 5 "$WORK/apt-emu.log"
    sleep 3
  done
  return 1
}

# qemu-user for arm64, Wine 8 (64-bit only) and the MinGW compiler for the two Wine aids; installed only when missing.
ensure_emulators() {
  local missing=()
  command -v qemu-aarch64-static >/dev/null || missing+=(qemu-user-static binfmt-support)
  [ -d /usr/aarch64-linux-gnu/lib ] || missing+=(libc6-arm64-cross)
  command -v wine >/dev/null || missing+=(wine wine64)
  command -v x86_64-w64-mingw32-gcc >/dev/null || missing+=(gcc-mingw-w64-x86-64)
  if [ ${#missing[@]} -eq 0 ]; then echo "present: qemu-user-static, wine $(wine --version 2>/dev/null), mingw-w64"; return 0; fi
  echo "installing: ${missing[*]}"
  apt_install "${missing[@]}"
}

# npm_codex VERSION-PLATFORM DIR: one Codex platform package from npm, unpacked into DIR; prints its native binary.
npm_codex() {
  local spec="$1" dir="$2"
  mkdir -p "$dir"
  (cd "$dir" && npm pack --silent "@openai/codex@$spec" >/dev/null && tar xzf ./*.tgz && rm -f ./*.tgz) || return 1
  find "$dir/package/vendor" -path '*/bin/codex' -type f | head -n 1
}

oldest_codex() {
  local bin
  bin=$(npm_codex "$OLDEST_CODEX-linux-x64" "$WORK/codex-oldest") || return 1
  "$bin" --version || return 1
  echo "$bin" >"$WORK/codex-oldest.path"
}

# The qemu-aarch64 binfmt entry lets the arm64 bridge start the arm64 Codex; it is registered only for this step.
linux_arm64_under_qemu() {
  local bin registered=0 rc=0 binfmt=/proc/sys/fs/binfmt_misc
  bin=$(npm_codex "$ARM64_CODEX-linux-arm64" "$WORK/codex-arm64") || return 1
  [ -e "$binfmt/register" ] || mount -t binfmt_misc binfmt_misc "$binfmt" || { echo "cannot mount binfmt_misc"; return 1; }
  if [ ! -e "$binfmt/qemu-aarch64" ]; then
    grep -v '^#' /usr/lib/binfmt.d/qemu-aarch64.conf | head -n 1 >"$binfmt/register" || return 1
    registered=1
  fi
  QEMU_LD_PREFIX=/usr/aarch64-linux-gnu node_modules/.bin/bun test/emulators/linux-arm64.ts \
    dist-binaries/codex-bridge-linux-arm64 "$bin" || rc=$?
  [ "$registered" -eq 0 ] || echo -1 >"$binfmt/qemu-aarch64"
  return "$rc"
}

# A private Wine prefix with the ProcessPrng stand-in, and relay.exe; both built here from test/emulators/wine/.
windows_x64_under_wine() {
  local aids="$WORK/wine-aids" rc=0
  mkdir -p "$aids"
  x86_64-w64-mingw32-gcc -shared -O2 -o "$aids/bcryptprimitives.dll" test/emulators/wine/processprng.c || return 1
  x86_64-w64-mingw32-gcc -O2 -municode -o "$aids/relay.exe" test/emulators/wine/relay.c || return 1
  export WINEPREFIX="$WORK/wine-prefix" WINEDEBUG=-all
  wine wineboot --init >"$WORK/wineboot.log" 2>&1 || { tail -n 5 "$WORK/wineboot.log"; return 1; }
  cp "$aids/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"
  node_modules/.bin/bun test/emulators/windows-x64.ts dist-binaries/codex-bridge-windows-x64.exe "$aids/relay.exe" || rc=$?
  wineserver -k 2>/dev/null || true
  unset WINEPREFIX WINEDEBUG
  return "$rc"
}

darwin_signatures() { node_modules/.bin/bun scripts/verify-darwin.ts dist-binaries; }
