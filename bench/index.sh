#!/usr/bin/env bash
# The commands that answer from the analysis index on the synthetic recording (gcsnap_bench
# write N, two GCs), each run cold from the shell with the file in the page cache, measured by
# /usr/bin/time (wall, CPU = user + sys, peak RSS): first from the recording alone (--no-cache, what every
# command did before the index), then after `gcsnap index --all`, from the index. Also the
# index's build time, peak RSS and size per object. Prints one Markdown table per size and,
# given several sizes, how each figure from the index grows from the first size to each other
# one, beside the ratio of the object counts. Only prints, asserts nothing.
#   bench/index.sh [--objects N[,N...] (default 10000000)] [--reps R (default 1)] [--out DIR]
#                  [--quick: from the recording alone only `types --no-cache`, the build's peer]
# Env: BUILD_DIR (an existing Release tree with bin/gcsnap and bench/gcsnap_bench).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
OUT=${TMPDIR:-/tmp}/gcsnap-index-bench
SIZES=10000000
REPS=1
QUICK=0
while [ $# -gt 0 ]; do
  case "$1" in
    --objects) SIZES=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    *) echo "usage: $0 [--objects N[,N...]] [--reps R] [--out DIR] [--quick]" >&2; exit 64 ;;
  esac
done
mkdir -p "$OUT"
log() { echo "index.sh: $*" >&2; }
[ -x /usr/bin/time ] || { echo "index.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }

source "$ROOT/bench/bench_build.sh"
bench_build_tools

# measure NAME ARGS...: the medians of REPS runs of `gcsnap ARGS...` -> "wall rss_kb cpu"
# (with BEFORE_EACH set, that command runs before each of them, untimed)
BEFORE_EACH=
measure() {
  local walls=() rss=() cpus=()
  for _ in $(seq 1 "$REPS"); do
    [ -z "$BEFORE_EACH" ] || eval "$BEFORE_EACH"
    /usr/bin/time -f "%e %M %U %S" -o "$OUT/time.txt" "$GCSNAP" "$@" >"$OUT/stdout.txt" 2>"$OUT/stderr.txt" || true
    read -r w m u k <"$OUT/time.txt"
    walls+=("$w")
    rss+=("$m")
    cpus+=("$(awk -v u="$u" -v k="$k" 'BEGIN { printf "%.2f", u + k }')")
  done
  local mid=$(( (REPS + 1) / 2 ))
  echo "$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "${mid}p") $(printf '%s\n' "${rss[@]}" | sort -n | sed -n "${mid}p")" \
       "$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n "${mid}p")"
}

declare -A GROWTH  # "N,command" -> "wall rss_kb" from the index; "N,bytes" -> "index_bytes objects"
commands=()

# run_size N: the table for N objects per GC; its figures from the index into GROWTH.
run_size() {
  local N=$1
  SNAP=$OUT/synth-$N.snap
  if [ ! -f "$SNAP" ]; then
    log "writing $SNAP ($N objects, 2 GCs)"
    "$BUILD/bench/gcsnap_bench" write "$N" "$SNAP" fg >/dev/null
  fi
  rm -f "$SNAP".*.gcidx
  cat "$SNAP" >/dev/null  # into the page cache

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
  local index_aware=" types dominators path "
  local before_w=() before_m=() after_w=() after_m=() after_c=() i entry args extra
  for i in "${!commands[@]}"; do
    entry=${commands[$i]}
    read -r -a args <<<"${entry#*|}"
    extra=()
    [[ $index_aware == *" ${args[0]} "* ]] && extra=(--no-cache)
    if [ "$QUICK" = 1 ] && [ "${args[0]}" != types ]; then
      before_w[i]=0 before_m[i]=0
      continue
    fi
    log "without index: ${entry%%|*}"
    read -r before_w[i] before_m[i] _ < <(measure "${args[@]}" "${extra[@]}")
  done

  log "gcsnap index --all"
  # Each run builds from nothing (a second run would find the indexes up to date).
  BEFORE_EACH='rm -f "$SNAP".*.gcidx'
  local build_w build_m
  read -r build_w build_m _ < <(measure index "$SNAP" --all)
  BEFORE_EACH=
  local index_bytes objects
  index_bytes=$(cat "$SNAP".*.gcidx | wc -c)
  # The index command's own table (now "up to date"): objects of both GCs.
  objects=$("$GCSNAP" index "$SNAP" --all --format csv | awk -F, 'NR>1 {n += $2} END {print n+0}')
  for i in "${!commands[@]}"; do
    entry=${commands[$i]}
    read -r -a args <<<"${entry#*|}"
    log "with index: ${entry%%|*}"
    read -r after_w[i] after_m[i] after_c[i] < <(measure "${args[@]}")
  done

  local load
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  echo
  echo "## gcsnap analysis index, $N objects per GC (2 GCs), median of $REPS, load average $load"
  echo
  echo "| command | without index: wall | peak RSS | with index: wall | CPU | peak RSS | B/object (RSS / objects of one GC) |"
  echo "|---|---|---|---|---|---|---|"
  local name types_w=0
  for i in "${!commands[@]}"; do
    name=${commands[$i]%%|*}
    awk -v n="$name" -v bw="${before_w[i]}" -v bm="${before_m[i]}" -v aw="${after_w[i]}" -v am="${after_m[i]}" \
        -v ac="${after_c[i]}" -v N="$N" \
      'BEGIN { if (bm == 0) b = "| - | -"; else b = sprintf("| %.2f s | %.0f MB", bw, bm/1024)
               printf "| `%s` %s | %.2f s | %.2f s | %.0f MB | %.0f |\n", n, b, aw, ac, am/1024, am*1024/N }'
    [[ $name == "types --top 10" ]] && types_w=${before_w[i]}
    GROWTH["$N,$name"]="${after_w[i]} ${after_m[i]}"
  done
  GROWTH["$N,index --all"]="$build_w $build_m"
  GROWTH["$N,bytes"]="$index_bytes $objects"
  awk -v w="$build_w" -v m="$build_m" -v b="$index_bytes" -v o="$objects" \
    'BEGIN { printf "\n`gcsnap index --all` (both GCs, %d objects): %.2f s, peak RSS %.0f MB = %.0f B per object of one GC; index files %.0f MB = %.1f B per object\n", o, w, m/1024, m*1024/(o/2), b/1e6, b/o }'
  awk -v w="$build_w" -v t="$types_w" \
    'BEGIN { printf "index build per GC %.2f s = %.2fx `types --no-cache` (%.2f s)\n", w / 2, w / 2 / t, t }'
  echo "(info does not use the index: its two columns measure the same thing; where, roots, verify and diff use it when it exists, never build it, verify only while its block hash matches; diff's memory target is per object of both GCs: half its B/object column)"
}

