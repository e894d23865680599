#!/usr/bin/env bash
# `gcsnap leaks` over a synthetic series of heap walks (gcsnap_bench series: churn and a planted
# leak) at each size: wall, user CPU and peak RSS (/usr/bin/time), first from the recording
# alone (--no-cache), then after `gcsnap index --all` from the indexes, and whether both
# answers are the same and name the planted leak. Prints one Markdown table. Only prints,
# asserts nothing.
#   bench/leaks.sh [--objects N[,N...] (default 1000000,10000000)] [--walks W (default 10)]
#                  [--quick: 1 M objects only] [--out DIR]
# Env: BUILD_DIR (an existing tree with bin/gcsnap and bench/gcsnap_bench; else a Release build).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
OUT=${TMPDIR:-/tmp}/gcsnap-leaks-bench
SIZES=1000000,10000000
WALKS=10
while [ $# -gt 0 ]; do
  case "$1" in
    --objects) SIZES=$2; shift 2 ;;
    --walks) WALKS=$2; shift 2 ;;
    --quick) SIZES=1000000; shift ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "usage: $0 [--objects N[,N...]] [--walks W] [--quick] [--out DIR]" >&2; exit 64 ;;
  esac
done
mkdir -p "$OUT"
log() { echo "leaks.sh: $*" >&2; }
[ -x /usr/bin/time ] || { echo "leaks.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }

source "$ROOT/bench/bench_build.sh"
bench_build_tools

# timed NAME ARGS...: run `gcsnap ARGS...` into $OUT/NAME.json; prints "wall user rss_mb".
timed() {
  local name=$1
  shift
  /usr/bin/time -f "%e %U %M" -o "$OUT/time.txt" "$GCSNAP" "$@" >"$OUT/$name.json" 2>"$OUT/$name.err" \
    || { log "gcsnap $* failed: $(tail -1 "$OUT/$name.err")"; }
  awk '{printf "%s %s %.0f\n", $1, $2, $3 / 1024}' "$OUT/time.txt"
}

echo "| objects per walk | walks | recording | leaks --no-cache: wall, user, peak RSS | index --all: wall | leaks from the indexes: wall, user, peak RSS | same answer | planted leak's rank |"
echo "|---|---|---|---|---|---|---|---|"
IFS=, read -r -a sizes <<<"$SIZES"
for N in "${sizes[@]}"; do
  SNAP=$OUT/series-$WALKS-$N.snap
  if [ ! -f "$SNAP" ]; then
    log "writing $SNAP ($WALKS walks of $N objects)"
    "$BUILD/bench/gcsnap_bench" series "$WALKS" "$N" "$SNAP" >/dev/null
  fi
  rm -f "$SNAP".*.gcidx
  cat "$SNAP" >/dev/null  # into the page cache
  log "leaks --no-cache, $N objects"
  read -r w0 u0 m0 < <(timed cold-$N leaks "$SNAP" --format json --no-cache)
  log "index --all, $N objects"
  read -r wi _ _ < <(timed index-$N index "$SNAP" --all --format json)
  log "leaks from the indexes, $N objects"
  read -r w1 u1 m1 < <(timed warm-$N leaks "$SNAP" --format json)
  same=no
  cmp -s "$OUT/cold-$N.json" "$OUT/warm-$N.json" && same=yes
  rank=$(grep -o '"rank": [0-9]*, "type": "App.Leak.RequestEntry"' "$OUT/warm-$N.json" | head -1 | grep -o '[0-9]\+' || true)
  echo "| $N | $WALKS | $(( $(stat -c %s "$SNAP") / 1048576 )) MiB | ${w0} s, ${u0} s, ${m0} MiB | ${wi} s | ${w1} s, ${u1} s, ${m1} MiB | $same | ${rank:-not found} |"
  rm -f "$SNAP".*.gcidx
done
echo
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
