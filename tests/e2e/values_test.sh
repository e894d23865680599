#!/usr/bin/env bash
# Values and inspect on one runtime and source (issue 44):
#   values_test.sh GCSNAP APP_DLL MAJOR SOURCE WORK_DIR
# gcsnap record --source SOURCE --policy none the values app (values_app/) on runtime MAJOR,
# once without and once with --capture-strings, snapshots it when it says ready, and checks
# `inspect` against what the app made: the duplicate Status strings under Order.Status (36 or 40
# bytes each), 40 empty lists under Shelf.Empty, the sparse dictionary under
# Catalog.Sparse, the MemoryCache at its limit under Program.s_cache, 24 Finalizable objects in
# the finalizer queue. Privacy: without the flag no content is shown and info says so; with it
# the examples are the app's strings, and strip-strings makes a copy without them that verifies
# and inspects the same. Fails (never skips) when dotnet or the runtime is missing.
set -uo pipefail
gcsnap=$1 app=$2 major=$3 source=$4 work=$5
fail() { echo "values: FAIL: $*" >&2; exit 1; }
command -v dotnet >/dev/null 2>&1 || fail "'dotnet' is not on PATH"
[ -f "$app" ] || fail "$app is missing (the e2e.build_values_app fixture builds it)"
line=$("$(dirname "$0")/../../scripts/runtimes.sh" --aspnet "$major" | tail -1) || fail "scripts/runtimes.sh $major failed"
read -r _ version root <<<"$line"
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"

# record NAME [RECORD OPTIONS...]: the app recorded into $work/NAME.snap, snapshotted once ready.
record() {
  local name=$1 fifo=$work/$1.stdin pid app_pid
  shift
  mkfifo "$fifo" || fail "mkfifo failed"
  DOTNET_ROOT="$root" DOTNET_ROLL_FORWARD=Major "$gcsnap" record --source "$source" --policy none "$@" \
    -o "$work/$name.snap" -- "$root/dotnet" "$app" <"$fifo" >"$work/$name.out" 2>"$work/$name.err" &
  app_pid=$!
  exec 7>"$fifo"
  for _ in $(seq 1 240); do
    grep -q '^values-app: ready' "$work/$name.out" 2>/dev/null && break
    kill -0 "$app_pid" 2>/dev/null || break
    sleep 0.25
  done
  pid=$(sed -n 's/^values-app: ready pid=\([0-9]*\).*/\1/p' "$work/$name.out")
  [ -n "$pid" ] || { exec 7>&-; cat "$work/$name.out" "$work/$name.err"; fail "$version $source: the app never said ready"; }
  "$gcsnap" snapshot "$pid" >"$work/$name.snapshot" 2>&1 || { exec 7>&-; cat "$work/$name.snapshot"; fail "$version $source: gcsnap snapshot failed"; }
  exec 7>&-
  wait "$app_pid" || { cat "$work/$name.out" "$work/$name.err"; fail "$version $source: the recorded app exited non-zero"; }
  grep -q '^values-app: done' "$work/$name.out" || fail "$version $source: the app did not finish"
}

# findings FILE: the findings table of `inspect FILE` as tab-separated rows (kind, bytes,
# objects, holder, what, example), picked by the header's names so that a column added to
# the table does not shift them; type names hold commas.
findings() {
  "$gcsnap" inspect "$1" --table findings --format csv >"$work/inspect.csv" 2>"$work/inspect.err" ||
    { cat "$work/inspect.err"; fail "$version $source: gcsnap inspect $1 exited non-zero"; }
  python3 - "$work/inspect.csv" <<'PY' || fail "$version $source: the findings table lacks a column"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
at = {name: i for i, name in enumerate(rows[0])}
names = ["kind", "bytes", "objects", "holder", "what", "example"]
missing = [n for n in names if n not in at]
if missing:
    sys.exit(f"no column {missing} in {rows[0]}")
for r in rows[1:]:
    print("\t".join(r[at[n]] for n in names))
PY
}