IFS=, read -r -a sizes <<<"$SIZES"
for N in "${sizes[@]}"; do run_size "$N"; done
[ "${#sizes[@]}" -gt 1 ] || exit 0

# How each figure from the index grows from the first size to each other one.
first=${sizes[0]}
names=()
for entry in "${commands[@]}"; do names+=("${entry%%|*}"); done
names+=("index --all")
for N in "${sizes[@]:1}"; do
  echo
  echo "## growth from $first to $N objects per GC ($(awk -v a="$first" -v b="$N" 'BEGIN { printf "%.1fx", b / a }') the objects), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| from the index | wall at $first | wall at $N | ratio | peak RSS at $N | B/object at $N |"
  echo "|---|---|---|---|---|---|"
  for name in "${names[@]}"; do
    read -r w1 _ <<<"${GROWTH[$first,$name]}"
    read -r w2 m2 <<<"${GROWTH[$N,$name]}"
    # diff holds both GCs; the build one at a time
    per=$N both=""
    [[ $name == "diff --from 1 --to 2" ]] && per=$((2 * N)) both=" (of both GCs)"
    awk -v n="$name" -v w1="$w1" -v w2="$w2" -v m2="$m2" -v per="$per" -v both="$both" \
      'BEGIN { printf "| `%s` | %.2f s | %.2f s | %.2fx | %.0f MB | %.0f%s |\n", n, w1, w2, (w1 > 0 ? w2 / w1 : 0), m2 / 1024, m2 * 1024 / per, both }'
  done
  read -r b1 o1 <<<"${GROWTH[$first,bytes]}"
  read -r b2 o2 <<<"${GROWTH[$N,bytes]}"
  awk -v b1="$b1" -v o1="$o1" -v b2="$b2" -v o2="$o2" \
    'BEGIN { printf "\nindex on disk: %.1f B/object at the first size, %.1f B/object at this one\n", b1 / o1, b2 / o2 }'
done
