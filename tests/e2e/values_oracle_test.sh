#!/usr/bin/env bash
# inspect against ClrMD on the values app (issue 44):
#   values_oracle_test.sh GCSNAP APP_DLL ORACLE_OUT MAJOR WORK_DIR
# gcsnap record --policy none the values app (values_app/) on runtime MAJOR, snapshot it when
# ready, take a full core dump of the same moment with the runtime's createdump, and have the
# ClrMD oracle (clrmd_oracle/, --values) say how many Order.Status strings copy a string of equal
# content at a lower address (and their bytes), how many Shelf.Empty lists are empty, and how
# many Finalizable objects the finalizer queue holds; inspect must say the same.
# Fails (never skips) when dotnet, the runtime, createdump, the DAC or ClrMD is missing.
set -uo pipefail
gcsnap=$1 app=$2 out=$3 major=$4 work=$5
fail() { echo "values-oracle: FAIL: $*" >&2; exit 1; }
command -v dotnet >/dev/null 2>&1 || fail "'dotnet' is not on PATH"
oracle=$out/clrmd_oracle/Gcsnap.ClrmdOracle.dll
[ -f "$app" ] && [ -f "$oracle" ] || fail "$app or $oracle is missing (the e2e.build_values_app and e2e.build_oracle fixtures build them)"
line=$("$(dirname "$0")/../../scripts/runtimes.sh" --aspnet "$major" | tail -1) || fail "scripts/runtimes.sh $major failed"
read -r _ version root <<<"$line"
runtime_dir=$root/shared/Microsoft.NETCore.App/$version
createdump=$runtime_dir/createdump dac=$runtime_dir/libmscordaccore.so
[ -x "$createdump" ] && [ -f "$dac" ] || fail "createdump or the DAC is missing in $runtime_dir"
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
snap=$work/values.snap dump=$work/values.dmp truth=$work/truth.tsv fifo=$work/stdin
mkfifo "$fifo" || fail "mkfifo failed"
DOTNET_ROOT="$root" DOTNET_ROLL_FORWARD=Major "$gcsnap" record --policy none -o "$snap" -- "$root/dotnet" "$app" \
  <"$fifo" >"$work/app.out" 2>"$work/app.err" &
app_pid=$!
exec 7>"$fifo"
for _ in $(seq 1 240); do
  grep -q '^values-app: ready' "$work/app.out" 2>/dev/null && break
  kill -0 "$app_pid" 2>/dev/null || break
  sleep 0.25
done
pid=$(sed -n 's/^values-app: ready pid=\([0-9]*\).*/\1/p' "$work/app.out")
[ -n "$pid" ] || { exec 7>&-; cat "$work/app.out" "$work/app.err"; fail "the app never said ready"; }
"$gcsnap" snapshot "$pid" >/dev/null || { exec 7>&-; fail "gcsnap snapshot $pid failed"; }
"$createdump" -f "$dump" "$pid" >"$work/createdump.log" 2>&1 || { exec 7>&-; cat "$work/createdump.log"; fail "createdump failed"; }
exec 7>&-
wait "$app_pid" || { cat "$work/app.err"; fail "the recorded app exited non-zero"; }
dotnet "$oracle" "$dump" "$dac" "$truth" --values >"$work/oracle.out" 2>&1 || { cat "$work/oracle.out"; fail "the ClrMD oracle failed"; }
rm -f "$dump"
"$gcsnap" inspect "$snap" --table findings --format csv >"$work/inspect.csv" 2>"$work/inspect.err" || { cat "$work/inspect.err"; fail "inspect failed"; }
rows=$(python3 -c 'import csv, sys; [print("\t".join(r)) for r in list(csv.reader(open(sys.argv[1], newline="")))[1:]]' "$work/inspect.csv")
truth_of() { awk -F'\t' -v k="$1" -v c="$2" '$1 == "values" && $2 == k { print $c }' "$truth"; }
want_wasted=$(truth_of status_wasted 3) want_bytes=$(truth_of status_wasted 4)
want_empty=$(truth_of empty_lists 3) want_final=$(truth_of finalizable 3)
[ -n "$want_wasted" ] && [ -n "$want_final" ] || { cat "$truth" | tail -5; fail "the oracle wrote no values"; }
got_wasted=$(awk -F'\t' '$1 == "duplicate-strings" && $4 == "Gcsnap.ValuesApp.Order.Status" { print $3 }' <<<"$rows")
got_bytes=$(awk -F'\t' '$1 == "duplicate-strings" && $4 == "Gcsnap.ValuesApp.Order.Status" { print $2 }' <<<"$rows")
got_empty=$(awk -F'\t' '$1 == "empty-collection" && $4 == "Gcsnap.ValuesApp.Shelf.Empty"' <<<"$rows" | wc -l)
got_final=$(awk -F'\t' '$1 == "finalizable" && $5 ~ / Gcsnap\.ValuesApp\.Finalizable awaiting/ { print $3 }' <<<"$rows")
[ "$got_wasted" = "$want_wasted" ] || fail "$version: inspect counts $got_wasted wasted Order.Status copies, ClrMD $want_wasted"
[ "$got_bytes" = "$want_bytes" ] || fail "$version: inspect counts $got_bytes bytes of wasted Order.Status copies, ClrMD $want_bytes"
[ "$got_empty" = "$want_empty" ] || fail "$version: inspect lists $got_empty empty Shelf.Empty lists, ClrMD $want_empty"
[ "$got_final" = "$want_final" ] || fail "$version: inspect counts $got_final Finalizable objects in the queue, ClrMD $want_final"
echo "values-oracle: $version: inspect agrees with ClrMD ($want_wasted wasted copies, $want_bytes bytes; $want_empty empty lists; $want_final finalizable)"
