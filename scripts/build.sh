#!/usr/bin/env bash
# Configure and build gcsnap into build/ (or $GCSNAP_BUILD_DIR); extra arguments go to cmake.
# Prints the warning flags every target builds with, then every compiler warning (of the files
# compiled this time) and, on failure, the errors.
# Everything is built (tests and benchmarks too) unless the arguments say otherwise;
# GCSNAP_BUILD_TARGETS="gcsnap_cli gcsnap_profiler" builds only those targets, and
# GCSNAP_SETUP=--build installs only what building needs (scripts/setup.sh).
# On a terminal one line shows the progress; elsewhere a line at every tenth of the way.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GCSNAP_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" ${GCSNAP_SETUP:-}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${GCSNAP_BUILD_TYPE:-RelWithDebInfo} \
      -DGCSNAP_BUILD_TESTS=ON -DGCSNAP_BUILD_BENCH=ON "$@" |
  sed -n 's/^-- gcsnap warning flags: /build: warning flags: /p'
log=$build/build.log
targets=()
for t in ${GCSNAP_BUILD_TARGETS:-}; do targets+=(--target "$t"); done

# progress: read the build's output, keep it in the log, show "[ NN%] file" lines.
progress() {
  local line pct file shown=-10 tty=0
  [ -t 1 ] && tty=1
  : >"$log"
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    [[ $line =~ ^\[\ *([0-9]+)%\]\ (Building|Linking)\ [A-Z]+\ [a-z\ ]*([^ ]+)$ ]] || continue
    pct=${BASH_REMATCH[1]} file=${BASH_REMATCH[3]##*/}
    file=${file%.o}
    if ((tty)); then
      printf '\rbuild: [%3d%%] %-60.60s' "$pct" "$file"
    elif ((pct >= shown + 10)); then
      shown=$((pct / 10 * 10))
      printf 'build: [%3d%%] %s\n' "$pct" "$file"
    fi
  done
  ((tty)) && printf '\r%80s\r' '' || true
}

set +e
cmake --build "$build" -j"$(nproc)" "${targets[@]}" 2>&1 | progress
rc=${PIPESTATUS[0]}
set -e
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
