#!/usr/bin/env bash
# Issue 5: build (Release, own build dir) and print ONE table of performance figures.
#   bench/run.sh [--sizes "1000000 10000000"] [--reps 3] [--no-app] [--out DIR]
# Every figure is run REPS times and the median is shown. The machine is shared: numbers are
# noisy; CPU-time columns are less affected by neighbours than wall-time ones.
# Env: BUILD_DIR (default build-bench), APP_ARGS (gc_heavy_app arguments, default "30 200000 300000").
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
SIZES="1000000 10000000"
REPS=3
APP=1
OUT=${TMPDIR:-/tmp}/gcsnap-bench
APP_ARGS=${APP_ARGS:-"30 200000 300000"}
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) SIZES=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --no-app) APP=0; shift ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "usage: $0 [--sizes \"N ...\"] [--reps R] [--no-app] [--out DIR]" >&2; exit 64 ;;
  esac
done
mkdir -p "$OUT"
rm -f "$OUT"/*.txt
log() { echo "run.sh: $*" >&2; }

log "building in $BUILD (Release, -j2)"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGCSNAP_BUILD_TESTS=OFF >"$OUT/cmake.log" 2>&1
targets=(gcsnap_bench)
[ "$APP" = 1 ] && targets+=(gcsnap_cli gcsnap_profiler)
cmake --build "$BUILD" -j2 --target "${targets[@]}" >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log" >&2; exit 1; }
BENCH=$BUILD/bench/gcsnap_bench

for n in $SIZES; do
  snap=$OUT/synth-$n.snap
  for r in $(seq 1 "$REPS"); do
    log "n=$n rep $r: write fg"
    "$BENCH" write "$n" "$snap" fg >"$OUT/$n.write_fg.$r.txt"
    log "n=$n rep $r: write bg"
    "$BENCH" write "$n" "$OUT/synth-$n-bg.snap" bg >"$OUT/$n.write_bg.$r.txt"
    rm -f "$OUT/synth-$n-bg.snap"
    log "n=$n rep $r: read, analyse, diff"
    "$BENCH" read "$snap" >"$OUT/$n.read.$r.txt"
    "$BENCH" analyse "$snap" >"$OUT/$n.analyse.$r.txt"
    "$BENCH" diff "$snap" >"$OUT/$n.diff.$r.txt"
  done
  rm -f "$snap"
done

if [ "$APP" = 1 ]; then
  log "building bench/gc_heavy_app"
  dotnet build "$ROOT/bench/gc_heavy_app/gc_heavy_app.csproj" -c Release -o "$OUT/app" >"$OUT/app-build.log" 2>&1 \
    || { tail -20 "$OUT/app-build.log" >&2; exit 1; }
  GCSNAP=$BUILD/bin/gcsnap
  export GCSNAP_SHIM=$BUILD/bin/libgcsnap_profiler.so
  [ -f "$GCSNAP_SHIM" ] || GCSNAP_SHIM=$(find "$BUILD" -name libgcsnap_profiler.so | head -1)
  for r in $(seq 1 "$REPS"); do
    for mode in off none default walk all; do
      log "app rep $r: $mode"
      # shellcheck disable=SC2086
      if [ "$mode" = off ]; then
        dotnet "$OUT/app/gc_heavy_app.dll" $APP_ARGS >"$OUT/app.$mode.$r.txt"
      else
        # walk: every GC walked by the runtime, nothing stored (the runtime's own walk cost).
        policy=$mode walk_only=0
        [ "$mode" = walk ] && policy=all walk_only=1
        GCSNAP_WALK_ONLY=$walk_only "$GCSNAP" record -o "$OUT/app-$mode.snap" --policy "$policy" -- \
          dotnet "$OUT/app/gc_heavy_app.dll" $APP_ARGS >"$OUT/app.$mode.$r.txt" 2>"$OUT/app.$mode.$r.err"
        echo "file_bytes $(stat -c %s "$OUT/app-$mode.snap")" >>"$OUT/app.$mode.$r.txt"
        "$BENCH" gctime "$OUT/app-$mode.snap" >>"$OUT/app.$mode.$r.txt"
        rm -f "$OUT/app-$mode.snap"
      fi
    done
  done
fi

python3 "$ROOT/bench/table.py" "$OUT" "$SIZES" "$REPS"
