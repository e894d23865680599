#!/usr/bin/env bash
# Set up, build and run the whole test suite through ctest; then the same suite built with
# AddressSanitizer + UBSan (without the shim, so without the end-to-end tests); then a short
# fuzz run (10 s per target; long runs: scripts/fuzz.sh SECONDS, docs/reliability.md).
# Before those, the release packages: scripts/package.sh, then their tests (ctest -L package in
# its build directory: tarball, .deb, .NET tool; docs/install.md). Last, the Windows build
# (scripts/build-windows.sh: mingw-w64) and its format, analysis and CLI tests under wine64.
# GCSNAP_SKIP_SANITIZE=1 leaves out the sanitizer build, GCSNAP_SKIP_FUZZ=1 the fuzz run,
# GCSNAP_SKIP_PACKAGE=1 the packages, GCSNAP_SKIP_WINDOWS=1 the Windows stage.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GCSNAP_BUILD_DIR:-$root/build}
# timing: "stage seconds" per stage, printed together at the end (CI shows the log's tail).
timing=()
stage_start=$SECONDS
stage_done() { timing+=("$1 $((SECONDS - stage_start)) s"); stage_start=$SECONDS; }
"$root/scripts/build.sh"
stage_done "main build"
status=0
# A test that fails is run once more and fails if it fails twice: the events source's e2e
# cases still flake now and then (a background GC's ranges outside its recorded bounds; stack
# roots that moved between the walk and the oracle's core dump; issue 48's note).
(cd "$build" && ctest --output-on-failure -j2 --timeout 900 --repeat until-pass:2) || status=$?
stage_done "main tests"

if [ "${GCSNAP_SKIP_PACKAGE:-0}" != 1 ]; then
  pkg=${GCSNAP_PACKAGE_BUILD_DIR:-$root/build-package}
  echo "test.sh: release packages (scripts/package.sh) and their tests (ctest -L package) in $pkg"
  { GCSNAP_PACKAGE_BUILD_DIR=$pkg "$root/scripts/package.sh" &&
    (cd "$pkg" && ctest -L package --output-on-failure -j2 --timeout 900); } || status=$?
  stage_done "packages"
fi

if [ "${GCSNAP_SKIP_SANITIZE:-0}" != 1 ]; then
  asan=${GCSNAP_ASAN_BUILD_DIR:-$root/build-asan}
  echo "test.sh: sanitizer build (ASan + UBSan) in $asan"
  GCSNAP_BUILD_DIR=$asan "$root/scripts/build.sh" -DGCSNAP_SANITIZE=ON -DGCSNAP_BUILD_SHIM=OFF -DGCSNAP_BUILD_BENCH=OFF
  (cd "$asan" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest --output-on-failure -j2 --timeout 900) || status=$?
  stage_done "sanitizers"
fi

if [ "${GCSNAP_SKIP_FUZZ:-0}" != 1 ]; then
  echo "test.sh: fuzz smoke run (clang, 10 s per target) in ${GCSNAP_FUZZ_BUILD_DIR:-$root/build-fuzz}"
  "$root/scripts/fuzz.sh" --build-dir "${GCSNAP_FUZZ_BUILD_DIR:-$root/build-fuzz}" 10 || status=$?
  stage_done "fuzz"
fi
if [ "${GCSNAP_SKIP_WINDOWS:-0}" != 1 ]; then
  win=${GCSNAP_WINDOWS_BUILD_DIR:-$root/build-windows}
  echo "test.sh: Windows build (mingw-w64) in $win, its tests under wine64"
  # -O2 without -g: mingw-w64's assembler and linker spend much of the build on debug info (the
  # zip strips it anyway). Not Release, whose -O3 makes GCC 12 warn falsely (-Wrestrict inside
  # std::string); the test files keep -O1 -g1 (tests/CMakeLists.txt).
  if GCSNAP_WINDOWS_BUILD_DIR=$win "$root/scripts/build-windows.sh" \
       -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG"; then
    # One wineserver and Wine's services for the whole stage, started in a session of their
    # own with no pipe of ours open: when each test's wine started and stopped the server,
    # clients now and then lost it ("recvmsg: Connection reset by peer", exit 1, no output)
    # and the stage took 3x as long; services started from inside a test inherited its output
    # pipe and ctest waited on them for ever.
    winserver=/usr/lib/wine/wineserver  # Debian's wine64, as build-windows.sh's wine-run uses
    export WINEPREFIX=${GCSNAP_WINEPREFIX:-$win/wineprefix}
    setsid "$winserver" -p </dev/null >/dev/null 2>&1
    "$win/wine-run" cmd /c exit </dev/null >/dev/null 2>&1
    # A test that still fails is run once more, and fails if it fails twice.
    (cd "$win" && ctest --output-on-failure -j2 --timeout 900 --repeat until-pass:2) || status=$?
    timeout 60 "$winserver" -k </dev/null >/dev/null 2>&1 || true
  else
    status=1
  fi
  stage_done "windows"
fi
joined=$(printf '%s, ' "${timing[@]}")
echo "test.sh: ${joined%, }; exit $status"
exit $status
