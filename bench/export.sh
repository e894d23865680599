#!/usr/bin/env bash
# The Parquet and pprof exports against `types --no-cache` on the synthetic recording
# (gcsnap_bench write N: two GCs with a heap walk each), each run from the shell with the file
# in the page cache, measured by /usr/bin/time (wall, user+sys CPU, peak RSS). The Parquet
# export reads both walks (and verifies every GC first); types and pprof read one. The Parquet
# rows: with no analysis index (every walk decoded whole), `gcsnap index --all` (building the
# indexes), with the indexes there (the objects and references streamed from them piece by
# piece) and with --suspects.
# Also the Parquet bytes per object against the recording's. Prints one Markdown table; only
# prints, asserts nothing.
#   bench/export.sh [--objects N (default 10000000)] [--reps R (default 1)] [--out DIR]
# Env: BUILD_DIR (an existing tree with bin/gcsnap and bench/gcsnap_bench).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
OUT=${TMPDIR:-/tmp}/gcsnap-export-bench
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
log() { echo "export.sh: $*" >&2; }
[ -x /usr/bin/time ] || { echo "export.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }

source "$ROOT/bench/bench_build.sh"
bench_build_tools
SNAP=$OUT/synth-$N.snap
if [ ! -f "$SNAP" ]; then
  log "writing $SNAP ($N objects, 2 GCs)"
  "$BUILD/bench/gcsnap_bench" write "$N" "$SNAP" fg >/dev/null
fi
cat "$SNAP" >/dev/null  # into the page cache

# measure [--keep-index] ARGS...: the median of REPS runs of `gcsnap ARGS...` -> "wall cpu rss_kb"
# (each run starts without analysis indexes unless --keep-index)
measure() {
  local keep=0 walls=() cpus=() rss=()
  if [ "$1" = --keep-index ]; then keep=1; shift; fi
  for _ in $(seq 1 "$REPS"); do
    rm -rf "$OUT/parquet" "$OUT/profile.pb.gz"
    [ $keep = 1 ] || rm -f "$SNAP".*.gcidx
    /usr/bin/time -f "%e %U %S %M" -o "$OUT/time.txt" "$GCSNAP" "$@" >"$OUT/stdout.txt" 2>"$OUT/stderr.txt" ||
      { cat "$OUT/stderr.txt" >&2; exit 1; }
    read -r w u s m <"$OUT/time.txt"
    walls+=("$w")
    cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')")
    rss+=("$m")
  done
  local mid=$(( (REPS + 1) / 2 ))
  med() { printf '%s\n' "$@" | sort -n | sed -n "${mid}p"; }
  echo "$(med "${walls[@]}") $(med "${cpus[@]}") $(med "${rss[@]}")"
}

objects=$("$GCSNAP" info "$SNAP" --format csv | awk -F, 'NR>3 && $10 != "" {s += $10} END {print s}')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "types --no-cache (last GC)"
read -r types_w types_c types_m <<<"$(measure types "$SNAP" --no-cache --top 10)"
log "export --to pprof (last GC)"
read -r pprof_w pprof_c pprof_m <<<"$(measure export "$SNAP" --to pprof -o "$OUT/profile.pb.gz")"
pprof_bytes=$(stat -c %s "$OUT/profile.pb.gz")
log "export --to parquet, no index (every GC)"
read -r build_w build_c build_m <<<"$(measure export "$SNAP" --to parquet -o "$OUT/parquet")"
parquet_bytes=$(du -sb "$OUT/parquet" | cut -f1)
objects_bytes=$(du -sb "$OUT/parquet/table=objects" | cut -f1)
log "index --all"
read -r index_w index_c index_m <<<"$(measure index "$SNAP" --all)"
log "export --to parquet, indexes there (every GC)"
"$GCSNAP" index "$SNAP" --all >/dev/null
read -r kept_w kept_c kept_m <<<"$(measure --keep-index export "$SNAP" --to parquet -o "$OUT/parquet")"
log "export --to parquet --suspects (every GC)"
read -r sus_w sus_c sus_m <<<"$(measure export "$SNAP" --to parquet --suspects -o "$OUT/parquet")"
snap_bytes=$(stat -c %s "$SNAP")
rm -f "$SNAP".*.gcidx

row() { printf '| %s | %s | %s | %d | %s |\n' "$1" "$2" "$3" $(($4 / 1024)) "$5"; }
echo "| command ($N objects per walk, 2 walks) | wall (s) | CPU (s) | peak RSS (MiB) | output |"
echo "| --- | ---: | ---: | ---: | --- |"
row 'types --no-cache (one walk)' "$types_w" "$types_c" "$types_m" ''
row 'export --to pprof (one walk)' "$pprof_w" "$pprof_c" "$pprof_m" "$pprof_bytes bytes"
row 'export --to parquet, no index (both walks)' "$build_w" "$build_c" "$build_m" "$parquet_bytes bytes"
row 'index --all (both walks)' "$index_w" "$index_c" "$index_m" ''
row 'export --to parquet, indexes there (both walks)' "$kept_w" "$kept_c" "$kept_m" ''
row 'export --to parquet --suspects, no index (both walks)' "$sus_w" "$sus_c" "$sus_m" ''
echo
awk -v p="$parquet_bytes" -v o="$objects_bytes" -v s="$snap_bytes" -v n="$objects" 'BEGIN {
  printf "Parquet: %.1f bytes per object in all tables (%.1f in objects), the recording %.1f (%d objects walked).\n", p / n, o / n, s / n, n
}'
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", a / 2 / b}'; }
echo "Parquet export per walk against types --no-cache, wall (CPU): no index $(ratio "$build_w" "$types_w") ($(ratio "$build_c" "$types_c")), indexes there $(ratio "$kept_w" "$types_w") ($(ratio "$kept_c" "$types_c")), --suspects $(ratio "$sus_w" "$types_w") ($(ratio "$sus_c" "$types_c"))."
echo "Load average before: $load_before; after: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores."
