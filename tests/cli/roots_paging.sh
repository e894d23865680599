#!/bin/sh
# roots on a terminal lists the first 50 matches and summarizes them by type (the first 10
# types); --top N, --all, and JSON/CSV list more, every one for the last two; the summary by
# type counts every match whatever is listed, and agrees with the list type by type.
# Usage: roots_paging.sh GCSNAP BENCH_SMOKE WORK_DIR
set -eu
g=$1
dir=$3/roots-paging
snap=$dir/paging.snap
fail() { echo "roots_paging: $*" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
"$2" write 20000 "$snap" fg >/dev/null
# matched: the handles the kind summary counts (its ROOTS column summed).
# (CSV lines end in CRLF.)
matched=$("$g" roots "$snap" --kind handle --format csv | tr -d '\r' | awk -F, 'NR > 1 && $0 == "" { exit } NR > 1 { n += $3 } END { print n + 0 }')
[ "$matched" -gt 60 ] || fail "only $matched handles: the fixture should have more than the 50 listed"
# rows TABLE_TEXT: the rows of the last table of a text output (after its title and header).
listed() { awk 'BEGIN { n = -1 } /^Roots \(/ { n = 0; next } n >= 0 && /^$/ { exit } n >= 0 { n++ } END { print n - 1 }'; }
text=$("$g" roots "$snap" --kind handle)
[ "$(printf '%s\n' "$text" | listed)" -eq 50 ] || fail "a table lists $(printf '%s\n' "$text" | listed) rows, not 50"
printf '%s\n' "$text" | grep -q "^Roots (first 50 of $matched that match" || fail "the list's title does not say 50 of $matched"
printf '%s\n' "$text" | grep -q "note: listing the first 50 of $matched roots: --top N or --all" || fail "no note on the rows not listed"
types=$(printf '%s\n' "$text" | awk '/^Roots of GC .* by their object.s type/ { t = 1; next } t && /^$/ { exit } t { n++ } END { print n - 1 }')
[ "$types" -eq 10 ] || fail "the summary by type shows $types types, not 10"
[ "$("$g" roots "$snap" --kind handle --all | listed)" -eq "$matched" ] || fail "--all does not list every match"
[ "$("$g" roots "$snap" --kind handle --top 7 | listed)" -eq 7 ] || fail "--top 7 does not list 7"
"$g" roots "$snap" --kind handle --top 7 | grep -q "note: listing" && fail "--top 7 still notes the rows not listed"
csv_rows=$("$g" roots "$snap" --kind handle --format csv | tr -d '\r' | awk '/^$/ { t++; n = -1; next } t == 2 { n++ } END { print n }')
[ "$csv_rows" -eq "$matched" ] || fail "CSV lists $csv_rows roots, not every one of $matched"
# The summary by type in JSON: every type, its counts summing to every match.
json_sum=$("$g" roots "$snap" --kind handle --format json |
  awk '/"types": \[/ { t = 1; next } t && /^ *\]/ { exit } t { sub(/.*"count": /, ""); sub(/,.*/, ""); n += $0 } END { print n + 0 }')
[ "$json_sum" -eq "$matched" ] || fail "the JSON summary by type counts $json_sum roots, not $matched"
# The summary by type against the list: per type name, the roots listed and their distinct
# objects (the summary counts type ids and joins ids that share a name).
"$g" roots "$snap" --format csv | tr -d '\r' | awk -F, '
  /^$/ { t++; next }
  t == 1 && $1 != "type" { summary[$1] = $2 "," $3 }
  t == 2 && $1 != "address" { roots[$2]++; if (!seen[$2 SUBSEP $1]++) objects[$2]++ }
  END {
    for (k in roots) { if (summary[k] != roots[k] "," objects[k]) { print "type " k ": summary " summary[k] ", list " roots[k] "," objects[k]; bad = 1 } n++ }
    for (k in summary) if (!(k in roots)) { print "type " k " summarized, never listed"; bad = 1 }
    if (n < 10) { print "only " n " types listed"; bad = 1 }
    exit bad }' >"$dir/types" || fail "the summary by type disagrees with the list: $(head -3 "$dir/types")"
if "$g" roots "$snap" --all --top 3 >/dev/null 2>"$dir/err"; then fail "--all --top 3 was accepted"; fi
grep -q "excludes" "$dir/err" || fail "--all --top 3: $(cat "$dir/err")"
echo "roots_paging: $matched handles: 50 listed in a table, all with --all and in CSV"
