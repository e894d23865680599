#!/usr/bin/env bash
# The commands that answer from the analysis index on the synthetic recording (gcsnap_bench
# write N, two GCs), each run cold from the shell with the file in the page cache, measured by
# /usr/bin/time (wall, CPU = user + sys, peak RSS): first `gcsnap index --all` (its build time,
# peak RSS and size per object), then each command from the index, then with the index moved
# aside from the recording alone (--no-cache, what every command did before the index: the
# peers). Prints one Markdown table per size and, given several sizes, how each figure from
# the index grows from each size to the next, beside the ratio of the object counts. Only
# prints, asserts nothing.
#   bench/index.sh [--objects N[,N...] (default 10000000)] [--reps R (default 1)] [--out DIR]
#                  [--quick: from the recording alone only `types --no-cache`, the build's peer]
#                  [--peers-upto N: above N objects per GC, as --quick]
#                  [--mem-limit MB (default: 80 % of MemAvailable when the command starts)]
# Large sizes: a command whose peak RSS, scaled from its B/object at the largest size measured
# before in the same run, would pass the memory limit is not run and its cell says "skipped";
# the first size has nothing to scale from and runs everything.
# Env: BUILD_DIR (an existing Release tree with bin/gcsnap and bench/gcsnap_bench);
#      BENCH_LOCK=FILE holds `flock FILE` around each write and each measured command only,
#      so that other memory-heavy jobs on a shared machine interleave with this one.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
OUT=${TMPDIR:-/tmp}/gcsnap-index-bench
SIZES=10000000
REPS=1
QUICK=0
PEERS_UPTO=
MEM_LIMIT=
while [ $# -gt 0 ]; do
  case "$1" in
    --objects) SIZES=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --peers-upto) PEERS_UPTO=$2; shift 2 ;;
    --mem-limit) MEM_LIMIT=$2; shift 2 ;;
    *) echo "usage: $0 [--objects N[,N...]] [--reps R] [--out DIR] [--quick] [--peers-upto N] [--mem-limit MB]" >&2; exit 64 ;;
  esac
