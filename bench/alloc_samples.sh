#!/usr/bin/env bash
# Issue 43: how long `gcsnap allocs` takes on a recording of SAMPLES allocation samples over
# GCS GCs (bench/alloc_samples_synth.cpp), --by site, type and stack; prints the median wall
# time of REPS runs each and the peak RSS. Target: 1 M samples under 1 s.
#   bench/alloc_samples.sh [--samples 1000000] [--gcs 1000] [--reps 3]
# Env: BUILD_DIR (default build).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build}
SAMPLES=1000000 GCS=1000 REPS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --samples) SAMPLES=$2; shift 2 ;;
    --gcs) GCS=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    *) echo "usage: $0 [--samples N] [--gcs G] [--reps R]" >&2; exit 64 ;;
  esac
done
cmake --build "$BUILD" --target alloc_samples_synth gcsnap_cli >/dev/null
snap=${TMPDIR:-/tmp}/gcsnap-alloc-samples-$SAMPLES.snap
"$BUILD/bench/alloc_samples_synth" "$snap" "$SAMPLES" "$GCS"
echo "$SAMPLES samples over $GCS GCs, $(du -k "$snap" | cut -f1) KiB; medians of $REPS runs"
for by in site type stack; do
  times=() rss=0
  for _ in $(seq 1 "$REPS"); do
    out=$( { /usr/bin/time -f '%e %M' "$BUILD/bin/gcsnap" allocs "$snap" --by "$by" --format json >/dev/null; } 2>&1 | tail -1)
    times+=("${out% *}") rss=${out#* }
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((REPS + 1) / 2))p")
  printf '  allocs --by %-5s  %6s s   peak RSS %s MiB\n' "$by" "$median" "$((rss / 1024))"
done