check_findings() {
  local file=$1 csv dup_objects dup_bytes empty sparse cache final
  csv=$(findings "$file")
  dup_objects=$(awk -F'\t' '$1 == "duplicate-strings" && $4 == "Gcsnap.ValuesApp.Order.Status" { print $3 }' <<<"$csv")
  dup_bytes=$(awk -F'\t' '$1 == "duplicate-strings" && $4 == "Gcsnap.ValuesApp.Order.Status" { print $2 }' <<<"$csv")
  [ -n "$dup_objects" ] || { echo "$csv"; fail "$version $source: no duplicate strings under Order.Status"; }
  # 300 Status strings of 3 contents: 297 wasted copies, 300 when the literals were walked too.
  [ "$dup_objects" -ge 297 ] && [ "$dup_objects" -le 300 ] || fail "$version $source: $dup_objects wasted Status copies, the app made 297 (300 with its literals)"
  # A copy of "Pending" or "Shipped" is 36 bytes (22 + 2 per char), of "Cancelled" 40.
  [ "$dup_bytes" -ge $((dup_objects * 36)) ] && [ "$dup_bytes" -le $((dup_objects * 40)) ] ||
    fail "$version $source: the Status copies waste $dup_bytes bytes, $dup_objects strings of 36 to 40 bytes make $((dup_objects * 36)) to $((dup_objects * 40))"
  empty=$(awk -F'\t' '$1 == "empty-collection" && $4 == "Gcsnap.ValuesApp.Shelf.Empty" && $5 ~ /: 0 of 32$/' <<<"$csv" | wc -l)
  [ "$empty" -eq 40 ] || { echo "$csv"; fail "$version $source: $empty empty lists under Shelf.Empty, the app made 40"; }
  sparse=$(awk -F'\t' '$1 == "sparse-collection" && $4 == "Gcsnap.ValuesApp.Catalog.Sparse" && $5 ~ /: 2 of [0-9]+$/' <<<"$csv" | wc -l)
  [ "$sparse" -eq 1 ] || { echo "$csv"; fail "$version $source: the sparse dictionary under Catalog.Sparse is not listed once"; }
  cache=$(awk -F'\t' '$1 == "cache-at-limit" && $4 == "Gcsnap.ValuesApp.Program.s_cache" && $5 ~ /size 50 of limit 50, 50 entries$/' <<<"$csv" | wc -l)
  [ "$cache" -eq 1 ] || { echo "$csv"; fail "$version $source: the MemoryCache at its limit is not listed under Program.s_cache"; }
  final=$(awk -F'\t' '$1 == "finalizable" && $5 ~ / Gcsnap\.ValuesApp\.Finalizable awaiting/ { print $3 }' <<<"$csv")
  [ "$final" = 24 ] || { echo "$csv"; fail "$version $source: '$final' Finalizable objects in the finalizer queue, the app left 24"; }
  echo "$csv"
}

# Without --capture-strings: hashes only, no content anywhere.
record plain
csv=$(check_findings "$work/plain.snap") || exit 1
awk -F'\t' '$1 == "duplicate-strings" && $6 != ""' <<<"$csv" | grep -q . && fail "$version $source: content shown without --capture-strings"
"$gcsnap" info "$work/plain.snap" >"$work/plain.info" 2>&1 || fail "$version $source: info failed"
grep -q "strings recorded as length and keyed hash at 1 heap walk(s); no string content" "$work/plain.info" ||
  { cat "$work/plain.info"; fail "$version $source: info does not say the file holds no string content"; }

# With --capture-strings=16: the examples are the app's strings; strip-strings removes them.
record captured --capture-strings=16
csv=$(check_findings "$work/captured.snap") || exit 1
awk -F'\t' '$1 == "duplicate-strings" && $4 == "Gcsnap.ValuesApp.Order.Status" { print $6 }' <<<"$csv" | grep -Eq '^(Pending|Shipped|Cancelled)$' ||
  { echo "$csv"; fail "$version $source: the captured example is not one of the app's statuses"; }
"$gcsnap" info "$work/captured.snap" | grep -q "their first 16 characters too at 1 walk(s)" || fail "$version $source: info does not say content was captured"
"$gcsnap" strip-strings "$work/captured.snap" -o "$work/stripped.snap" >"$work/strip.out" 2>&1 || { cat "$work/strip.out"; fail "$version $source: strip-strings failed"; }
grep -Eq "1 string-contents sections|[1-9][0-9]* string-contents sections" "$work/strip.out" || { cat "$work/strip.out"; fail "$version $source: strip-strings removed no section"; }
"$gcsnap" verify "$work/stripped.snap" >"$work/verify.out" 2>&1 || { cat "$work/verify.out"; fail "$version $source: the stripped copy does not verify"; }
csv=$(check_findings "$work/stripped.snap") || exit 1
awk -F'\t' '$1 == "duplicate-strings" && $6 != ""' <<<"$csv" | grep -q . && fail "$version $source: content left after strip-strings"
"$gcsnap" info "$work/stripped.snap" | grep -q "captured content removed (strip-strings) at 1 walk(s)" || fail "$version $source: info does not say content was removed"
echo "values: $version $source: inspect agrees with the app; no content without the flag, none after strip-strings"
