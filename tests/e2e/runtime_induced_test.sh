#!/usr/bin/env bash
# The app's induced GCs on each runtime: runtime_induced_test.sh GCSNAP APP_DLL MAJOR WORK_DIR
# gcsnap record --policy induced the oracle app (stdin closed: it exits after its four
# GC.Collect(2, Forced, blocking: true, compacting: true) calls) on runtime MAJOR. Every GC of
# that app is one of those four, so the recording must hold four GCs with the reason
# "induced" and four snapshots. .NET 8 hands the profiler "other" for them; the shim reads
# the GC's own reason from the GCTriggered event there (docs/shim.md, "Runtimes").
# With GCSNAP_DIAGNOSTICS=1 the shim says which event masks the runtime accepted and how many
# ObjectsAllocatedByClass callbacks came: on 11 the high mask holds
# COR_PRF_HIGH_MONITOR_GC_SKIP_ALLOCATED_BY_CLASS_STATISTIC (0x200) and no callback comes; on
# 8-10 the high mask is 0 and they do. On 8 a second run with GCSNAP_GC_REASON_EVENTS=0 checks
# the switch: no GCTriggered session, and the four GCs keep the reason "other".
# Fails (never skips) when dotnet or the runtime pack is missing.
set -uo pipefail
gcsnap=$1 app=$2 major=$3 work=$4
fail() { echo "induced: FAIL: $*" >&2; exit 1; }
command -v dotnet >/dev/null 2>&1 || fail "'dotnet' is not on PATH"
[ -f "$app" ] || fail "$app is missing (the e2e.runtime.build fixture builds it)"
line=$("$(dirname "$0")/../../scripts/runtimes.sh" "$major" | tail -1) || fail "scripts/runtimes.sh $major failed"
read -r _ version root <<<"$line"
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
# record NAME [VAR=VALUE...]: gcsnap record --policy induced the app into WORK/NAME.snap;
# sets gcs, induced, walked (counts of the GC table) and diag (the shim's diagnostics lines).
record() {
  local name=$1 snap=$work/$1.snap
  shift
  env "$@" GCSNAP_DIAGNOSTICS=1 DOTNET_ROOT="$root" DOTNET_ROLL_FORWARD=Major \
    "$gcsnap" record --policy induced -o "$snap" -- "$root/dotnet" "$app" \
    </dev/null >"$work/$name.out" 2>&1 || { cat "$work/$name.out"; fail "gcsnap record exited $?"; }
  cat "$work/$name.out"
  "$gcsnap" info "$snap" >"$work/$name.info" 2>&1 || { cat "$work/$name.info"; fail "gcsnap info failed"; }
  cat "$work/$name.info"
  # The GC table: "N  genG  REASON  COMPACTED  SNAPSHOT ..." rows.
  gcs=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^gen/ {n++} END {print n+0}' "$work/$name.info")
  induced=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^gen/ && $3 == "induced" {n++} END {print n+0}' "$work/$name.info")
  walked=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^gen/ && $5 == "policy" {n++} END {print n+0}' "$work/$name.info")
  diag=$(grep 'gcsnap: diagnostics: ' "$work/$name.out")
  [ -n "$diag" ] || fail "$version: the shim printed no diagnostics line (GCSNAP_DIAGNOSTICS=1)"
}

record induced
[ "$gcs" -eq 4 ] || fail "$version: expected the app's 4 GCs, the recording has $gcs"
[ "$induced" -eq 4 ] || fail "$version: $induced of the 4 GC.Collect GCs have the reason induced"
[ "$walked" -eq 4 ] || fail "$version: --policy induced walked $walked of the 4 induced GCs"
echo "induced: $version: the app's 4 GC.Collect GCs are induced and walked"

high=$(sed -n 's/.*high event mask \(0x[0-9a-f]*\).*/\1/p' <<<"$diag")
# 0x80 (COR_PRF_HIGH_MONITOR_EVENT_PIPE) is the allocation sampling's session (on by default,
# docs/shim.md "Allocation sites"): the bit this case checks is the skip bit 0x200 alone.
[ -n "$high" ] && high=$(printf '0x%x' $((high & ~0x80)))
calls=$(sed -n 's/.*diagnostics: \([0-9]*\) ObjectsAllocatedByClass callbacks.*/\1/p' <<<"$diag")
[ -n "$high" ] && [ -n "$calls" ] || fail "$version: diagnostics lines without the masks or the callback count: $diag"
if [ "$major" -ge 11 ]; then
  [ "$high" = 0x200 ] || fail "$version: high event mask $high, expected 0x200 (skip the allocated-by-class statistic)"
  [ "$calls" -eq 0 ] || fail "$version: $calls ObjectsAllocatedByClass callbacks with the skip bit set"
else
  [ "$high" = 0x0 ] || fail "$version: high event mask $high on a runtime before 11"
  [ "$calls" -gt 0 ] || fail "$version: no ObjectsAllocatedByClass callback without the skip bit (the count is broken)"
fi
echo "induced: $version: high event mask $high, $calls ObjectsAllocatedByClass callbacks"

if [ "$major" -eq 8 ]; then
  grep -q 'GCTriggered session on' <<<"$diag" || fail "$version: the GCTriggered session is not on by default"
  record no_reason_events GCSNAP_GC_REASON_EVENTS=0
  grep -q 'GCTriggered session off' <<<"$diag" || fail "$version: GCSNAP_GC_REASON_EVENTS=0 left the session on"
  [ "$gcs" -eq 4 ] || fail "$version: expected the app's 4 GCs without the session, the recording has $gcs"
  [ "$induced" -eq 0 ] || fail "$version: $induced GCs read as induced without the GCTriggered session"
  echo "induced: $version: GCSNAP_GC_REASON_EVENTS=0: no session, the 4 GCs read as other"
else
  grep -q 'GCTriggered session off' <<<"$diag" || fail "$version: a GCTriggered session runs on a runtime after 8"
fi
