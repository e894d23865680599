#!/usr/bin/env bash
# What the shim adds per object to a snapshot's heap walk, in counts the machine's load barely
# moves: perf stat of the GC thread (instructions, cycles, cache misses, page faults) during
# `gcsnap snapshot`, with the shim storing the walk and with GCSNAP_WALK_ONLY=1 (the runtime's
# walk alone); the difference per object is the shim's. --record adds a perf record -g profile.
#   bench/walk_profile.sh [--app service_app|stall_app] [--size N] [--reps 3] [--rows walk,shim[,shim_b]] [--record]
# Needs perf (linux-perf) and kernel.perf_event_paranoid <= 2 (own threads). Env: BUILD_DIR,
# GCSNAP_SHIM_B (row shim_b: another build of the shim, for an A/B in one run).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
OUT=${TMPDIR:-/tmp}/gcsnap-walk-profile
APP=service_app
SIZE=""
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --app) APP=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --reps) EXTRA+=(--reps "$2"); shift 2 ;;
    --rows) EXTRA+=(--rows "$2"); shift 2 ;;
    --record) EXTRA+=(--record); shift ;;
    *) echo "usage: $0 [--app service_app|stall_app] [--size N] [--reps R] [--rows walk,shim,shim_b] [--record]" >&2; exit 64 ;;
  esac
done
case "$APP" in
  service_app) DLL=ServiceApp.dll; SIZE=${SIZE:-6500000} ;;
  stall_app) DLL=StallApp.dll; SIZE=${SIZE:-5000000} ;;
  *) echo "walk_profile.sh: unknown app $APP (service_app or stall_app)" >&2; exit 64 ;;
esac
command -v perf >/dev/null || { echo "walk_profile.sh: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
mkdir -p "$OUT"
log() { echo "walk_profile.sh: $*" >&2; }
source "$ROOT/bench/bench_build.sh"
bench_build_gcsnap
bench_build_app "$APP"
python3 "$ROOT/bench/walk_profile_drive.py" --size "$SIZE" --out "$OUT" --app-dll "$OUT/$APP/$DLL" \
  --app-name "$APP" --gcsnap "$GCSNAP" "${EXTRA[@]}"
