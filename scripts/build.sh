#!/usr/bin/env bash
# Configure and build gcsnap into build/ (or $GCSNAP_BUILD_DIR); extra arguments go to cmake.
# Prints the warning flags every target builds with, then every compiler warning (of the files
# compiled this time) and, on failure, the errors.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GCSNAP_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${GCSNAP_BUILD_TYPE:-RelWithDebInfo} "$@" |
  sed -n 's/^-- gcsnap warning flags: /build: warning flags: /p'
log=$build/build.log
rc=0
cmake --build "$build" -j"$(nproc)" >"$log" 2>&1 || rc=$?
warnings=$(grep -c "warning:" "$log" || true)
if ((warnings)); then
  grep -A2 "warning:" "$log" | grep -v "^--$"
fi
echo "build: $warnings compiler warnings (full log: $log)"
if ((rc)); then
  grep -E "error|FAILED" "$log" | head -40 >&2
  echo "build: failed (exit $rc); full log: $log" >&2
  exit "$rc"
fi
