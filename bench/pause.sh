#!/usr/bin/env bash
# Issues 11 and 33: the snapshot pause. Prints, for each app and heap size, the longest stall
# the app felt during: a plain full blocking GC (no profiler); `gcsnap snapshot` with
# GCSNAP_WALK_ONLY=1 (the runtime's heap walk, nothing stored); `gcsnap snapshot` (the shim
# storing the walk); the EventPipe heap dump dotnet-gcdump is built on (dotnet-trace with the
# gcdump keywords). Snapshots are taken under `gcsnap record --policy none`.
#   bench/pause.sh [--apps "stall_app service_app"] [--sizes "1000000 5000000"]
#                  [--service-sizes 6500000] [--reps 3] [--rows plain,walk,shim,eventpipe] [--out DIR] [--keep]
# Apps: bench/stall_app (--sizes: a mix of dictionaries, lists, strings, a linked graph, blobs)
# and bench/service_app (--service-sizes: a service's cache, 13 objects per customer; 6.5 M
# objects are 500 000 customers), one table each.
# Row nofields (not in the default rows): `gcsnap snapshot` with GCSNAP_FIELDS=0, for the cost of
# field names (docs/performance.md "Field names"). Row events: `gcsnap snapshot` under
# `record --source events` (the heap-dump session's walk, docs/shim.md "Sources"), against the
# eventpipe and shim rows (docs/performance.md "The events source's walk"). Row shim_b: `gcsnap snapshot`
# with the shim named by GCSNAP_SHIM_B (another build), for an A/B of two shims in one run.
# Row attach: the first snapshot of a process started without gcsnap (`gcsnap snapshot PID`
# attaches, snapshots, detaches), a new app for every repetition; its note gives the walk's CPU
# (the app runs with GCSNAP_WALK_TIMES=1). Row attach_b: the same with the GCSNAP_SHIM_B build.
# Row attach_walk: the same with GCSNAP_WALK_ONLY=1 in the app (the runtime's first walk by attach).
# Rows are interleaved: every row's app is started first, then the repetitions take turns, and
# each one waits until the snapshot file (or trace) stops growing; the table prints the load.
# Env: BUILD_DIR (default build-bench; Release), DOTNET_TRACE (use this dotnet-trace instead of
# installing one from NuGet into OUT/tools).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
OUT=${TMPDIR:-/tmp}/gcsnap-pause
SIZES="1000000 5000000"
SERVICE_SIZES="6500000"
APPS="stall_app service_app"
REPS=3
ROWS=plain,walk,shim,eventpipe
KEEP=()
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) SIZES=$2; shift 2 ;;
    --service-sizes) SERVICE_SIZES=$2; shift 2 ;;
    --apps) APPS=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --rows) ROWS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --keep) KEEP=(--keep); shift ;;
    *) echo "usage: $0 [--apps \"stall_app service_app\"] [--sizes \"N ...\"] [--service-sizes \"N ...\"] [--reps R] [--rows plain,walk,shim,events,eventpipe,attach] [--out DIR] [--keep]" >&2; exit 64 ;;
  esac
done
mkdir -p "$OUT"
log() { echo "pause.sh: $*" >&2; }

source "$ROOT/bench/bench_build.sh"
bench_build_gcsnap

for app in $APPS; do
  case "$app" in
    stall_app|service_app) bench_build_app "$app" ;;
    *) echo "pause.sh: unknown app $app (stall_app or service_app)" >&2; exit 64 ;;
  esac
done

TRACE=${DOTNET_TRACE:-}
TRACE_NOTE="not installed"
if [[ ",$ROWS," == *,eventpipe,* ]] && [ -z "$TRACE" ]; then
  TRACE=$OUT/tools/dotnet-trace
  if [ ! -x "$TRACE" ]; then
    log "installing dotnet-trace from NuGet into $OUT/tools"
    if ! dotnet tool install dotnet-trace --tool-path "$OUT/tools" >"$OUT/dotnet-trace-install.log" 2>&1; then
      TRACE_NOTE="dotnet tool install dotnet-trace failed: $(grep -m1 -i error "$OUT/dotnet-trace-install.log" || tail -1 "$OUT/dotnet-trace-install.log")"
      log "$TRACE_NOTE"
      TRACE=""
    fi
  fi
fi

for app in $APPS; do
  case "$app" in
    stall_app) dll=StallApp.dll sizes=$SIZES ;;
    service_app) dll=ServiceApp.dll sizes=$SERVICE_SIZES ;;
  esac
  python3 "$ROOT/bench/pause_drive.py" --sizes "$sizes" --reps "$REPS" --rows "$ROWS" --out "$OUT" \
    --app-dll "$OUT/$app/$dll" --app-name "$app" --gcsnap "$GCSNAP" --dotnet-trace "$TRACE" \
    --trace-note "$TRACE_NOTE" "${KEEP[@]}"
  echo
done
