#!/usr/bin/env bash
# What recording costs a web service on each runtime (.NET 8, 9, 10, 11): bench/web_app
# (Kestrel) built for net8.0 and rolled forward onto the private roots of scripts/runtimes.sh
# (--aspnet: ASP.NET Core from its NuGet runtime pack), under `wrk -t1 -c16 --latency`, once per
# row: no profiler, `gcsnap record --pid` (attached for the window), `--policy none`, the
# default policy; row noevents (not in the default rows): the default policy without .NET 8's
# GCTriggered session (GCSNAP_GC_REASON_EVENTS=0), for that session's cost; off-nobgc (no profiler,
# System.GC.Concurrent=false in a copy of its runtimeconfig.json): the cost of losing background GC alone; light, light-nobgc: `record
# --policy none` with the BASIC_GC | MONITOR_GC_MOVED_OBJECTS mask (the shim's experiment switch
# GCSNAP_EXPERIMENT_LIGHT_MASK=1), with and without background GC; attach-events and events:
# `record --pid --source events` and `record --source events` (docs/shim.md "Sources"; the
# attach row is `--source profiler`). Prints requests/s, p99 and
# max latency, the mean and longest gen0, gen1, blocking gen2 and background gen2 pause
# (medians of REPS, rows interleaved), and judges the targets (.NET 11: default within 1.2x of
# no profiler at p99, --policy none within 1.5x; 8-10: default within 1.5x). A benchmark, not
# a test: run it on a quiet machine; it prints the load average it saw.
# Each request also allocates --garbage-kb (default 64) KB that die young: without it this
# service goes seconds without a GC (the runtime's gen0 budget is large), and the gen0/gen1
# pauses are what is measured.
#   bench/runtimes.sh [--reps 3] [--entries 40000] [--duration 10] [--warmup 3] [--garbage-kb 64]
#                     [--rows off,off-nobgc,attach,attach-events,events,none,default,noevents,light,light-nobgc] [--runtimes 8,9,10,11] [--out DIR] [--keep]
# Env: BUILD_DIR (default build-bench; Release). wrk comes from apt-get when missing (as root).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
OUT=${TMPDIR:-/tmp}/gcsnap-runtimes
ARGS=()
MAJORS=(8 9 10 11)
while [ $# -gt 0 ]; do
  case "$1" in
    --reps|--entries|--duration|--warmup|--rows|--garbage-kb) ARGS+=("$1" "$2"); shift 2 ;;
    --runtimes) IFS=, read -r -a MAJORS <<<"$2"; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --keep) ARGS+=(--keep); shift ;;
    *) echo "usage: $0 [--reps R] [--entries N] [--duration S] [--warmup S] [--garbage-kb K] [--rows off,off-nobgc,attach,attach-events,events,none,default,noevents,light,light-nobgc] [--runtimes 8,9,10,11] [--out DIR] [--keep]" >&2; exit 64 ;;
  esac
done
mkdir -p "$OUT"
log() { echo "runtimes.sh: $*" >&2; }

if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    log "installing wrk with apt-get"
    { apt-get install -y wrk || { apt-get update && apt-get install -y wrk; }; } >"$OUT/wrk-install.log" 2>&1 \
      || { log "apt-get install wrk failed (see $OUT/wrk-install.log)"; exit 1; }
  else
    log "wrk is not installed and this is not root: install it (apt-get install wrk) and run again"
    exit 1
  fi
fi

source "$ROOT/bench/bench_build.sh"
bench_build_gcsnap
log "provisioning .NET ${MAJORS[*]} with ASP.NET Core (scripts/runtimes.sh --aspnet)"
"$ROOT/scripts/runtimes.sh" --aspnet "${MAJORS[@]}" >"$OUT/runtimes.txt"
log "building bench/web_app for net8.0"
dotnet build "$ROOT/bench/web_app/web_app.csproj" -c Release -p:GcsnapTargetFramework=net8.0 -o "$OUT/web_app" \
  --artifacts-path "$OUT/web_app_artifacts" >"$OUT/app-build.log" 2>&1 || { tail -20 "$OUT/app-build.log" >&2; exit 1; }

python3 "$ROOT/bench/runtimes_drive.py" --out "$OUT" --app-dll "$OUT/web_app/WebApp.dll" --gcsnap "$GCSNAP" \
  --runtimes "$OUT/runtimes.txt" "${ARGS[@]}"
