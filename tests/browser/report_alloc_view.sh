#!/usr/bin/env bash
# The report's allocation view (issue 43) drawn by headless Chromium (Debian's chromium) from
# the recording of tests/support/alloc_rounds.hpp: the icicle has the recording's stacks,
# outermost frame on top and the allocated type at the bottom, widths by estimated bytes
# allocated; a recording without samples shows no view. Without chromium the test fails.
#   report_alloc_view.sh GCSNAP ALLOC.snap LEAKS.snap WORK_DIR
set -euo pipefail
gcsnap=$1 alloc=$2 leaks=$3 work=$4
chromium=${GCSNAP_CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || { echo "report_alloc_view: $chromium is missing (scripts/setup.sh installs chromium)"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
fail() { echo "report_alloc_view: $*" >&2; exit 1; }
dom() {  # FILE -> the page's DOM after its script ran
  rm -f "$work/page.html"
  "$gcsnap" report "$1" -o "$work/page.html" 2>"$work/stderr" || fail "gcsnap report $1: $(cat "$work/stderr")"
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --user-data-dir="$work/profile" --dump-dom "file://$work/page.html" 2>/dev/null
}
page=$(dom "$alloc") || exit 1
grep -q 'data-ready="1"' <<<"$page" || fail "the page did not finish drawing"
grep -q '<section id="allocations">' <<<"$page" || fail "the allocation view is hidden"
grep -q 'id="allocations-note">29 sampled allocations, 17 still alive at GC 5; estimated bytes<' <<<"$page" ||
  fail "note missing"
frames=$(grep -o 'class="frame[^"]*" style="left:[0-9.]*px;top:[0-9]*px;width:[0-9.]*px">[^<]*' <<<"$page")
# App.Cache.Add (12 of 29 samples) under App.Worker.Run, one row below it, with 12/29 of the width.
width() { grep -F ">$2" <<<"$frames" | grep "top:$1px" | head -1 | sed 's/.*width:\([0-9.]*\)px.*/\1/'; }
all=$(width 0 all) cache=$(width 36 App.Cache.Add)
[ -n "$all" ] && [ -n "$cache" ] || fail "frames missing: $frames"
python3 -c "import sys; a,c=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if abs(c/a-12/29)<0.002 else 1)" \
  "$all" "$cache" || fail "App.Cache.Add is $cache of $all px, expected 12/29"
grep -q 'class="frame leaf" style="left:[0-9.]*px;top:54px;width:[0-9.]*px">App.Temp' <<<"$frames" ||
  fail "App.Temp leaf missing: $frames"
grep -q '&lt;unknown site&gt;' <<<"$frames" || fail "the unknown stack is missing"
page=$(dom "$leaks") || exit 1
grep -q 'data-ready="1"' <<<"$page" || fail "the page without samples did not finish drawing"
grep -q '<section id="allocations" hidden' <<<"$page" || fail "a recording without samples shows the view"
echo "report_alloc_view: ok"
