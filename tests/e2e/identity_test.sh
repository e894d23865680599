#!/usr/bin/env bash
# The identity oracle: gcsnap's identity across GCs against ClrMD on core dumps of two moments.
#   identity_test.sh GCSNAP ORACLE_OUT WORK_DIR MAJOR APP_DLL [SOURCE [GC]]
#  1. gcsnap record --source SOURCE (default events) --policy none runs the oracle app's
#     identity scenario (oracle_app/IdentityScenario.cs) on .NET MAJOR, with concurrent GC on;
#     GC server: with server GC (DOTNET_gcServer=1, two heaps: one stream of range events per
#     heap, on each heap's GC thread), else workstation GC;
#  2. at each of its two moments: gcsnap snapshot PID (a walk), then a core dump (createdump
#     beside libcoreclr.so). Between them the app drops a third of its Zoo.Tracked objects,
#     adds new ones and runs background and compacting GCs; it reports how many background
#     GCs ended, and the test requires at least one;
#  3. ClrMD lists each dump's reachable Zoo.Tracked objects with their Id field (the object's
#     identity, whatever its address) and identity_compare.py checks gcsnap diff's surviving,
#     dead and new counts of Zoo.Tracked and gcsnap where for sampled objects against it.
# Fails (never skips) when dotnet, the runtime, createdump, the DAC or ClrMD is missing.
set -uo pipefail
gcsnap=$1 out=$2 work=$3 major=$4 app=$5 source=${6:-events} gc=${7:-workstation}
here=$(dirname "$0")
fail() { echo "identity: FAIL: $*" >&2; exit 1; }
command -v dotnet >/dev/null 2>&1 || fail "'dotnet' is not on PATH"
command -v python3 >/dev/null 2>&1 || fail "'python3' is not on PATH"
oracle=$out/clrmd_oracle/Gcsnap.ClrmdOracle.dll
[ -f "$app" ] && [ -f "$oracle" ] || fail "$app or $oracle is missing (the e2e oracle and runtime fixtures build them)"
line=$("$here/../../scripts/runtimes.sh" "$major" | tail -1) || fail "scripts/runtimes.sh $major failed"
read -r _ version root <<<"$line"
runtime_dir=$root/shared/Microsoft.NETCore.App/$version
createdump=$runtime_dir/createdump dac=$runtime_dir/libmscordaccore.so
[ -x "$createdump" ] || fail "createdump is missing beside libcoreclr.so ($createdump)"
[ -f "$dac" ] || fail "the DAC is missing beside libcoreclr.so ($dac)"

rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
snap=$work/identity.snap fifo=$work/stdin
mkfifo "$fifo" || fail "mkfifo failed"
# The oracle app's runtimeconfig turns concurrent GC off; the variable turns it back on.
gc_env=()
case $gc in
  workstation) ;;
  server) gc_env=(DOTNET_gcServer=1 DOTNET_GCHeapCount=2) ;;
  *) fail "GC '$gc' is not workstation or server" ;;
esac
# A 64 KiB gen0 budget: the churn's allocations run natural gen0 GCs while a background GC
# marks, foreground GCs nested inside it, which the identity must survive too.
env "${gc_env[@]}" GCSNAP_DIAGNOSTICS=1 DOTNET_GCgen0size=0x10000 DOTNET_gcConcurrent=1 DOTNET_TieredCompilation=0 DOTNET_ROOT="$root" DOTNET_ROLL_FORWARD=Major \
  "$gcsnap" record --source "$source" --policy none -o "$snap" -- "$root/dotnet" "$app" identity \
  <"$fifo" >"$work/app.out" 2>"$work/app.err" &
record_pid=$!
exec 7>"$fifo"
cleanup() { exec 7>&- 2>/dev/null; kill "$record_pid" 2>/dev/null; }
trap cleanup EXIT

# moment N: wait for the app's ready line, walk, dump.
moment() {
  local n=$1 pid=""
  for _ in $(seq 1 240); do
    grep -q "^oracle-app: ready .*moment=$n" "$work/app.out" 2>/dev/null && break
    kill -0 "$record_pid" 2>/dev/null || break
    sleep 0.25
  done
  pid=$(sed -n "s/^oracle-app: ready pid=\([0-9]*\) moment=$n.*/\1/p" "$work/app.out")
  [ -n "$pid" ] || { cat "$work/app.out" "$work/app.err"; fail "the app never reached moment $n"; }
  "$gcsnap" snapshot "$pid" || fail "gcsnap snapshot $pid (moment $n) failed"
  "$createdump" -f "$work/moment$n.dmp" "$pid" >"$work/createdump$n.log" 2>&1 ||
    { cat "$work/createdump$n.log"; fail "createdump failed at moment $n"; }
}
moment 1
echo go >&7
moment 2
exec 7>&-
wait "$record_pid"
rc=$?
trap - EXIT
cat "$work/app.out" "$work/app.err"
[ "$rc" -eq 0 ] || fail "the app exited $rc"
grep -q '^oracle-app: done' "$work/app.out" || fail "the app did not finish"
bgc=$(sed -n 's/^oracle-app: ready .*moment=2 bgc=\([0-9]*\).*/\1/p' "$work/app.out")
[ "${bgc:-0}" -gt 0 ] || fail "no background GC ended between the two moments (bgc=${bgc:-?})"
# Foreground GCs (ephemeral GCs inside a background GC, GCStart type 2), as the shim counted them.
fgc=0
if [ "$source" = events ]; then
  fgc=$(sed -n 's/^gcsnap: diagnostics: events source: [0-9]* GCs ([0-9]* background, \([0-9]*\) foreground).*/\1/p' "$work/app.err")
  [ -n "$fgc" ] || fail "the shim's diagnostics do not count foreground GCs"
  [ "$fgc" -gt 0 ] || fail "no foreground GC ran inside a background GC (the identity across one is not checked)"
fi
for n in 1 2; do
  dotnet "$oracle" "$work/moment$n.dmp" "$dac" "$work/truth$n.tsv" Zoo.Tracked || fail "the ClrMD oracle failed on moment $n"
  rm -f "$work/moment$n.dmp"  # ~100 MB each: the TSV holds what the comparison needs
done
python3 "$here/identity_compare.py" "$gcsnap" "$snap" "$work/truth1.tsv" "$work/truth2.tsv" ||
  fail "gcsnap's identity disagrees with ClrMD (see above)"
echo "identity: gcsnap agrees with ClrMD across $bgc background GCs and $fgc foreground GCs inside them (runtime $version, --source $source, $gc GC)"
