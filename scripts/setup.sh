#!/usr/bin/env bash
# Install what gcsnap needs on a fresh Debian machine. Quick and quiet when all is there.
# setup.sh --build: only what building gcsnap and its profiler needs (the demo, install.sh and
# package.sh); without it, also what the tests need (Catch2, clang for the fuzz targets, a browser).
set -euo pipefail

packages=(cmake g++ make pkg-config libzstd-dev libfmt-dev libcli11-dev libxxhash-dev robin-map-dev zlib1g-dev
          libprotozero-dev)
if [ "${1:-}" != --build ]; then
  # bsdutils (Essential on Debian, listed for minimal images) has `script`: the pty test of progress.
  # curl drives the e2e service app over HTTP (tests/e2e/service_cases.sh).
  # golang-go has `go tool pprof`, the reader the pprof export is tested with (tests/engines).
  # python3 compares the identity oracle's answers (tests/e2e/identity_compare.py).
  packages+=(catch2 clang-14 libclang-rt-14-dev chromium bsdutils curl golang-go python3)
  # The browser tests (tests/browser) need Node.js and npm: Debian's, unless some node is there.
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v dotnet >/dev/null 2>&1; then
  echo "setup: warning: 'dotnet' is not on PATH; recording and the end-to-end tests need the .NET SDK" >&2
fi
