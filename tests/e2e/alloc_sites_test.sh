#!/usr/bin/env bash
# Allocation sites against ground truth, on one runtime and one source (issue 43):
#   alloc_sites_test.sh GCSNAP APP_DLL MAJOR SOURCE WORK_DIR [attach]
# (attach: the app starts on its own, waits, and `record --pid` attaches to it.)
# gcsnap record --source SOURCE the allocation-sites app (alloc_sites_app/), which allocates
# known bytes at four sites (one kept, three dropped; one a generic method of a generic type)
# and prints how many objects each made. Then `gcsnap allocs --format json` must name the four
# sites with their types (the generic one with its type and method arguments), and:
#  - .NET 10+ (AllocationSampled): each site's estimated bytes within ±10 % of what the app
#    allocated (≥ 1,000 samples each), the kept site's live estimate within ±15 % of the kept
#    bytes, and the dropped sites none live;
#  - .NET 8, 9 (allocation ticks): the four sites attributed, the estimate labelled "ticks".
# With the profiler source the kept bytes are also checked against `types` at the final walk.
# Fails (never skips) when dotnet or the runtime is missing.
set -uo pipefail
gcsnap=$1 app=$2 major=$3 source=$4 work=$5 how=${6:-startup}
fail() { echo "alloc_sites: FAIL: $*" >&2; exit 1; }
command -v dotnet >/dev/null 2>&1 || fail "'dotnet' is not on PATH"
command -v python3 >/dev/null 2>&1 || fail "'python3' is not on PATH"
[ -f "$app" ] || fail "$app is missing (the e2e.build_alloc_sites_app fixture builds it)"
line=$("$(dirname "$0")/../../scripts/runtimes.sh" "$major" | tail -1) || fail "scripts/runtimes.sh $major failed"
read -r _ version root <<<"$line"
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
snap=$work/app.snap

if [ "$how" = attach ]; then
  # The app waits 4 s before allocating (the attach comes first) and 4 s after its GC.
  DOTNET_ROOT="$root" DOTNET_ROLL_FORWARD=Major GCSNAP_DIAGNOSTICS=1 "$root/dotnet" "$app" 128 4 </dev/null \
    >"$work/app.out" 2>&1 &
  app_pid=$!
  sleep 1
  "$gcsnap" record --pid "$app_pid" --source "$source" --policy induced --duration 60s -o "$snap" \
    >"$work/record.out" 2>&1 || { cat "$work/record.out"; kill "$app_pid"; fail "$version $source: record --pid exited non-zero"; }
  wait "$app_pid" || { cat "$work/app.out"; fail "$version $source: the app exited non-zero"; }
else
  DOTNET_ROOT="$root" DOTNET_ROLL_FORWARD=Major GCSNAP_DIAGNOSTICS=1 "$gcsnap" record --source "$source" \
    --policy induced -o "$snap" -- "$root/dotnet" "$app" 128 </dev/null >"$work/app.out" 2>&1 ||
    { cat "$work/app.out"; fail "$version $source: gcsnap record exited non-zero"; }
fi
grep -q '^generic ' "$work/app.out" || { cat "$work/app.out"; fail "$version $source: the app did not finish"; }
"$gcsnap" allocs "$snap" --top 0 --format json >"$work/allocs.json" 2>"$work/allocs.err" ||
  { cat "$work/app.out" "$work/allocs.err"; fail "$version $source: gcsnap allocs exited non-zero"; }
walk_kept=""
if [ "$source" = profiler ] && [ "$how" = startup ]; then
  walk_kept=$("$gcsnap" types "$snap" --no-retained --format csv 2>/dev/null |
    awk -F, '$1 == "Gcsnap.AllocSites.KeptNode" { print $3 }')
  [ -n "$walk_kept" ] || fail "$version $source: the final walk has no KeptNode"
fi

python3 "$(dirname "$0")/alloc_sites_check.py" "$work/allocs.json" "$work/app.out" "$major" "$walk_kept" \
  "$version $source $how" || exit 1
