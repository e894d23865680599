#!/usr/bin/env bash
# Issue 11: what recording costs a busy web service. Runs bench/web_app (ASP.NET Core, Kestrel,
# a JSON endpoint and a cache that grows and then evicts, so gen2 GCs happen under load) under
# `wrk -t1 -c16 -d10s --latency` on loopback, once per row: no profiler; `gcsnap record --policy
# none`; `record` (default policy); `record --policy gen2` (a walk at every gen2 GC); `--policy
# none` plus one `gcsnap snapshot PID` during the load. Prints requests/s, p99 and max latency
# (medians of REPS; the rows are interleaved per repetition) and judges "default p99 within
# 1.5x of --policy none".
#   bench/web.sh [--reps 3] [--entries 40000] [--duration 10] [--rows off,none,default,gen2,snapshot] [--out DIR] [--keep]
# Env: BUILD_DIR (default build-bench; Release). wrk is installed with apt-get when missing and
# this runs as root; otherwise the script stops and says so.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
OUT=${TMPDIR:-/tmp}/gcsnap-web
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --reps|--entries|--duration|--warmup|--rows) ARGS+=("$1" "$2"); shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --keep) ARGS+=(--keep); shift ;;
    *) echo "usage: $0 [--reps R] [--entries N] [--duration S] [--warmup S] [--rows off,none,default,gen2,snapshot] [--out DIR] [--keep]" >&2; exit 64 ;;
  esac
done
mkdir -p "$OUT"
log() { echo "web.sh: $*" >&2; }

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

bench_build_app web_app

python3 "$ROOT/bench/web_drive.py" --out "$OUT" --app-dll "$OUT/web_app/WebApp.dll" --gcsnap "$BUILD/bin/gcsnap" "${ARGS[@]}"
