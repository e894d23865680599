#!/usr/bin/env bash
# The report's bounded list (issue 44) drawn by headless Chromium (Debian's chromium) from the
# leak rounds of tests/cli (tests/support/leak_rounds.hpp): beside the suspects, every group
# `gcsnap leaks --format json` lists as bounded, with its type, its holder's address and why it
# is not a suspect ("held flat from walk 3 (GC 3)" for a held-flat group). Without chromium
# the test fails.
#   report_bounded_view.sh GCSNAP LEAKS.snap WORK_DIR
set -euo pipefail
gcsnap=$1 leaks=$2 work=$3
chromium=${GCSNAP_CHROMIUM:-/usr/bin/chromium}
fail() { echo "report_bounded_view: $*" >&2; exit 1; }
[ -x "$chromium" ] || fail "$chromium is missing (scripts/setup.sh installs chromium)"
rm -rf "$work" && mkdir -p "$work"
"$gcsnap" report "$leaks" -o "$work/page.html" 2>"$work/stderr" || fail "gcsnap report: $(cat "$work/stderr")"
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
  --user-data-dir="$work/profile" --dump-dom "file://$work/page.html" >"$work/dom.html" 2>/dev/null ||
  fail "chromium failed"
grep -q 'data-ready="1"' "$work/dom.html" || fail "the page did not finish drawing"
"$gcsnap" leaks "$leaks" --format json >"$work/leaks.json" || fail "gcsnap leaks failed"
python3 - "$work/dom.html" "$work/leaks.json" <<'PY' || fail "the bounded list differs from gcsnap leaks'"
import html, json, re, sys
dom = open(sys.argv[1]).read()
bounded = json.load(open(sys.argv[2]))["bounded"]
if not bounded:
    sys.exit("gcsnap leaks lists no bounded group in the leak rounds")
section = re.search(r'<div id="bounded"( hidden)?>(.*?)</div>\s*</div>\s*</section>', dom, re.S)
if not section or section.group(1):
    sys.exit("the bounded list is missing or hidden")
groups = re.findall(r'<div class="suspect bounded-group" data-type="([^"]*)"><b>[^<]*</b>([^<]*)'
                    r'<span class="why">([^<]*)</span>.*?<div class="holder">([^<]*)</div>', section.group(2), re.S)
print(groups)
if [html.unescape(g[0]) for g in groups] != [b["type"] for b in bounded]:
    sys.exit(f"types {[g[0] for g in groups]} != {[b['type'] for b in bounded]}")
for g, b in zip(groups, bounded):
    if f"+{b['count_growth']} since" not in g[1] or f" {b['count']} objects" not in g[1]:
        sys.exit(f"{b['type']}: counts '{g[1]}'")
    if b["why"] == "held_flat" and f"(GC {b['flat_from_gc']})" not in g[2]:
        sys.exit(f"{b['type']}: why '{g[2]}'")
    if not g[3].startswith(f"held by ") or b["accumulation_address"] not in g[3]:
        sys.exit(f"{b['type']}: holder '{g[3]}'")
PY
echo "report_bounded_view: ok"
