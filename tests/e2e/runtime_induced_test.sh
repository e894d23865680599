#!/usr/bin/env bash
# The app's induced GCs on each runtime: runtime_induced_test.sh GCSNAP APP_DLL MAJOR WORK_DIR
# gcsnap record --policy induced the oracle app (stdin closed: it exits after its four
# GC.Collect(2, Forced, blocking: true, compacting: true) calls) on runtime MAJOR. Every GC of
# that app is one of those four, so the recording must hold four GCs with the reason
# "induced" and four snapshots. .NET 8 hands the profiler "other" for them; the shim reads
# the GC's own reason from the GCTriggered event there (docs/shim.md, "Runtimes").
# Fails (never skips) when dotnet or the runtime pack is missing.
set -uo pipefail
gcsnap=$1 app=$2 major=$3 work=$4
fail() { echo "induced: FAIL: $*" >&2; exit 1; }
command -v dotnet >/dev/null 2>&1 || fail "'dotnet' is not on PATH"
[ -f "$app" ] || fail "$app is missing (the e2e.runtime.build fixture builds it)"
line=$("$(dirname "$0")/../../scripts/runtimes.sh" "$major" | tail -1) || fail "scripts/runtimes.sh $major failed"
read -r _ version root <<<"$line"
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
snap=$work/induced.snap
DOTNET_ROOT=$root DOTNET_ROLL_FORWARD=Major "$gcsnap" record --policy induced -o "$snap" -- "$root/dotnet" "$app" \
  </dev/null >"$work/record.out" 2>&1 || { cat "$work/record.out"; fail "gcsnap record exited $?"; }
cat "$work/record.out"
"$gcsnap" info "$snap" >"$work/info.txt" 2>&1 || { cat "$work/info.txt"; fail "gcsnap info failed"; }
cat "$work/info.txt"
# The GC table: "N  genG  REASON  COMPACTED  SNAPSHOT ..." rows.
gcs=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^gen/ {n++} END {print n+0}' "$work/info.txt")
induced=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^gen/ && $3 == "induced" {n++} END {print n+0}' "$work/info.txt")
walked=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^gen/ && $5 == "policy" {n++} END {print n+0}' "$work/info.txt")
[ "$gcs" -eq 4 ] || fail "$version: expected the app's 4 GCs, the recording has $gcs"
[ "$induced" -eq 4 ] || fail "$version: $induced of the 4 GC.Collect GCs have the reason induced"
[ "$walked" -eq 4 ] || fail "$version: --policy induced walked $walked of the 4 induced GCs"
echo "induced: $version: the app's 4 GC.Collect GCs are induced and walked"
