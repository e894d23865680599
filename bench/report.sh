#!/usr/bin/env bash
# The report and the export on a big synthetic recording (bench/synth_heap: two heap walks of
# N and ~0.98 N objects): the report's size, the time and memory to write it, its render time
# in headless Chromium; the heapsnapshot's size, time and peak memory against `gcsnap types
# --no-retained` (the same load and graph, no output) measured in the same run. Prints figures,
# asserts nothing (docs/performance.md "The report and the export").
#   bench/report.sh [N=2000000] [OUT=/tmp/gcsnap-report-bench]   (BUILD_DIR: an existing build)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-2000000}
OUT=${2:-/tmp/gcsnap-report-bench}
BUILD=${BUILD_DIR:-$OUT/build}
mkdir -p "$OUT"
log() { echo "report.sh: $*" >&2; }
# shellcheck source=bench_build.sh
source "$ROOT/bench/bench_build.sh"
bench_build_gcsnap
BENCH=$BUILD/bench/gcsnap_bench
if [ ! -x "$BENCH" ]; then
  cmake --build "$BUILD" -j2 --target gcsnap_bench >"$OUT/bench-build.log" 2>&1 || { tail -20 "$OUT/bench-build.log"; exit 1; }
fi
snap=$OUT/synth-$N.snap
[ -s "$snap" ] || { log "writing a synthetic recording of $N objects"; "$BENCH" write "$N" "$snap" bg >/dev/null; }
bash "$ROOT/tests/browser/npm_ci.sh" "$ROOT/tests/browser" "$OUT/npm" >/dev/null

# measure LABEL CMD...: wall seconds and peak RSS of one run.
measure() {
  local label=$1
  shift
  /usr/bin/time -f '%e %M' -o "$OUT/time.txt" "$@" >/dev/null 2>"$OUT/stderr.txt" || { cat "$OUT/stderr.txt"; exit 1; }
  read -r wall rss <"$OUT/time.txt"
  printf '%-34s %8.2f s %9.0f MiB peak RSS\n' "$label" "$wall" "$((rss / 1024))"
}
echo "recording: $snap ($(du -h "$snap" | cut -f1))"
measure "types --no-retained (baseline)" "$GCSNAP" types "$snap" --no-retained
measure "report" "$GCSNAP" report "$snap" -o "$OUT/report.html"
echo "report size: $(stat -c %s "$OUT/report.html") bytes"
measure "export --to heapsnapshot" "$GCSNAP" export "$snap" --to heapsnapshot -o "$OUT/synth.heapsnapshot"
echo "heapsnapshot size: $(stat -c %s "$OUT/synth.heapsnapshot") bytes; $(cat "$OUT/stderr.txt")"
NODE_PATH=$OUT/npm/node_modules node "$ROOT/bench/report_render.js" "$OUT/report.html" 3
rm -f "$OUT/synth.heapsnapshot"
