#!/usr/bin/env bash
# The ClrMD oracle e2e test:
#   oracle_test.sh GCSNAP COMPARE_TEST OUT_DIR WORK_DIR [MODE [MAJOR APP_DLL]]
#  1. MODE record (the default): gcsnap record --policy none the oracle app; MODE events: the
#     same with --source events; MODE attach: the
#     app runs with no profiler variables. It builds its heap, collects, says ready and waits
#     on stdin without allocating;
#  2. gcsnap snapshot PID (an on-demand heap walk: through the recording shim, or by attaching
#     the shim), then a full core dump of the same process with the runtime's createdump
#     (beside libcoreclr.so), then stdin is closed and the app exits;
#  3. the ClrMD oracle walks the dump with the DAC beside libcoreclr.so (libmscordaccore.so) and
#     writes what it sees; COMPARE_TEST (Catch2, [oracle]) compares it with the recording.
# MAJOR (8, 9, 10, 11) runs APP_DLL on that runtime's root from scripts/runtimes.sh (rolled
# forward from its target), with that runtime's createdump and DAC. In record mode on a
# runtime root, decoy profiler variables under the DOTNET_ names (read by .NET 11) are set
# too: gcsnap record must still load its shim.
# Fails (never skips) when dotnet, the runtime pack, createdump, the DAC or ClrMD is missing.
set -uo pipefail
gcsnap=$1 compare=$2 out=$3 work=$4 mode=${5:-record} major=${6:-} app=${7:-$3/oracle_app/Gcsnap.OracleApp.dll}
fail() { echo "oracle: FAIL: $*" >&2; exit 1; }
command -v dotnet >/dev/null 2>&1 || fail "'dotnet' is not on PATH"
oracle=$out/clrmd_oracle/Gcsnap.ClrmdOracle.dll
[ -f "$app" ] && [ -f "$oracle" ] || fail "$app or $oracle is missing (the e2e.build_oracle fixture builds them)"
[ "$mode" = record ] || [ "$mode" = attach ] || [ "$mode" = events ] || fail "mode '$mode' is not record, attach or events"
# MODE events: as record, with the events source (docs/shim.md "Sources"): the snapshot is the
# heap dump of an EventPipe session around a forced GC.
source_opts=(--source profiler)
[ "$mode" = events ] && source_opts=(--source events) && mode=record
run_app=(dotnet "$app") decoy=()
if [ -n "$major" ]; then
  line=$("$(dirname "$0")/../../scripts/runtimes.sh" "$major" | tail -1) || fail "scripts/runtimes.sh $major failed"
  read -r _ version root <<<"$line"
  runtime_dir=$root/shared/Microsoft.NETCore.App/$version
  run_app=(env DOTNET_ROOT="$root" DOTNET_ROLL_FORWARD=Major "$root/dotnet" "$app")
  decoy=(DOTNET_ENABLE_PROFILING=1 DOTNET_PROFILER='{11111111-2222-3333-4444-555555555555}'
         DOTNET_PROFILER_PATH=/nonexistent/libdecoy_profiler.so)
else
  # The shared runtime the app runs on: createdump and the DAC ship beside its libcoreclr.so.
  runtime_dir=$(dotnet --list-runtimes | sed -n 's/^Microsoft\.NETCore\.App \(10\.[^ ]*\) \[\(.*\)\]$/\2\/\1/p' | tail -1)
  version=10
fi
[ -n "$runtime_dir" ] && [ -f "$runtime_dir/libcoreclr.so" ] || fail "no Microsoft.NETCore.App $version runtime (libcoreclr.so in '$runtime_dir')"
createdump=$runtime_dir/createdump dac=$runtime_dir/libmscordaccore.so
[ -x "$createdump" ] || fail "createdump is missing beside libcoreclr.so ($createdump)"
[ -f "$dac" ] || fail "the DAC is missing beside libcoreclr.so ($dac)"

rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
snap=$work/oracle.snap dump=$work/oracle.dmp truth=$work/truth.tsv fifo=$work/stdin
mkfifo "$fifo" || fail "mkfifo failed"
# The app waits on stdin: a FIFO held open here until the dump is taken. Tiered compilation is
# off so that no background JIT work allocates between the snapshot and the dump.
if [ "$mode" = record ]; then
  env "${decoy[@]}" DOTNET_TieredCompilation=0 "$gcsnap" record "${source_opts[@]}" --policy none -o "$snap" -- "${run_app[@]}" \
    <"$fifo" >"$work/app.out" 2>"$work/app.err" &
else
  env -u CORECLR_ENABLE_PROFILING -u DOTNET_ENABLE_PROFILING DOTNET_TieredCompilation=0 \
    "${run_app[@]}" <"$fifo" >"$work/app.out" 2>"$work/app.err" &
fi
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
if [ "$mode" = record ]; then
  "$gcsnap" snapshot "$pid" || fail "gcsnap snapshot $pid failed"
else
  "$gcsnap" snapshot "$pid" -o "$snap" || fail "gcsnap snapshot $pid (attach) failed"
fi
# A thread that ends while createdump suspends the others fails the dump ("ptrace(ATTACH, TID)
# FAILED No such process"): after an attach, the runtime's attach and detach threads end just
# then (seen on 8.0.34). Such a dump is tried again; nothing runs managed code meanwhile.
for attempt in 1 2 3; do
  "$createdump" -f "$dump" "$pid" >"$work/createdump.log" 2>&1 && break
  grep -q "ptrace(ATTACH, [0-9]*) FAILED No such process" "$work/createdump.log" && [ "$attempt" -lt 3 ] ||
    { cat "$work/createdump.log"; fail "createdump failed"; }
  rm -f "$dump"; sleep 0.5
done
exec 7>&-
wait "$record_pid"
rc=$?
trap - EXIT
cat "$work/app.out" "$work/app.err"
[ "$rc" -eq 0 ] || fail "the app (mode $mode) exited $rc"
grep -q '^oracle-app: done' "$work/app.out" || fail "the app did not finish"
dotnet "$oracle" "$dump" "$dac" "$truth" || fail "the ClrMD oracle failed on $dump"
rm -f "$dump"  # ~100 MB: the TSV holds what the comparison needs
GCSNAP_ORACLE_SNAP=$snap GCSNAP_ORACLE_TRUTH=$truth "$compare" "[oracle]" || fail "gcsnap disagrees with ClrMD (see above)"
echo "oracle: gcsnap agrees with ClrMD (runtime $version, $mode, ${source_opts[1]})"