done
mkdir -p "$OUT"
log() { echo "index.sh: $*" >&2; }
[ -x /usr/bin/time ] || { echo "index.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
LOCK=()
[ -z "${BENCH_LOCK:-}" ] || LOCK=(flock "$BENCH_LOCK")

source "$ROOT/bench/bench_build.sh"
bench_build_tools

# mem_limit_kb: the memory a command may be expected to take, in KiB.
mem_limit_kb() {
  if [ -n "$MEM_LIMIT" ]; then echo $((MEM_LIMIT * 1024)); return; fi
  awk '/^MemAvailable:/ { printf "%d\n", $2 * 0.8 }' /proc/meminfo
}

# measure ARGS...: the medians of REPS runs of `gcsnap ARGS...` -> "wall rss_kb cpu"
# (with BEFORE_EACH set, that command runs before each of them, untimed)
BEFORE_EACH=
measure() {
  local walls=() rss=() cpus=()
  for _ in $(seq 1 "$REPS"); do
    [ -z "$BEFORE_EACH" ] || eval "$BEFORE_EACH"
    "${LOCK[@]}" /usr/bin/time -f "%e %M %U %S" -o "$OUT/time.txt" "$GCSNAP" "$@" >"$OUT/stdout.txt" 2>"$OUT/stderr.txt" || true
    read -r w m u s <"$OUT/time.txt"
    walls+=("$w")
    rss+=("$m")
    cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')")
  done
  local mid=$(( (REPS + 1) / 2 ))
  echo "$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "${mid}p") $(printf '%s\n' "${rss[@]}" | sort -n | sed -n "${mid}p") $(printf '%s\n' "${cpus[@]}" | sort -n | sed -n "${mid}p")"
}

declare -A GROWTH  # "N,command" -> "wall rss_kb cpu" from the index; "N,bytes" -> "index_bytes objects"
declare -A PEAK    # "from,command" / "peer,command" -> B/object (RSS / N) at the largest size so far
commands=()

# fits KEY N: whether the command KEY, scaled from its B/object so far, fits the memory limit
# at N objects per GC; says why not on stderr and prints the expected MB.
fits() {
  local per=${PEAK[$1]:-} limit
  [ -n "$per" ] || return 0
  limit=$(mem_limit_kb)
  awk -v p="$per" -v n="$2" -v l="$limit" 'BEGIN { exit !(p * n / 1024 > l) }' || return 0
  log "skipping ${1#*,} (${1%%,*}): $(awk -v p="$per" -v n="$2" 'BEGIN { printf "%.0f", p * n / 1048576 }') MB expected, limit $((limit / 1024)) MB"
  return 1
}

# run_size N: the table for N objects per GC; its figures from the index into GROWTH.
run_size() {
  local N=$1
  SNAP=$OUT/synth-$N.snap
  if [ ! -f "$SNAP" ]; then
    log "writing $SNAP ($N objects, 2 GCs)"
    "${LOCK[@]}" "$BUILD/bench/gcsnap_bench" write "$N" "$SNAP" fg >/dev/null
  fi
  rm -f "$SNAP".*.gcidx
  cat "$SNAP" >/dev/null  # into the page cache

  log "gcsnap index --all"
  # Each run builds from nothing (a second run would find the indexes up to date).
  BEFORE_EACH='rm -f "$SNAP".*.gcidx'
  local build_w build_m build_c
  read -r build_w build_m build_c < <(measure index "$SNAP" --all)
  BEFORE_EACH=
  local index_bytes objects
  index_bytes=$(cat "$SNAP".*.gcidx | wc -c)
  # Objects of both GCs, from info's GC table (`index --all` on an index up to date checks
  # every array: about 90 B per object).
  objects=$("$GCSNAP" info "$SNAP" --format csv |
    awk -F, '$1 == "gc" && $2 == "generation" { for (i = 1; i <= NF; i++) if ($i == "objects") c = i; next }
             c && NF > 1 { n += $c } !NF { c = 0 } END { print n + 0 }')
  [ "$objects" -gt 0 ] || { log "the index of $SNAP was not built: $(cat "$OUT/stderr.txt")"; exit 1; }

  log "finding an address and a type to ask about, from the index"
  ADDR=$("${LOCK[@]}" "$GCSNAP" dominators "$SNAP" --top 50 --format csv | awk -F, 'NR==51 {print $2}')
  TYPE=$("$GCSNAP" types "$SNAP" --top 40 --format csv | awk -F, 'NR==41 {print $1}')
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
    "dominators --by type|dominators $SNAP --by type"
    "types --top 10|types $SNAP --top 10"
  )
  local index_aware=" types dominators path "
  local before_w=() before_m=() before_c=() after_w=() after_m=() after_c=() i entry args extra name
  for i in "${!commands[@]}"; do
    entry=${commands[$i]}
    name=${entry%%|*}
    read -r -a args <<<"${entry#*|}"
    after_w[i]=0 after_m[i]=0 after_c[i]=0
    fits "from,$name" "$N" || continue
    log "with index: $name"
    read -r after_w[i] after_m[i] after_c[i] < <(measure "${args[@]}")
  done

  # The peers: the recording alone, the index moved aside (where, roots, verify and diff use
  # an index whenever it is there).
  mkdir -p "$OUT/aside"
  mv "$SNAP".*.gcidx "$OUT/aside/"
  local quick=$QUICK
  [ -z "$PEERS_UPTO" ] || [ "$N" -le "$PEERS_UPTO" ] || quick=1
  for i in "${!commands[@]}"; do
    entry=${commands[$i]}
    name=${entry%%|*}
    read -r -a args <<<"${entry#*|}"
    extra=()
    [[ $index_aware == *" ${args[0]} "* ]] && extra=(--no-cache)
    before_w[i]=0 before_m[i]=0 before_c[i]=0
    [ "$quick" = 1 ] && [ "${args[0]}" != types ] && continue
    if ! fits "peer,$name" "$N"; then before_m[i]=-1; continue; fi
    log "without index: $name"
    read -r before_w[i] before_m[i] before_c[i] < <(measure "${args[@]}" "${extra[@]}")
  done
  mv "$OUT"/aside/"$(basename "$SNAP")".*.gcidx "$(dirname "$SNAP")/"

  local load
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  echo
  echo "## gcsnap analysis index, $N objects per GC (2 GCs), median of $REPS, load average $load"
  echo
  echo "| command | without index: wall | peak RSS | with index: wall | CPU | peak RSS | B/object (RSS / objects of one GC) |"
  echo "|---|---|---|---|---|---|---|"
  local types_w=0 types_c=0 diff_w=0 diff_c=0
  for i in "${!commands[@]}"; do
    name=${commands[$i]%%|*}
    awk -v n="$name" -v bw="${before_w[i]}" -v bm="${before_m[i]}" -v aw="${after_w[i]}" -v am="${after_m[i]}" \
        -v ac="${after_c[i]}" -v N="$N" \
      'BEGIN { if (bm == 0) b = "| - | -"; else if (bm < 0) b = "| skipped | -"; else b = sprintf("| %.2f s | %.0f MB", bw, bm/1024)
               if (am == 0) a = "| skipped | - | - | -"
               else a = sprintf("| %.2f s | %.2f s | %.0f MB | %.0f", aw, ac, am/1024, am*1024/N)
               printf "| `%s` %s %s |\n", n, b, a }'
    [[ $name == "types --top 10" ]] && types_w=${before_w[i]} types_c=${before_c[i]}
    [[ $name == "diff --from 1 --to 2" ]] && diff_w=${after_w[i]} diff_c=${after_c[i]}
    GROWTH["$N,$name"]="${after_w[i]} ${after_m[i]} ${after_c[i]}"
    [ "${after_m[i]}" = 0 ] || PEAK["from,$name"]=$(awk -v m="${after_m[i]}" -v n="$N" 'BEGIN { print m / n }')
    [ "${before_m[i]}" -le 0 ] || PEAK["peer,$name"]=$(awk -v m="${before_m[i]}" -v n="$N" 'BEGIN { print m / n }')
  done
  GROWTH["$N,index --all"]="$build_w $build_m $build_c"
  GROWTH["$N,bytes"]="$index_bytes $objects"
  awk -v w="$build_w" -v m="$build_m" -v c="$build_c" -v b="$index_bytes" -v o="$objects" \
    'BEGIN { printf "\n`gcsnap index --all` (both GCs, %d objects): %.2f s (CPU %.2f s), peak RSS %.0f MB = %.0f B per object of one GC; index files %.0f MB = %.1f B per object\n", o, w, c, m/1024, m*1024/(o/2), b/1e6, b/o }'
  if awk -v t="$types_w" 'BEGIN { exit !(t > 0) }'; then
    awk -v w="$build_w" -v t="$types_w" -v c="$build_c" -v tc="$types_c" \
      'BEGIN { printf "index build per GC %.2f s = %.2fx `types --no-cache` (%.2f s); by CPU %.2f s = %.2fx (%.2f s)\n", w / 2, w / 2 / t, t, c / 2, (tc > 0 ? c / 2 / tc : 0), tc }'
    awk -v w="$diff_w" -v t="$types_w" -v c="$diff_c" -v tc="$types_c" \
      'BEGIN { if (w > 0) printf "diff from the indexes %.2f s = %.3fx `types --no-cache`; by CPU %.2f s = %.3fx (target 0.06x)\n", w, w / t, c, (tc > 0 ? c / tc : 0) }'
  else
    echo "index build per GC $(awk -v w="$build_w" 'BEGIN { printf "%.2f", w / 2 }') s (\`types --no-cache\` not run at this size)"
  fi
  echo "(info does not use the index: its two columns measure the same thing; where, roots, verify and diff use it when it exists, never build it, verify only while its block hash matches; diff's memory target is per object of both GCs: half its B/object column)"
}

