#!/usr/bin/env bash
# `gcsnap dominators --by type` (its HELD BY table) and the index build that feeds it, before
# and after a change, paired in one run: the synthetic recording (gcsnap_bench write N, two
# GCs) is copied once per binary, so that each binary reads the index it built itself (an
# index of another minor version would be rebuilt). Each figure is the median of REPS runs,
# the two binaries taking turns; the outputs of the two binaries are compared with cmp. Only
# prints, asserts nothing.
#   bench/dominators_types.sh --before OLD_GCSNAP --after NEW_GCSNAP [--bench GCSNAP_BENCH]
#                             [--objects N[,N...] (default 10000000,50000000)] [--reps R (default 3)]
#                             [--build-reps R (default: --reps)] [--out DIR]
# Env: BENCH_LOCK=FILE holds `flock FILE` around each write and each measured command.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${TMPDIR:-/tmp}/gcsnap-dominators-bench
SIZES=10000000,50000000
REPS=3
BUILD_REPS=
BEFORE= AFTER= BENCH=$ROOT/build/bench/gcsnap_bench
while [ $# -gt 0 ]; do
  case "$1" in
    --before) BEFORE=$2; shift 2 ;;
    --after) AFTER=$2; shift 2 ;;
    --bench) BENCH=$2; shift 2 ;;
    --objects) SIZES=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --build-reps) BUILD_REPS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "usage: $0 --before GCSNAP --after GCSNAP [--bench GCSNAP_BENCH] [--objects N,...] [--reps R] [--out DIR]" >&2
       exit 64 ;;
  esac
done
[ -x "$BEFORE" ] && [ -x "$AFTER" ] && [ -x "$BENCH" ] || { echo "dominators_types.sh: --before, --after and --bench must be executables" >&2; exit 64; }
[ -x /usr/bin/time ] || { echo "dominators_types.sh: /usr/bin/time is missing" >&2; exit 2; }
LOCK=()
[ -z "${BENCH_LOCK:-}" ] || LOCK=(flock "$BENCH_LOCK")
mkdir -p "$OUT"
log() { echo "dominators_types.sh: $*" >&2; }

# timed NAME CMD...: run CMD under /usr/bin/time (stdout to $OUT/NAME.out); print "wall cpu rss_mb".
timed() {
  local name=$1; shift
  "${LOCK[@]}" /usr/bin/time -f "%e %U %S %M" -o "$OUT/time.txt" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" ||
    { log "$* failed: $(cat "$OUT/$name.err")"; exit 1; }
  awk '{ printf "%s %.2f %.0f\n", $1, $2 + $3, $4 / 1024 }' "$OUT/time.txt"
}

# median FILE COLUMN: the median of a column of numbers.
median() { awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '| objects per GC | figure | before: wall, CPU, peak RSS | after: wall, CPU, peak RSS | CPU after / before |\n'
printf '|---|---|---|---|---|\n'
IFS=, read -ra sizes <<<"$SIZES"
for N in "${sizes[@]}"; do
  base=$OUT/synth-$N.snap
  if [ ! -f "$base" ]; then
    log "writing $base ($N objects, 2 GCs)"
    "${LOCK[@]}" "$BENCH" write "$N" "$base" fg >/dev/null
  fi
  mkdir -p "$OUT/before" "$OUT/after"
  for side in before after; do
    rm -f "$OUT/$side"/synth-"$N".snap*
    cp -p "$base" "$OUT/$side/synth-$N.snap"  # same size and mtime: the same GC identity
  done
  : >"$OUT/build-before.txt"; : >"$OUT/build-after.txt"; : >"$OUT/dom-before.txt"; : >"$OUT/dom-after.txt"
  for rep in $(seq 1 "${BUILD_REPS:-$REPS}"); do
    for side in before after; do
      bin=$BEFORE; [ "$side" = after ] && bin=$AFTER
      snap=$OUT/$side/synth-$N.snap
      rm -f "$snap".*.gcidx
      log "$N: $side index --all ($rep/${BUILD_REPS:-$REPS})"
      timed "index-$side" "$bin" index "$snap" --all >>"$OUT/build-$side.txt"
    done
  done
  for rep in $(seq 1 "$REPS"); do
    for side in before after; do
      bin=$BEFORE; [ "$side" = after ] && bin=$AFTER
      log "$N: $side dominators --by type ($rep/$REPS)"
      timed "dom-$side" "$bin" dominators "$OUT/$side/synth-$N.snap" --by type >>"$OUT/dom-$side.txt"
    done
  done
  same=differ
  cmp -s "$OUT/dom-before.out" "$OUT/dom-after.out" && same="identical ($(wc -l <"$OUT/dom-after.out") lines)"
  for side in before after; do
    bin=$BEFORE; [ "$side" = after ] && bin=$AFTER
    "$bin" dominators "$OUT/$side/synth-$N.snap" --by type --format csv >"$OUT/csv-$side.out"
  done
  csv=differ
  cmp -s "$OUT/csv-before.out" "$OUT/csv-after.out" && csv=identical
  for what in build dom; do
    label="\`index --all\` (both GCs)"; [ "$what" = dom ] && label="\`dominators --by type\`"
    b="$(median "$OUT/$what-before.txt" 1) s, $(median "$OUT/$what-before.txt" 2) s, $(median "$OUT/$what-before.txt" 3) MB"
    a="$(median "$OUT/$what-after.txt" 1) s, $(median "$OUT/$what-after.txt" 2) s, $(median "$OUT/$what-after.txt" 3) MB"
    ratio=$(awk -v x="$(median "$OUT/$what-after.txt" 2)" -v y="$(median "$OUT/$what-before.txt" 2)" 'BEGIN { printf "%.2fx", (y > 0 ? x / y : 0) }')
    printf '| %s | %s | %s | %s | %s |\n' "$N" "$label" "$b" "$a" "$ratio"
  done
  printf '| %s | outputs (cmp) | table: %s | csv: %s | |\n' "$N" "$same" "$csv"
done
echo
echo "medians of $REPS (index builds: ${BUILD_REPS:-$REPS}), the binaries taking turns; load: $(uptime | sed 's/.*load average/load average/')"
