#!/usr/bin/env bash
# Issue 10: what a snapshot by attach costs. For each heap size of bench/stall_app, prints the
# wall time of `gcsnap snapshot PID` and the longest stall the app felt, for (a) a process
# started without gcsnap (attach, snapshot, finish the file, detach) and (b) a process already
# under `gcsnap record --policy none`, with a plain full GC as the baseline from the same run.
#   bench/attach.sh [--sizes "1000000 3000000"] [--reps 3] [--out DIR]
# Env: BUILD_DIR (default build-bench; Release).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
OUT=${TMPDIR:-/tmp}/gcsnap-attach-bench
SIZES="1000000"
REPS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) SIZES=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "usage: $0 [--sizes \"N ...\"] [--reps R] [--out DIR]" >&2; exit 64 ;;
  esac
done
mkdir -p "$OUT"
log() { echo "attach.sh: $*" >&2; }
source "$ROOT/bench/bench_build.sh"
bench_build_gcsnap
bench_build_app stall_app
python3 "$ROOT/bench/attach_drive.py" --sizes "$SIZES" --reps "$REPS" --out "$OUT" \
  --app-dll "$OUT/stall_app/StallApp.dll" --gcsnap "$BUILD/bin/gcsnap"