IFS=, read -r -a sizes <<<"$SIZES"
for N in "${sizes[@]}"; do run_size "$N"; done
[ "${#sizes[@]}" -gt 1 ] || exit 0

# How each figure from the index grows from each size to the next.
names=()
for entry in "${commands[@]}"; do names+=("${entry%%|*}"); done
names+=("index --all")
prev=${sizes[0]}
for N in "${sizes[@]:1}"; do
  echo
  echo "## growth from $prev to $N objects per GC ($(awk -v a="$prev" -v b="$N" 'BEGIN { printf "%.1fx", b / a }') the objects), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| from the index | wall at $prev | wall at $N | ratio | peak RSS at $N | B/object at $N | CPU at $prev | CPU at $N | ratio |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for name in "${names[@]}"; do
    read -r w1 _ c1 <<<"${GROWTH[$prev,$name]}"
    read -r w2 m2 c2 <<<"${GROWTH[$N,$name]}"
    # diff holds both GCs; the build one at a time
    per=$N both=""
    [[ $name == "diff --from 1 --to 2" ]] && per=$((2 * N)) both=" (of both GCs)"
    awk -v n="$name" -v w1="$w1" -v w2="$w2" -v m2="$m2" -v c1="$c1" -v c2="$c2" -v per="$per" -v both="$both" \
      'BEGIN { if (m2 == 0) { printf "| `%s` | %.2f s | skipped | - | - | - | %.2f s | - | - |\n", n, w1, c1; exit }
               wr = w1 > 0 ? sprintf("%.2fx", w2 / w1) : "-"; cr = c1 > 0 ? sprintf("%.2fx", c2 / c1) : "-"
               printf "| `%s` | %.2f s | %.2f s | %s | %.0f MB | %.0f%s | %.2f s | %.2f s | %s |\n", n, w1, w2, wr, m2 / 1024, m2 * 1024 / per, both, c1, c2, cr }'
  done
  read -r b1 o1 <<<"${GROWTH[$prev,bytes]}"
  read -r b2 o2 <<<"${GROWTH[$N,bytes]}"
  awk -v b1="$b1" -v o1="$o1" -v b2="$b2" -v o2="$o2" \
    'BEGIN { printf "\nindex on disk: %.1f B/object at the smaller size, %.1f B/object at this one\n", b1 / o1, b2 / o2 }'
  prev=$N
done
