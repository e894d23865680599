#!/usr/bin/env bash
# Set up, build and run the whole test suite through ctest; then the same suite (minus the
# end-to-end tests, which need the profiler shim) built with AddressSanitizer + UBSan.
# GCSNAP_SKIP_SANITIZE=1 runs the main build only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GCSNAP_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
status=0
(cd "$build" && ctest --output-on-failure -j2 --timeout 900) || status=$?

if [ "${GCSNAP_SKIP_SANITIZE:-0}" != 1 ]; then
  asan=${GCSNAP_ASAN_BUILD_DIR:-$root/build-asan}
  echo "test.sh: sanitizer build (ASan + UBSan) in $asan"
  GCSNAP_BUILD_DIR=$asan "$root/scripts/build.sh" -DGCSNAP_SANITIZE=ON -DGCSNAP_BUILD_SHIM=OFF -DGCSNAP_BUILD_BENCH=OFF
  # e2e.*: they record a real .NET app through the shim, which this build leaves out.
  (cd "$asan" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest --output-on-failure -j2 --timeout 900 -E '^e2e\.') || status=$?
fi
exit $status
