#!/usr/bin/env bash
# The ClrMD oracle e2e test: oracle_test.sh GCSNAP COMPARE_TEST OUT_DIR WORK_DIR
#  1. gcsnap record --policy none the oracle app; it builds its heap, collects, says ready and
#     waits on stdin without allocating;
#  2. gcsnap snapshot PID (an on-demand heap walk), then a full core dump of the same process
#     with the runtime's createdump (beside libcoreclr.so), then stdin is closed and the app exits;
#  3. the ClrMD oracle walks the dump with the DAC beside libcoreclr.so (libmscordaccore.so) and
#     writes what it sees; COMPARE_TEST (Catch2, [oracle]) compares it with the recording.
# Fails (never skips) when dotnet, createdump, the DAC or ClrMD is missing.
set -uo pipefail
gcsnap=$1 compare=$2 out=$3 work=$4
fail() { echo "oracle: FAIL: $*" >&2; exit 1; }
command -v dotnet >/dev/null 2>&1 || fail "'dotnet' is not on PATH"
app=$out/oracle_app/Gcsnap.OracleApp.dll oracle=$out/clrmd_oracle/Gcsnap.ClrmdOracle.dll
[ -f "$app" ] && [ -f "$oracle" ] || fail "$app or $oracle is missing (the e2e.build_oracle fixture builds them)"
# The shared runtime the app runs on: createdump and the DAC ship beside its libcoreclr.so.
runtime_dir=$(dotnet --list-runtimes | sed -n 's/^Microsoft\.NETCore\.App \(10\.[^ ]*\) \[\(.*\)\]$/\2\/\1/p' | tail -1)
[ -n "$runtime_dir" ] && [ -f "$runtime_dir/libcoreclr.so" ] || fail "no Microsoft.NETCore.App 10.x runtime in 'dotnet --list-runtimes'"
createdump=$runtime_dir/createdump dac=$runtime_dir/libmscordaccore.so
[ -x "$createdump" ] || fail "createdump is missing beside libcoreclr.so ($createdump)"
[ -f "$dac" ] || fail "the DAC is missing beside libcoreclr.so ($dac)"

rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
snap=$work/oracle.snap dump=$work/oracle.dmp truth=$work/truth.tsv fifo=$work/stdin
mkfifo "$fifo" || fail "mkfifo failed"
# The app waits on stdin: a FIFO held open here until the dump is taken. Tiered compilation is
# off so that no background JIT work allocates between the snapshot and the dump.
DOTNET_TieredCompilation=0 "$gcsnap" record --policy none -o "$snap" -- dotnet "$app" <"$fifo" >"$work/app.out" 2>"$work/app.err" &
record_pid=$!
exec 7>"$fifo"
cleanup() { exec 7>&- 2>/dev/null; kill "$record_pid" 2>/dev/null; }
trap cleanup EXIT
for _ in $(seq 1 240); do
  grep -q '^oracle-app: ready' "$work/app.out" 2>/dev/null && break
  kill -0 "$record_pid" 2>/dev/null || break
  sleep 0.25
done
pid=$(sed -n 's/^oracle-app: ready pid=\([0-9]*\).*/\1/p' "$work/app.out")
[ -n "$pid" ] || { cat "$work/app.out" "$work/app.err"; fail "the app never said ready"; }
"$gcsnap" snapshot "$pid" || fail "gcsnap snapshot $pid failed"
"$createdump" -f "$dump" "$pid" >"$work/createdump.log" 2>&1 || { cat "$work/createdump.log"; fail "createdump failed"; }
exec 7>&-
wait "$record_pid"
rc=$?
trap - EXIT
cat "$work/app.out" "$work/app.err"
[ "$rc" -eq 0 ] || fail "gcsnap record exited $rc"
grep -q '^oracle-app: done' "$work/app.out" || fail "the app did not finish"
dotnet "$oracle" "$dump" "$dac" "$truth" || fail "the ClrMD oracle failed on $dump"
rm -f "$dump"  # ~100 MB: the TSV holds what the comparison needs
GCSNAP_ORACLE_SNAP=$snap GCSNAP_ORACLE_TRUTH=$truth "$compare" "[oracle]" || fail "gcsnap disagrees with ClrMD (see above)"
echo "oracle: gcsnap agrees with ClrMD"
