#!/usr/bin/env bash
# Issue 11: what `gcsnap record --policy none` (ranges and roots at every GC, no heap walk) costs
# an allocation-heavy app. Runs bench/gc_heavy_app without a profiler and under
# `record --policy none`, interleaved, REPS times each, and prints the medians of the app's own
# wall time (Main, startup excluded), its GC pause (GC.GetTotalPauseDuration) and the ratios;
# judges "wall <= 1.1x no profiler".
#   bench/none_cost.sh [--reps 5] [--out DIR]
# Env: BUILD_DIR (default build-bench; Release), APP_ARGS (default "30 200000 300000"),
# EXTRA_ROWS="name:ENV=VALUE ..." (more --policy none rows with an environment setting, e.g.
# "nocb5:GCSNAP_NO_CALLBACK5=1").
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
OUT=${TMPDIR:-/tmp}/gcsnap-none
REPS=5
APP_ARGS=${APP_ARGS:-"30 200000 300000"}
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) REPS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "usage: $0 [--reps R] [--out DIR]" >&2; exit 64 ;;
  esac
done
mkdir -p "$OUT"
log() { echo "none_cost.sh: $*" >&2; }
source "$ROOT/bench/bench_build.sh"
bench_build_gcsnap
bench_build_app gc_heavy_app

ROWS=(off none)
declare -A ROW_ENV=([off]="" [none]="")
for extra in ${EXTRA_ROWS:-}; do ROWS+=("${extra%%:*}"); ROW_ENV[${extra%%:*}]=${extra#*:}; done
: >"$OUT/results.txt"
for r in $(seq 1 "$REPS"); do
  for row in "${ROWS[@]}"; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    # shellcheck disable=SC2086
    if [ "$row" = off ]; then
      line=$(dotnet "$OUT/gc_heavy_app/gc_heavy_app.dll" $APP_ARGS)
    else
      rm -f "$OUT/none.snap"
      line=$(env ${ROW_ENV[$row]} "$GCSNAP" record -o "$OUT/none.snap" --policy none -- \
        dotnet "$OUT/gc_heavy_app/gc_heavy_app.dll" $APP_ARGS 2>"$OUT/$row.$r.err")
    fi
    echo "$row load=$load $line" >>"$OUT/results.txt"
    log "rep $r $row (load $load): $line"
  done
done
python3 - "$OUT/results.txt" "$APP_ARGS" "$REPS" "${ROWS[@]}" <<'PY'
import re, statistics, sys
path, app_args, reps, rows = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
data = {r: [] for r in rows}
loads = []
for line in open(path):
    row = line.split()[0]
    d = dict(re.findall(r"(\w+)=([0-9.]+)", line))
    loads.append(float(d["load"]))
    data[row].append(d)
med = {r: {k: statistics.median(float(x[k]) for x in v) for k in ("wall_ms", "pause_ms")} for r, v in data.items() if v}
print(f"--policy none cost (bench/none_cost.sh: gc_heavy_app {app_args}; median of {reps}, rows interleaved; "
      f"load average {min(loads):.1f}-{max(loads):.1f})")
print("| run | GCs (0/1/2) | wall ms | runs | wall / off | pause ms | pause / off |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    if r not in med:
        continue
    v = data[r][-1]
    runs = ", ".join(f"{float(x['wall_ms']):.0f}" for x in data[r])
    print(f"| {r} | {v['gen0']}/{v['gen1']}/{v['gen2']} | {med[r]['wall_ms']:.0f} | {runs} | "
          f"{med[r]['wall_ms'] / med['off']['wall_ms']:.2f}x | {med[r]['pause_ms']:.0f} | "
          f"{med[r]['pause_ms'] / med['off']['pause_ms']:.2f}x |")
ratio = med["none"]["wall_ms"] / med["off"]["wall_ms"]
print(f"target: --policy none wall <= 1.1x no profiler: {ratio:.2f}x: {'yes' if ratio <= 1.1 else 'NO'}")
PY
