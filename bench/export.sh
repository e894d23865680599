#!/usr/bin/env bash
# The Parquet and pprof exports against `types --no-cache` on the synthetic recording
# (gcsnap_bench write N: two GCs with a heap walk each), each run from the shell with the file
# in the page cache, measured by /usr/bin/time (wall, peak RSS). The Parquet export reads both
# walks (and verifies every GC first, and finds the leak suspects); types and pprof read one.
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
rm -f "$SNAP".*.gcidx
cat "$SNAP" >/dev/null  # into the page cache

# measure ARGS...: the median of REPS runs of `gcsnap ARGS...` -> "wall rss_kb"
measure() {
  local walls=() rss=()
  for _ in $(seq 1 "$REPS"); do
    rm -rf "$OUT/parquet" "$OUT/profile.pb.gz"
    /usr/bin/time -f "%e %M" -o "$OUT/time.txt" "$GCSNAP" "$@" >"$OUT/stdout.txt" 2>"$OUT/stderr.txt" ||
      { cat "$OUT/stderr.txt" >&2; exit 1; }
    read -r w m <"$OUT/time.txt"
    walls+=("$w")
    rss+=("$m")
  done
  local mid=$(( (REPS + 1) / 2 ))
  echo "$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "${mid}p") $(printf '%s\n' "${rss[@]}" | sort -n | sed -n "${mid}p")"
}

objects=$("$GCSNAP" info "$SNAP" --format csv | awk -F, 'NR>3 && $10 != "" {s += $10} END {print s}')
log "types --no-cache (last GC)"
read -r types_w types_m <<<"$(measure types "$SNAP" --no-cache --top 10)"
log "export --to pprof (last GC)"
read -r pprof_w pprof_m <<<"$(measure export "$SNAP" --to pprof -o "$OUT/profile.pb.gz")"
pprof_bytes=$(stat -c %s "$OUT/profile.pb.gz")
log "export --to parquet, no suspects table (every GC)"
read -r nosus_w nosus_m <<<"$(measure export "$SNAP" --to parquet -o "$OUT/parquet" --tables gcs,objects,references,roots,types)"
log "export --to parquet (every GC)"
read -r parquet_w parquet_m <<<"$(measure export "$SNAP" --to parquet -o "$OUT/parquet")"
parquet_bytes=$(du -sb "$OUT/parquet" | cut -f1)
objects_bytes=$(du -sb "$OUT/parquet/table=objects" | cut -f1)
snap_bytes=$(stat -c %s "$SNAP")

echo "| command ($N objects per walk, 2 walks) | wall (s) | peak RSS (MiB) | output |"
echo "| --- | ---: | ---: | --- |"
printf '| types --no-cache (one walk) | %s | %d | |\n' "$types_w" $((types_m / 1024))
printf '| export --to pprof (one walk) | %s | %d | %s bytes |\n' "$pprof_w" $((pprof_m / 1024)) "$pprof_bytes"
printf '| export --to parquet --tables (all but suspects, both walks) | %s | %d | |\n' "$nosus_w" $((nosus_m / 1024))
printf '| export --to parquet (every table, both walks) | %s | %d | %s bytes |\n' "$parquet_w" $((parquet_m / 1024)) "$parquet_bytes"
echo
awk -v p="$parquet_bytes" -v o="$objects_bytes" -v s="$snap_bytes" -v n="$objects" -v tw="$types_w" -v pw="$parquet_w" \
    -v nw="$nosus_w" 'BEGIN {
  printf "Parquet: %.1f bytes per object in all tables (%.1f in objects), the recording %.1f (%d objects walked).\n", p / n, o / n, s / n, n
  printf "Parquet export per walk: %.2fx the time of types --no-cache (%.2fx without the suspects table).\n", pw / 2 / tw, nw / 2 / tw
}'
echo "Load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores."
