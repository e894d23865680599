#!/usr/bin/env bash
# Build gcsnap and its profiler and install them: install.sh [PREFIX] (default /usr/local).
#   PREFIX/bin/gcsnap                          the command (on PATH for /usr/local and /usr)
#   PREFIX/lib/gcsnap/libgcsnap_profiler.so    the profiler, where gcsnap looks for it
#   PREFIX/share/man/man1/gcsnap.1             `man gcsnap`
#   PREFIX/share/doc/gcsnap/                   README.md, format-spec.md, docs/*.md, docs/*.png
# Builds only those two targets, in build/ (or $GCSNAP_BUILD_DIR), then runs
# `cmake --install BUILD --component runtime --prefix PREFIX`; asks sudo for a prefix the user
# cannot write. Uninstall: delete the files listed in BUILD/install_manifest_runtime.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GCSNAP_BUILD_DIR:-$root/build}
prefix=${1:-/usr/local}
case $prefix in
  -h|--help) sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 0 ;;
  /*) ;;
  *) prefix=$(pwd)/$prefix ;;
esac

# A build directory the test command configured keeps its tests (not built now); a new one
# leaves them out, so that Catch2 is not needed.
only=(-DGCSNAP_BUILD_TESTS=OFF -DGCSNAP_BUILD_BENCH=OFF)
grep -q '^GCSNAP_BUILD_TESTS:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null && only=()
GCSNAP_SETUP=--build GCSNAP_BUILD_TARGETS="gcsnap_cli gcsnap_profiler" "$root/scripts/build.sh" "${only[@]}"
sudo_cmd=()
probe=$prefix
while [ ! -e "$probe" ]; do probe=$(dirname "$probe"); done
if [ ! -w "$probe" ] || { [ -d "$prefix/bin" ] && [ ! -w "$prefix/bin" ]; }; then
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
fi
# --component runtime: not the library, headers and CMake package (the "development" component).
"${sudo_cmd[@]}" cmake --install "$build" --component runtime --prefix "$prefix" |
  sed -n 's/^-- Installing: /install: /p; s/^-- Up-to-date: /install: (up to date) /p'
"$prefix/bin/gcsnap" --version >/dev/null
echo "install: gcsnap installed in $prefix/bin (man gcsnap; docs in $prefix/share/doc/gcsnap)"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "install: $prefix/bin is not on PATH: add it, or run $prefix/bin/gcsnap" ;;
esac
