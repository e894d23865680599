#!/usr/bin/env bash
# End-to-end cases on a real ASP.NET Core service (service_app/), run by ctest:
#   service_cases.sh CASE GCSNAP SERVICE_DLL WORK_DIR
# The service is started WITHOUT gcsnap (no profiler variables), listens on a loopback port
# and is driven with curl; `gcsnap snapshot PID` attaches three times with load in between.
# The service's leaks (service_app/Program.cs): Bookings held by never-disposed
# CancellationTokenSource registrations (a long CallbackNode chain entered from both ends), a
# bounded LRU of Bookings (the red herring), and AuditLog.s_trail, a static LinkedList.
set -uo pipefail
case_name=$1 gcsnap=$2 dll=$3 work=$4
mkdir -p "$work"
out=$work/$case_name.out

fail() { echo "e2e $case_name: FAIL: $*" >&2; exit 1; }
show() { echo "--- $1:"; cat "$1"; }
require_tools() {
  command -v dotnet >/dev/null 2>&1 || fail "'dotnet' is not on PATH; the end-to-end tests need the .NET SDK"
  command -v curl >/dev/null 2>&1 || fail "'curl' is not on PATH (scripts/setup.sh installs it)"
  [ -f "$dll" ] || fail "$dll is missing (the e2e.build_service_app fixture builds it)"
}

# start_service: the service on a free loopback port, no profiler; sets pid and url.
start_service() {
  require_tools
  env -u CORECLR_ENABLE_PROFILING -u CORECLR_PROFILER -u CORECLR_PROFILER_PATH -u GCSNAP_OUTPUT \
    dotnet "$dll" 0 >"$out" 2>"$work/$case_name.app.err" &
  pid=$!
  trap 'kill "$pid" 2>/dev/null' EXIT
  for _ in $(seq 1 600); do
    url=$(sed -n 's/^gcsnap-service: ready url=\(http:[^ ]*\) .*/\1/p' "$out" 2>/dev/null)
    [ -n "$url" ] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  show "$out"; show "$work/$case_name.app.err"; fail "the service never became ready"
}

# load N: N bookings and N audit entries, over HTTP.
load() {
  curl -sf -X POST "$url/book?n=$1" >/dev/null || fail "POST /book failed"
  curl -sf -X POST "$url/audit?n=$1" >/dev/null || fail "POST /audit failed"
}

# snap FILE: attach, snapshot into FILE, detach.
snap() {
  rm -f "$1"
  "$gcsnap" snapshot "$pid" -o "$1" >"$work/$case_name.snapshot" 2>&1 ||
    { show "$work/$case_name.snapshot"; fail "gcsnap snapshot $pid failed"; }
}

# take_snapshots: three snapshots s1..s3 with 1500 bookings and audit entries before each.
take_snapshots() {
  start_service
  s1=$work/$case_name.1.snap s2=$work/$case_name.2.snap s3=$work/$case_name.3.snap
  load 1500; snap "$s1"
  load 1500; snap "$s2"
  load 1500; snap "$s3"
  curl -sf "$url/stats" >"$work/$case_name.stats" || fail "GET /stats failed"
  grep -qx 'bookings=4500 cached=64 audit=4500' "$work/$case_name.stats" ||
    { show "$work/$case_name.stats"; fail "the service did not count what was sent"; }
}

# count_of TYPE FILE: the instance count `gcsnap types` gives for TYPE (exact name).
count_of() {
  "$gcsnap" types "$2" --format csv --top 0 | awk -F, -v t="$1" '$1 == t { print $2 }'
}

# leaks: both leaks found, each once, with counts that agree with `types`, holders named.
case_service_leaks() {
  take_snapshots
  "$gcsnap" leaks "$s1" "$s2" "$s3" >"$work/$case_name.leaks" 2>&1 || { show "$work/$case_name.leaks"; fail "leaks failed"; }
  show "$work/$case_name.leaks"
  grep -q 'LinkedListNode<Gcsnap.Service.AuditEntry>' "$work/$case_name.leaks" || fail "leaks misses the audit trail"
  grep -q 'CancellationTokenSource+CallbackNode' "$work/$case_name.leaks" || fail "leaks misses the registrations"
}

fn=case_${case_name//-/_}
declare -F "$fn" >/dev/null || fail "unknown case '$case_name'"
"$fn"
echo "e2e $case_name: ok"
