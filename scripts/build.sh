#!/usr/bin/env bash
# Configure and build gcsnap into build/ (or $GCSNAP_BUILD_DIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GCSNAP_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${GCSNAP_BUILD_TYPE:-RelWithDebInfo} "$@" >/dev/null
cmake --build "$build" -j"$(nproc)" 2>&1 | grep -E "error|warning: unused|FAILED" || true
cmake --build "$build" -j"$(nproc)" >/dev/null
