#!/usr/bin/env bash
# Record the bundled sample app (tests/e2e/sample_app) and show what gcsnap finds in it.
# Works from a fresh clone: installs what building needs and builds gcsnap and its profiler
# (nothing else: not the tests) into build/ (or $GCSNAP_BUILD_DIR) first, showing progress.
# Prints each command as a user types it once gcsnap is on PATH (scripts/install.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GCSNAP_BUILD_DIR:-$root/build}
demo=$build/demo
gcsnap=$build/bin/gcsnap

step() { printf '\n== %s\n' "$*"; }
# show CMD...: print the command as a user would type it, then run it.
show() {
  printf '$ gcsnap %s\n' "$*" | sed "s|$demo/||g"
  "$gcsnap" "$@"
}

step "Build gcsnap and its profiler (into $build/bin)"
# A build directory the test command configured keeps its tests (built later, not now).
only=(-DGCSNAP_BUILD_TESTS=OFF -DGCSNAP_BUILD_BENCH=OFF)
grep -q '^GCSNAP_BUILD_TESTS:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null && only=()
GCSNAP_SETUP=--build GCSNAP_BUILD_TARGETS="gcsnap_cli gcsnap_profiler" "$root/scripts/build.sh" "${only[@]}"
if ! command -v dotnet >/dev/null 2>&1; then
  echo "demo: error: 'dotnet' is not on PATH; recording needs the .NET SDK (net10.0)" >&2
  exit 1
fi

step "Build the sample app"
mkdir -p "$demo"
"$root/tests/e2e/build_sample_app.sh" "$root/tests/e2e/sample_app" "$demo/sample_app_out" "$demo/sample_app_artifacts"
app=$demo/sample_app_out/Gcsnap.Sample.dll
snap=$demo/sample.snap

step "Record it: every GC's roots and ranges, a heap walk at each gen2 or induced GC"
rm -f "$snap"
show record -o "$snap" -- dotnet "$app" | tee "$demo/app.out"
# The app prints the runtime's numbers of its last two induced GCs, between which it allocates
# its Survivor2 objects.
fact() { sed -n "s/^gcsnap-sample: mode=.* $1=\([0-9]*\) .*/\1/p" "$demo/app.out"; }
from=$(fact diff_from_gc) to=$(fact diff_to_gc)

step "What the recording holds"
show info "$snap"
show verify "$snap"

step "Which roots hold the sample's objects (last GC)"
show roots "$snap" --type Gcsnap.Sample --top 8

step "Which types take the most memory (last heap walk)"
show types "$snap" --top 10

step "Why is a LeakyItem still alive?"
show path "$snap" --type Gcsnap.Sample.LeakyItem --limit 1

step "What retains the most"
show dominators "$snap" --by type --top 5

step "What changed between GC $from and GC $to"
show diff "$snap" --from "$from" --to "$to" --top 5

step "Leak hunting: the sample's 'leaks' mode plants two leaks among look-alikes (6 rounds)"
leaks=$demo/leaks.snap
rm -f "$leaks"
show record -o "$leaks" -- dotnet "$app" leaks 6
show leaks "$leaks" --top 5

step "A report to open in a browser (one offline HTML file)"
show report "$leaks" -o "$demo/report.html"
echo "open $demo/report.html"

step "Where gcsnap is"
echo "The demo ran $gcsnap. To type 'gcsnap' anywhere: scripts/install.sh (into /usr/local, or"
echo "scripts/install.sh PREFIX), or add $build/bin to PATH (docs/install.md)."
