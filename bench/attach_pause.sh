#!/usr/bin/env bash
# What `record --pid` costs a running service's gen0 pauses: the e2e ASP.NET Core service
# (tests/e2e/service_app, started with "pauses": it records its own GC pauses from the
# runtime's GC events, suspend to restart) is loaded with leaked bookings, then driven with
# garbage (POST /churn) in three phases of the same work: before attach, while
# `gcsnap record --pid PID --policy none` stays attached, and after it detached. Prints the
# gen0 pauses of each phase and the ratios to "before" from this one run, with the load average.
#   bench/attach_pause.sh [--bookings N] [--rounds R] [--churn KIB] [--out DIR]
# Env: BUILD_DIR (default build-bench; Release).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
OUT=${TMPDIR:-/tmp}/gcsnap-attach-pause
BOOKINGS=60000 ROUNDS=8 CHURN=40000
while [ $# -gt 0 ]; do
  case "$1" in
    --bookings) BOOKINGS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --churn) CHURN=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "usage: $0 [--bookings N] [--rounds R] [--churn KIB] [--out DIR]" >&2; exit 64 ;;
  esac
done
mkdir -p "$OUT"
log() { echo "attach_pause.sh: $*" >&2; }
source "$ROOT/bench/bench_build.sh"
bench_build_gcsnap
log "building tests/e2e/service_app"
dotnet build "$ROOT/tests/e2e/service_app/Gcsnap.Service.csproj" -c Release -o "$OUT/service_app" \
  >"$OUT/app-build.log" 2>&1 || { tail -20 "$OUT/app-build.log" >&2; exit 1; }

env -u CORECLR_ENABLE_PROFILING dotnet "$OUT/service_app/Gcsnap.Service.dll" 0 pauses >"$OUT/service.out" 2>&1 &
app=$!
recorder=
cleanup() { [ -n "$recorder" ] && kill "$recorder" 2>/dev/null; kill "$app" 2>/dev/null || true; }
trap cleanup EXIT
url=
for _ in $(seq 1 300); do
  url=$(sed -n "s/^gcsnap-service: ready url=\\(http:[^ ]*\\) pid=$app\$/\\1/p" "$OUT/service.out")
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { cat "$OUT/service.out" >&2; log "the service never became ready"; exit 1; }
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

log "loading $BOOKINGS bookings and audit entries"
for _ in $(seq 1 $((BOOKINGS / 5000))); do
  curl -sf -X POST "$url/book?n=5000" >/dev/null
  curl -sf -X POST "$url/audit?n=5000" >/dev/null
done

# phase NAME: ROUNDS rounds of CHURN KiB of garbage; the pauses the app saw go to NAME.txt.
# The runtime hands its events to the app's listener in batches: wait before each read.
phase() {
  sleep 2
  curl -sf "$url/gcpauses" >/dev/null
  : >"$OUT/$1.txt"
  for _ in $(seq 1 "$ROUNDS"); do
    curl -sf -X POST "$url/churn?kib=$CHURN" >/dev/null
    sleep 2
    curl -sf "$url/gcpauses" >>"$OUT/$1.txt"
  done
}

log "phase 1: before attach"
phase before
rm -f "$OUT/attached.snap"
"$GCSNAP" record --pid "$app" --policy none --duration 3600s -o "$OUT/attached.snap" >"$OUT/record.out" 2>&1 &
recorder=$!
for _ in $(seq 1 300); do
  grep -q "^gcsnap: recording process $app " "$OUT/record.out" 2>/dev/null && break
  sleep 0.1
done
grep -q "^gcsnap: recording process $app " "$OUT/record.out" || { cat "$OUT/record.out" >&2; exit 1; }
log "phase 2: record --pid attached"
phase attached
kill -INT "$recorder"
wait "$recorder" || { cat "$OUT/record.out" >&2; exit 1; }
recorder=
log "phase 3: after detach"
phase detached
rm -f "$OUT/heap.snap"
"$GCSNAP" snapshot "$app" -o "$OUT/heap.snap" >/dev/null
objects=$("$GCSNAP" types "$OUT/heap.snap" --format csv --top 0 | awk -F, 'NR > 1 { n += $2 } END { print n }')
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

echo "service: $objects live objects at the end ($BOOKINGS bookings); $ROUNDS rounds of $CHURN KiB of garbage per phase"
echo "load average: $load_start at the start, $load_end at the end ($(nproc) cores)"
awk '
  FNR == 1 { phase = FILENAME; sub(/.*\//, "", phase); sub(/\.txt$/, "", phase); order[++phases] = phase }
  $1 == "gen=0" { split($2, v, "="); ms[phase, ++n[phase]] = v[2] + 0 }
  END {
    printf "%-10s %6s %9s %9s %9s %9s %14s %12s\n", "PHASE", "GEN0", "MEAN ms", "MEDIAN ms", "P90 ms", "MAX ms", "MEAN/BEFORE", "MEDIAN/BEFORE"
    for (p = 1; p <= phases; ++p) {
      ph = order[p]; c = n[ph]
      for (i = 1; i <= c; ++i) x[i] = ms[ph, i]
      for (i = 2; i <= c; ++i) { t = x[i]; j = i - 1; while (j > 0 && x[j] > t) { x[j + 1] = x[j]; --j } x[j + 1] = t }
      sum = 0; for (i = 1; i <= c; ++i) sum += x[i]
      mean[ph] = c ? sum / c : 0; med[ph] = c ? x[int((c + 1) / 2)] : 0
      p90 = c ? x[int(c * 0.9 + 0.999)] : 0; mx = c ? x[c] : 0
      printf "%-10s %6d %9.2f %9.2f %9.2f %9.2f %13.1fx %12.1fx\n", ph, c, mean[ph], med[ph], p90, mx,
             mean["before"] ? mean[ph] / mean["before"] : 0, med["before"] ? med[ph] / med["before"] : 0
    }
  }' "$OUT/before.txt" "$OUT/attached.txt" "$OUT/detached.txt"
