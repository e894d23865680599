#!/usr/bin/env bash
# Issue 43: what sampling allocation sites with stacks costs an allocation-heavy app. Runs the
# allocation-sites app (tests/e2e/alloc_sites_app: MIB MiB each of 48-byte kept objects, 40-byte
# dropped objects and 1 KiB arrays) under `gcsnap record --policy none`, with and without
# --no-alloc-sites, interleaved, REPS times each, on .NET MAJOR, and prints the medians of the
# wall time and of the CPU time (user + system of record and the app: on a loaded machine the
# steadier figure), the ratios, and the samples kept (GCSNAP_DIAGNOSTICS); judges
# "sampling <= 1.05x" on CPU. Small by default (the machine is shared): --reps 5, 64 MiB a site.
#   bench/alloc_sites_cost.sh [--reps N] [--mib M] [--major 10] [--source profiler|events] [--out DIR]
# Env: BUILD_DIR (default build: a gcsnap build with the CLI and the shim).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build}
OUT=${TMPDIR:-/tmp}/gcsnap-alloc-sites
REPS=5 MIB=64 MAJOR=10 SOURCE=profiler
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) REPS=$2; shift 2 ;;
    --mib) MIB=$2; shift 2 ;;
    --major) MAJOR=$2; shift 2 ;;
    --source) SOURCE=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "usage: $0 [--reps N] [--mib M] [--major 10] [--source profiler|events] [--out DIR]" >&2; exit 64 ;;
  esac
done
GCSNAP=$BUILD/bin/gcsnap
[ -x "$GCSNAP" ] || GCSNAP=$BUILD/tools/gcsnap/gcsnap
[ -x "$GCSNAP" ] || { echo "alloc_sites_cost.sh: no gcsnap in $BUILD" >&2; exit 1; }
mkdir -p "$OUT"
APP=$OUT/app/Gcsnap.AllocSites.dll
if [ ! -f "$APP" ]; then
  dotnet build -c Release -o "$OUT/app" "$ROOT/tests/e2e/alloc_sites_app/Gcsnap.AllocSites.csproj" >"$OUT/build.log" 2>&1 ||
    { cat "$OUT/build.log"; exit 1; }
fi
read -r _ version root <<<"$("$ROOT/scripts/runtimes.sh" "$MAJOR" | tail -1)"

run() {  # run ROW: prints "wall_ms cpu_ms samples"
  local flag=() start end samples cpu
  [ "$1" = nosites ] && flag=(--no-alloc-sites)
  start=$(date +%s%N)
  DOTNET_ROOT="$root" DOTNET_ROLL_FORWARD=Major GCSNAP_DIAGNOSTICS=1 /usr/bin/time -f 'cpu %U %S' -o "$OUT/$1.time" \
    "$GCSNAP" record --force --policy none --source "$SOURCE" "${flag[@]}" -o "$OUT/$1.snap" -- \
    "$root/dotnet" "$APP" "$MIB" >"$OUT/$1.out" 2>&1
  end=$(date +%s%N)
  samples=$(sed -n 's/.*allocation sites: [0-9]* sampling events, \([0-9]*\) samples kept.*/\1/p' "$OUT/$1.out")
  cpu=$(awk '$1 == "cpu" { printf "%d", ($2 + $3) * 1000 }' "$OUT/$1.time")
  echo "$(((end - start) / 1000000)) $cpu ${samples:-0}"
}

: >"$OUT/results.txt"
for r in $(seq 1 "$REPS"); do
  for row in nosites sites; do echo "$row $(run "$row")" >>"$OUT/results.txt"; done
done
python3 - "$OUT/results.txt" "$version" "$SOURCE" "$MIB" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, wall, cpu, samples = line.split()
    rows.setdefault(name, []).append((int(wall), int(cpu), int(samples)))
wall = {k: statistics.median(r[0] for r in v) for k, v in rows.items()}
cpu = {k: statistics.median(r[1] for r in v) for k, v in rows.items()}
samples = statistics.median(r[2] for r in rows["sites"])
print(f".NET {sys.argv[2]}, --source {sys.argv[3]}, {sys.argv[4]} MiB x 3 sites, {len(rows['sites'])} runs each (medians)")
print(f"  record --no-alloc-sites   wall {wall['nosites']:6.0f} ms   cpu {cpu['nosites']:6.0f} ms")
print(f"  record (sites + stacks)   wall {wall['sites']:6.0f} ms   cpu {cpu['sites']:6.0f} ms   {samples:.0f} samples kept")
ratio = cpu["sites"] / cpu["nosites"]
print(f"  ratio wall {wall['sites'] / wall['nosites']:.3f}x, cpu {ratio:.3f}x "
      f"({'meets' if ratio <= 1.05 else 'misses'} the 1.05x target)")
EOF
