#!/usr/bin/env bash
# Issue 11: the snapshot pause. Prints, for each heap size, the longest stall bench/stall_app
# felt during: a plain full blocking GC (no profiler); `gcsnap snapshot` with
# GCSNAP_WALK_ONLY=1 (the runtime's heap walk, nothing stored); `gcsnap snapshot` (the shim
# storing the walk); the EventPipe heap dump dotnet-gcdump is built on (dotnet-trace with the
# gcdump keywords). Snapshots are taken under `gcsnap record --policy none`.
#   bench/pause.sh [--sizes "1000000 5000000"] [--reps 3] [--rows plain,walk,shim,eventpipe] [--out DIR] [--keep]
# Row nofields (not in the default rows): `gcsnap snapshot` with GCSNAP_FIELDS=0, for the cost of
# field names (docs/performance.md "Field names: what they cost"). Row shim_b: `gcsnap snapshot`
# with the shim named by GCSNAP_SHIM_B (another build), for an A/B of two shims in one run.
# Rows are interleaved: every row's app is started first, then the repetitions take turns, and
# each one waits until the snapshot file (or trace) stops growing; the table prints the load.
# Env: BUILD_DIR (default build-bench; Release), DOTNET_TRACE (use this dotnet-trace instead of
# installing one from NuGet into OUT/tools).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
OUT=${TMPDIR:-/tmp}/gcsnap-pause
SIZES="1000000 5000000"
REPS=3
ROWS=plain,walk,shim,eventpipe
KEEP=()
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) SIZES=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --rows) ROWS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --keep) KEEP=(--keep); shift ;;
    *) echo "usage: $0 [--sizes \"N ...\"] [--reps R] [--rows plain,walk,shim,eventpipe] [--out DIR] [--keep]" >&2; exit 64 ;;
  esac
done
mkdir -p "$OUT"
log() { echo "pause.sh: $*" >&2; }

source "$ROOT/bench/bench_build.sh"
bench_build_gcsnap

bench_build_app stall_app

TRACE=${DOTNET_TRACE:-}
TRACE_NOTE="not installed"
if [[ ",$ROWS," == *,eventpipe,* ]] && [ -z "$TRACE" ]; then
  TRACE=$OUT/tools/dotnet-trace
  if [ ! -x "$TRACE" ]; then
    log "installing dotnet-trace from NuGet into $OUT/tools"
    if ! dotnet tool install dotnet-trace --tool-path "$OUT/tools" >"$OUT/dotnet-trace-install.log" 2>&1; then
      TRACE_NOTE="dotnet tool install dotnet-trace failed: $(grep -m1 -i error "$OUT/dotnet-trace-install.log" || tail -1 "$OUT/dotnet-trace-install.log")"
      log "$TRACE_NOTE"
      TRACE=""
    fi
  fi
fi

python3 "$ROOT/bench/pause_drive.py" --sizes "$SIZES" --reps "$REPS" --rows "$ROWS" --out "$OUT" \
  --app-dll "$OUT/stall_app/StallApp.dll" --gcsnap "$GCSNAP" --dotnet-trace "$TRACE" --trace-note "$TRACE_NOTE" "${KEEP[@]}"
