#!/usr/bin/env bash
# Issue 16: the commands of the issue's table on the synthetic recording (gcsnap_bench write N,
# two GCs), each run cold from the shell with the file in the page cache, measured by
# /usr/bin/time (wall, peak RSS): first from the recording alone (--no-cache, what every
# command did before the index), then after `gcsnap index --all`, from the index. Also the
# index's build time, peak RSS and size per object. Prints one Markdown table; only prints,
# asserts nothing.
#   bench/index.sh [--objects N (default 10000000)] [--reps R (default 1)] [--out DIR]
# Env: BUILD_DIR (an existing Release tree with bin/gcsnap and bench/gcsnap_bench).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
OUT=${TMPDIR:-/tmp}/gcsnap-index-bench
N=10000000
REPS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --objects) N=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "usage: $0 [--objects N] [--reps R] [--out DIR]" >&2; exit 64 ;;
  esac
done
mkdir -p "$OUT"
log() { echo "index.sh: $*" >&2; }
[ -x /usr/bin/time ] || { echo "index.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }

source "$ROOT/bench/bench_build.sh"
bench_build_tools
SNAP=$OUT/synth-$N.snap
if [ ! -f "$SNAP" ]; then
  log "writing $SNAP ($N objects, 2 GCs)"
  "$BUILD/bench/gcsnap_bench" write "$N" "$SNAP" fg >/dev/null
fi
rm -f "$SNAP".*.gcidx
cat "$SNAP" >/dev/null  # into the page cache

# measure NAME ARGS...: the median of REPS runs of `gcsnap ARGS...` -> "wall rss_kb"
# (with BEFORE_EACH set, that command runs before each of them, untimed)
BEFORE_EACH=
measure() {
  local walls=() rss=()
  for _ in $(seq 1 "$REPS"); do
    [ -z "$BEFORE_EACH" ] || eval "$BEFORE_EACH"
    /usr/bin/time -f "%e %M" -o "$OUT/time.txt" "$GCSNAP" "$@" >"$OUT/stdout.txt" 2>"$OUT/stderr.txt" || true
    read -r w m <"$OUT/time.txt"
    walls+=("$w")
    rss+=("$m")
  done
  local mid=$(( (REPS + 1) / 2 ))
  echo "$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "${mid}p") $(printf '%s\n' "${rss[@]}" | sort -n | sed -n "${mid}p")"
}

log "building the index once to find an address and a type to ask about"
"$GCSNAP" index "$SNAP" --all >/dev/null
ADDR=$("$GCSNAP" dominators "$SNAP" --top 50 --format csv | awk -F, 'NR==51 {print $2}')
TYPE=$("$GCSNAP" types "$SNAP" --top 40 --format csv | awk -F, 'NR==41 {print $1}')
rm -f "$SNAP".*.gcidx
log "address $ADDR, type $TYPE"

commands=(
  "info|info $SNAP"
  "where ADDR|where $SNAP $ADDR"
  "roots --kind handle|roots $SNAP --kind handle"
  "path ADDR|path $SNAP $ADDR"
  "verify|verify $SNAP"
  "path --type T --limit 1|path $SNAP --type $TYPE --limit 1"
  "diff --from 1 --to 2|diff $SNAP --from 1 --to 2"
  "dominators --top 10|dominators $SNAP --top 10"
  "types --top 10|types $SNAP --top 10"
)
index_aware=" types dominators path "

before_w=() before_m=() after_w=() after_m=()
for i in "${!commands[@]}"; do
  entry=${commands[$i]}
  read -r -a args <<<"${entry#*|}"
  extra=()
  [[ $index_aware == *" ${args[0]} "* ]] && extra=(--no-cache)
  log "without index: ${entry%%|*}"
  read -r before_w[i] before_m[i] < <(measure "${args[@]}" "${extra[@]}")
done

log "gcsnap index --all"
# Each run builds from nothing (a second run would find the indexes up to date).
BEFORE_EACH='rm -f "$SNAP".*.gcidx'
read -r build_w build_m < <(measure index "$SNAP" --all)
BEFORE_EACH=
index_bytes=$(cat "$SNAP".*.gcidx | wc -c)
# The index command's own table (now "up to date"): objects of both GCs.
objects=$("$GCSNAP" index "$SNAP" --all --format csv | awk -F, 'NR>1 {n += $2} END {print n+0}')
for i in "${!commands[@]}"; do
  entry=${commands[$i]}
  read -r -a args <<<"${entry#*|}"
  log "with index: ${entry%%|*}"
  read -r after_w[i] after_m[i] < <(measure "${args[@]}")
done

load=$(cut -d' ' -f1-3 /proc/loadavg)
echo
echo "## gcsnap analysis index, $N objects per GC (2 GCs), median of $REPS, load average $load"
echo
echo "| command | without index: wall | peak RSS | with index: wall | peak RSS | B/object (RSS / objects of one GC) |"
echo "|---|---|---|---|---|---|"
for i in "${!commands[@]}"; do
  name=${commands[$i]%%|*}
  awk -v n="$name" -v bw="${before_w[i]}" -v bm="${before_m[i]}" -v aw="${after_w[i]}" -v am="${after_m[i]}" -v N="$N" \
    'BEGIN { printf "| `%s` | %.2f s | %.0f MB | %.2f s | %.0f MB | %.0f |\n", n, bw, bm/1024, aw, am/1024, am*1024/N }'
done
awk -v w="$build_w" -v m="$build_m" -v b="$index_bytes" -v o="$objects" \
  'BEGIN { printf "\n`gcsnap index --all` (both GCs, %d objects): %.2f s, peak RSS %.0f MB; index files %.0f MB = %.1f B per object\n", o, w, m/1024, b/1e6, b/o }'
for i in "${!commands[@]}"; do
  [[ ${commands[$i]%%|*} == "types --top 10" ]] && types_w=${before_w[i]}
done
awk -v w="$build_w" -v t="$types_w" \
  'BEGIN { printf "index build per GC %.2f s = %.2fx `types --no-cache` (%.2f s)\n", w / 2, w / 2 / t, t }'
echo "(info does not use the index: its two columns measure the same thing; where, roots, verify and diff use it when it exists, never build it, verify only while its block hash matches; diff's memory target is per object of both GCs: half its B/object column)"
