#!/usr/bin/env bash
# The Windows process commands under Wine, one case per run:
# win_process_cases.sh CASE WINE_RUN GCSNAP_EXE APP_EXE IDLE_EXE WORK_DIR LINUX_BUILD
# APP_EXE is the e2e sample app published for win-x64 (self-contained), IDLE_EXE a Windows
# program that is not .NET (idle_process.cpp). Each case asserts the exit code, that an error is
# one line naming what is wrong, and that a target is left running as it was. The record_* and
# snapshot_* cases that make recordings check them with the Linux gcsnap and e2e tests of
# LINUX_BUILD (the same assertions as the Linux e2e cases).
set -euo pipefail
case=$1 wine_run=$2 gcsnap=$3 app=$4 idle=$5 work=$6/$1 linux_build=${7:-}
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "FAIL ($case): $*" >&2; exit 1; }
show() { echo "--- $1:"; cat "$1"; }
[ -x "$wine_run" ] || fail "no Wine wrapper at $wine_run (scripts/build-windows.sh writes it)"
# The Wine prefix is made with the wrapper's own overrides (no Mono install); .NET apps need
# Wine's mscoree for their IL-only assemblies, so the runs below keep only mshtml off.
"$wine_run" cmd.exe /c exit 0 >/dev/null 2>&1 || fail "wine does not start ($wine_run)"
export WINEDLLOVERRIDES="mshtml="
winpath() { printf 'Z:%s' "${1//\//\\}"; }

# run NAME ARGS...: gcsnap.exe ARGS, stdout in NAME.out, stderr in NAME.err, exit code in $rc.
run() {
  local name=$1; shift
  rc=0
  timeout 120 "$wine_run" "$gcsnap" "$@" >"$name.out" 2>"$name.err" || rc=$?
}
# expect_error NAME RC PATTERN: the run NAME exited RC with one stderr line matching PATTERN.
expect_error() {
  [ "$rc" -eq "$2" ] || { show "$1.out"; show "$1.err"; fail "$1: exit $rc, expected $2"; }
  [ "$(wc -l <"$1.err")" -eq 1 ] || { show "$1.err"; fail "$1: the error is not one line"; }
  grep -Eq "^gcsnap: error: $3" "$1.err" || { show "$1.err"; fail "$1: the error does not match '$3'"; }
}
# start_target NAME EXE ARGS...: run EXE with its stdin on a fifo kept open by fd 7; wait for
# its first line and set $target_pid from "pid=N" in it.
start_target() {
  local name=$1; shift
  mkfifo "$name.in"
  "$wine_run" "$@" <"$name.in" >"$name.target" 2>&1 &
  target_job=$!
  exec 7>"$name.in"
  for _ in $(seq 1 600); do
    grep -q "pid=" "$name.target" 2>/dev/null && break
    sleep 0.1
  done
  target_pid=$(sed -n 's/.*pid=\([0-9]*\).*/\1/p' "$name.target" | head -1)
  [ -n "$target_pid" ] || { show "$name.target"; fail "$name: the target did not start"; }
}
# stop_target NAME DONE_PATTERN: close the target's stdin; it must end by itself, exit 0,
# and print DONE_PATTERN (it ran on unharmed).
stop_target() {
  exec 7>&-
  local trc=0
  wait "$target_job" || trc=$?
  [ "$trc" -eq 0 ] || { show "$1.target"; fail "$1: the target exited $trc"; }
  grep -q "$2" "$1.target" || { show "$1.target"; fail "$1: the target did not finish ('$2')"; }
}
# expect_recorded ERR SNAP OUT: ERR has record's summary of SNAP with the app's four walks, and
# at least as many GCs as the runtime had counted when the app printed its facts (OUT): the
# runtime may collect on its own as well (a gen0 GC during startup when its gen0 budget is small,
# as under Wine on some CPUs), and every GC it makes is recorded.
expect_recorded() {
  local gen0 gcs
  gen0=$(tr -d '\r' <"$3" | sed -n 's/^gcsnap-sample: mode=.* gen0_count=\([0-9]*\) .*/\1/p')
  [ -n "$gen0" ] || { show "$3"; fail "no gen0_count in the app's facts"; }
  gcs=$(tr -d '\r' <"$1" | sed -nE "s/^gcsnap: recorded ([0-9]+) GCs, 4 snapshots, .* of process [0-9]+ \(Gcsnap\.Sample\) in .*${2//./\\.}; nothing dropped$/\1/p")
  [ -n "$gcs" ] || { show "$1"; fail "no summary line with 4 snapshots for $2"; }
  [ "$gcs" -ge "$gen0" ] || { show "$1"; fail "recorded $gcs GCs of $2; the app's runtime counted $gen0"; }
}
# linux_tools: the Linux gcsnap and e2e_recording_test that check a Windows recording.
linux_tools() {
  linux_gcsnap=$linux_build/bin/gcsnap recording_test=$linux_build/tests/e2e/e2e_recording_test
  [ -x "$linux_gcsnap" ] && [ -x "$recording_test" ] ||
    fail "no Linux gcsnap and e2e_recording_test in '$linux_build' (build Linux first: scripts/build.sh)"
}
# linux_verify FILE: the Linux gcsnap verifies FILE and it ends complete.
linux_verify() {
  "$linux_gcsnap" verify "$1" >verify.out 2>&1 || { show verify.out; fail "Linux gcsnap verify fails on $1"; }
  grep -q 'ends complete: OK' verify.out || { show verify.out; fail "$1 does not end complete"; }
}
# start_record FILE ARGS...: gcsnap.exe record -o FILE -- ARGS in the background (rec_job),
# stdout in rec.out, stderr in rec.err, stdin on a fifo kept open by fd 7.
start_record() {
  local file=$1; shift
  mkfifo rec.in
  "$wine_run" "$gcsnap" record -o "$(winpath "$work")\\$file" -- "$@" <rec.in >rec.out 2>rec.err &
  rec_job=$!
  exec 7>rec.in
}
# end_killed_record FILE: kill the recorded app $target_pid (taskkill /F), wait for record (its
# exit code in $rc), and check that gcsnap finished the file the app left, with its exit code.
end_killed_record() {
  "$wine_run" taskkill /F /PID "$target_pid" >/dev/null 2>&1
  rc=0
  wait "$rec_job" || rc=$?
  exec 7>&-
  show rec.err
  grep -Eq "gcsnap: process $target_pid \(Gcsnap\.Sample\) ended \(exit code [0-9]+\): gcsnap wrote the index of its [0-9]+ complete GCs" rec.err ||
    fail "gcsnap did not finish the file of the killed app (with its exit code)"
  linux_verify "$1"
}
# A file that exists and is no profiler: record starts the app, whose runtime cannot load it.
no_profiler=$(winpath "$gcsnap")

case $case in
  ps_lists_app)
    start_target app "$app" wait 120
    for _ in $(seq 1 100); do grep -q "ready" app.target && break; sleep 0.1; done
    run ps ps
    [ "$rc" -eq 0 ] || { show ps.err; fail "ps exited $rc"; }
    show ps.out
    head -1 ps.out | grep -Eq '^ +PID +NAME +GCSNAP +COMMAND$' || fail "ps printed no header"
    # The app's line: its pid, image, not recorded, and the command line the runtime reports.
    grep -Eq "^ +$target_pid +Gcsnap\.Sample\.exe +- +.*Gcsnap\.Sample\.exe\"? wait 120$" ps.out ||
      fail "ps does not list the app (pid $target_pid) with its command line"
    stop_target app "wait ended by stdin"
    run ps_after ps
    ! grep -Eq "^ +$target_pid " ps_after.out || fail "ps still lists the app after it ended"
    ;;
  snapshot_not_dotnet)
    start_target idle "$idle"
    GCSNAP_SHIM=$no_profiler run snap snapshot "$target_pid"
    expect_error snap 1 "process $target_pid \(idle_process\.exe\) is not a \.NET process \(no diagnostics pipe .*dotnet-diagnostic-$target_pid\)$"
    [ ! -s snap.out ] || fail "snapshot printed on stdout"
    stop_target idle "idle done"
    ;;
  snapshot_no_process)
    run snap snapshot 999999
    expect_error snap 1 "no process 999999$"
    run snap0 snapshot 0
    expect_error snap0 2 "PID must be a positive process id$"
    ;;
  record_missing_exe)
    GCSNAP_SHIM=$no_profiler run rec record -o "$(winpath "$work")\\x.snap" -- nosuch-app.exe
    expect_error rec 127 "command not found: nosuch-app.exe$"
    [ ! -e x.snap ] || fail "a file was left for a command that did not run"
    # Without a shim nothing starts.
    GCSNAP_SHIM='Z:\nowhere\gcsnap_profiler.dll' run noshim record -o "$(winpath "$work")\\y.snap" -- "$(winpath "$app")" exit 3
    expect_error noshim 4 "shim not found: GCSNAP_SHIM=Z:.nowhere.gcsnap_profiler\.dll is not a file$"
    [ ! -s noshim.out ] || fail "the app ran without a shim"
    ;;
  record_bad_output)
    GCSNAP_SHIM=$no_profiler run nodir record -o "$(winpath "$work")\\missing\\x.snap" -- "$(winpath "$app")" exit 3
    expect_error nodir 4 "output path not writable: directory .*missing does not exist$"
    mkdir is-a-dir
    GCSNAP_SHIM=$no_profiler run isdir record -o "$(winpath "$work")\\is-a-dir" -- "$(winpath "$app")" exit 3
    expect_error isdir 4 "output path not writable: .*is-a-dir is a directory$"
    echo old >old.snap
    GCSNAP_SHIM=$no_profiler run exists record -o "$(winpath "$work")\\old.snap" -- "$(winpath "$app")" exit 3
    expect_error exists 4 ".*old\.snap exists; add --force to replace it$"
    [ "$(cat old.snap)" = old ] || fail "an existing output was changed without --force"
    for r in nodir isdir exists; do [ ! -s $r.out ] || fail "$r: the app ran although the output was refused"; done
    ;;
  record_exit_code)
    # The runtime cannot load the profiler: the app runs, its exit code comes back, and gcsnap
    # says in one line that nothing was recorded.
    GCSNAP_SHIM=$no_profiler run rec record -o "$(winpath "$work")\\x.snap" -- "$(winpath "$app")" exit 3
    expect_error rec 3 "nothing was recorded: .*Gcsnap\.Sample\.exe never started the gcsnap profiler"
    grep -q "gcsnap-sample: mode=exit pid=[0-9]* code=3" rec.out || { show rec.out; fail "the app did not run"; }
    ;;
  record_environment)
    # What the app's environment gets: the CoreCLR, DOTNET_ and .NET Framework profiler
    # variables with the shim's path and CLSID, and the shim's output.
    GCSNAP_SHIM=$no_profiler run env record -o "$(winpath "$work")\\x.snap" -- cmd.exe /c \
      echo %CORECLR_ENABLE_PROFILING%,%CORECLR_PROFILER%,%CORECLR_PROFILER_PATH_64%,%DOTNET_PROFILER%,%COR_ENABLE_PROFILING%,%COR_PROFILER%,%COR_PROFILER_PATH%,%GCSNAP_OUTPUT%,%GCSNAP_POLICY%
    expect_error env 4 "nothing was recorded: cmd\.exe never started the gcsnap profiler"
    clsid='{12AFB2D9-48B7-44B1-92F2-A85820746D7E}'
    want="1,$clsid,$no_profiler,$clsid,1,$clsid,$no_profiler,$(winpath "$work")\\x.snap,default"
    got=$(tr -d '\r' <env.out)
    [ "$got" = "$want" ] || fail "the app's environment: got '$got', expected '$want'"
    ;;
  record_quoting)
    GCSNAP_SHIM=$no_profiler run args record -o "$(winpath "$work")\\x.snap" -- "$(winpath "$idle")" --args \
      "a b" 'say "hi"' 'end\' 'C:\dir with space\' '' plain
    expect_error args 4 "nothing was recorded: "
    printf '%s\n' "[a b]" '[say "hi"]' '[end\]' '[C:\dir with space\]' "[]" "[plain]" >want.out
    tr -d '\r' <args.out >got.out
    cmp -s want.out got.out || { show got.out; show want.out; fail "the arguments did not arrive as given"; }
    ;;
  record_app)
    # gcsnap.exe record -- app.exe: the app's four induced GCs walked through the DLL; the
    # Linux e2e assertions (counts, roots, field names, paths) hold on the file.
    linux_tools
    run rec record -o "$(winpath "$work")\\run.snap" -- "$(winpath "$app")" run
    [ "$rc" -eq 0 ] || { show rec.out; show rec.err; fail "record exited $rc"; }
    tr -d '\r' <rec.out >run.out
    grep -q '^gcsnap-sample: done finalized=' run.out || { show run.out; fail "the app did not finish"; }
    expect_recorded rec.err run.snap run.out
    linux_verify run.snap
    GCSNAP_E2E_RECORDING=$work/run.snap GCSNAP_E2E_FACTS=$work/run.out "$recording_test" "[sample],[invariants]" ||
      fail "the Linux e2e assertions fail on the recording of gcsnap.exe record"
    # The retention path and the stack root the Linux analysis case checks (its diff check is
    # left to e2e_windows.case.analysis: under Wine an extra System.Object now and then appears
    # between the two GCs it compares).
    # (CSV lines end in CRLF, RFC 4180.)
    "$linux_gcsnap" path run.snap --type Gcsnap.Sample.Survivor2 --format csv 2>&1 | tr -d '\r' >path.csv ||
      { show path.csv; fail "path failed"; }
    grep -Eq '^1,0x[0-9a-f]+,Gcsnap\.Sample\.Survivor2,3,strong,handle,,0x[0-9a-f]+,,Gcsnap\.Sample\.Scenario\.s_survivors$' path.csv ||
      { show path.csv; fail "the Survivor2s are not held through Scenario.s_survivors"; }
    "$linux_gcsnap" roots run.snap --type Gcsnap.Sample.StackHeld --format csv 2>&1 | tr -d '\r' >roots.csv ||
      { show roots.csv; fail "roots failed"; }
    grep -q '^stack,,1,1,0,--type Gcsnap\.Sample\.StackHeld$' roots.csv ||
      { show roots.csv; fail "StackHeld is not held by exactly one stack root"; }
    ;;
  record_killed)
    # The app is killed while gcsnap.exe records it: gcsnap writes the index of its complete GCs.
    linux_tools
    start_record killed.snap "$(winpath "$app")" wait 120
    for _ in $(seq 1 600); do grep -q "ready" rec.out 2>/dev/null && break; sleep 0.1; done
    target_pid=$(tr -d '\r' <rec.out | sed -n 's/.*mode=wait pid=\([0-9]*\).*/\1/p')
    [ -n "$target_pid" ] || { show rec.out; show rec.err; fail "the app did not start under gcsnap record"; }
    end_killed_record killed.snap
    # (Wine's taskkill /F ends the app with exit code 0; Windows' with 1: not asserted.)
    [ "$rc" -lt 126 ] || fail "record exited $rc"
    ;;
  record_on_rss)
    # record --on-rss on Windows watches the working set (GetProcessMemoryInfo): the app grows
    # 8 MiB of native memory every 100 ms to 384 MiB; walks come at 128, 256 and 384 MiB (as on Linux).
    linux_tools
    run rec record --policy none --on-rss 128M -o "$(winpath "$work")\\rss.snap" -- "$(winpath "$app")" memory grow 384
    [ "$rc" -eq 0 ] || { show rec.out; show rec.err; fail "record --on-rss exited $rc"; }
    show rec.err
    reached=$(tr -d '\r' <rec.err | sed -nE 's/^gcsnap: process [0-9]+: heap walk \(resident [0-9]+ MiB reached ([0-9]+) MiB\)$/\1/p' | tr '\n' ' ')
    [ "$reached" = "128 256 384 " ] || fail "--on-rss 128M walked at '$reached', expected at 128 256 384 MiB"
    grep -Eq "^gcsnap: recorded [0-9]+ GCs, 3 snapshots, .*rss\.snap; nothing dropped" rec.err ||
      fail "the summary does not count the 3 walks"
    linux_verify rss.snap
    ;;
  record_launcher)
    # A launcher that ends first: `cmd /c start /b app.exe` returns at once, and gcsnap waits for
    # the app it recorded (from its report), then finishes the file the killed app left; the job
    # object gcsnap runs the command in knows the app's exit code.
    linux_tools
    start_record launched.snap cmd.exe /c start "" /b "$(winpath "$app")" wait 120
    # The app's pid from gcsnap's own line (start /b may give the app a console of its own).
    for _ in $(seq 1 600); do grep -q "waiting for the recorded" rec.err 2>/dev/null && break; sleep 0.1; done
    target_pid=$(tr -d '\r' <rec.err | sed -n 's/^gcsnap: recording process \([0-9]*\) (Gcsnap\.Sample).*/\1/p')
    [ -n "$target_pid" ] || { show rec.out; show rec.err; fail "the app did not start under gcsnap record -- cmd /c start"; }
    grep -q "^gcsnap: cmd.exe ended; waiting for the recorded process(es) $target_pid to end" rec.err ||
      { show rec.err; fail "record does not say it waits for the app after cmd.exe ended"; }
    kill -0 "$rec_job" 2>/dev/null || { show rec.err; fail "record did not wait for the app"; }
    end_killed_record launched.snap
    [ "$rc" -eq 0 ] || fail "record exited $rc, expected cmd.exe's 0"
    ;;
  record_cmd)
    # `cmd /c app.exe run`: the app is a grandchild of gcsnap; it is recorded and summarised.
    linux_tools
    run rec record -o "$(winpath "$work")\\cmd.snap" -- cmd.exe /c "$(winpath "$app")" run
    [ "$rc" -eq 0 ] || { show rec.out; show rec.err; fail "record -- cmd /c app.exe exited $rc"; }
    show rec.err
    tr -d '\r' <rec.out >cmd.out
    grep -Eq "^gcsnap: recording process [0-9]+ \(Gcsnap\.Sample\) into .*cmd\.snap" rec.err || fail "no 'recording process' line"
    expect_recorded rec.err cmd.snap cmd.out
    linux_verify cmd.snap
    GCSNAP_E2E_RECORDING=$work/cmd.snap GCSNAP_E2E_FACTS=$work/cmd.out "$recording_test" "[sample],[invariants]" ||
      fail "the Linux e2e assertions fail on the recording of the app cmd.exe ran"
    ;;
  snapshot_attach)
    # An app started without gcsnap: snapshot PID attaches over the diagnostics pipe, takes one
    # walked GC, detaches; the app runs on and ends by itself. The Linux e2e assertions of an
    # attached snapshot hold on the file ([attached]; of [invariants], the two on compacting GCs
    # find none under Wine, where the attached GC did not compact).
    linux_tools
    start_target app "$app" attach-wait
    for _ in $(seq 1 100); do grep -q "ready" app.target && break; sleep 0.1; done
    run snap snapshot "$target_pid" -o "$(winpath "$work")\\attach.snap"
    [ "$rc" -eq 0 ] || { show snap.out; show snap.err; fail "snapshot exited $rc"; }
    show snap.out
    grep -Eq "^snapshot of process $target_pid \(Gcsnap\.Sample\.exe\): GC #[0-9]+, .* in .*attach\.snap; detached" snap.out ||
      fail "no snapshot line"
    echo quit >&7
    stop_target app "gcsnap-sample: done"
    tr -d '\r' <app.target >attach.out
    linux_verify attach.snap
    GCSNAP_E2E_RECORDING=$work/attach.snap GCSNAP_E2E_FACTS=$work/attach.out "$recording_test" "[attached]" ||
      fail "the Linux e2e assertions of an attached snapshot fail on the file of gcsnap.exe snapshot"
    ;;
  record_pid)
    # record --pid for a while, with a heap walk every second: attached, walked, detached; the
    # app runs on and ends by itself.
    linux_tools
    start_target app "$app" wait 120
    for _ in $(seq 1 100); do grep -q "ready" app.target && break; sleep 0.1; done
    run rec record --pid "$target_pid" --duration 4s --every 1s -o "$(winpath "$work")\\pid.snap"
    [ "$rc" -eq 0 ] || { show rec.out; show rec.err; fail "record --pid exited $rc"; }
    show rec.err
    grep -Eq "^gcsnap: recording process $target_pid \(Gcsnap\.Sample\.exe\) into .*pid\.snap for 4 s, a heap walk every 1 s$" rec.err ||
      fail "no 'recording process' line"
    walks=$(sed -n 's/^gcsnap: recorded [0-9]* GCs, \([0-9]*\) snapshots, .*pid\.snap; nothing dropped$/\1/p' rec.err)
    [ -n "$walks" ] && [ "$walks" -ge 2 ] || fail "expected at least 2 heap walks from --every 1s over 4 s, got '${walks}'"
    stop_target app "gcsnap-sample: done"
    linux_verify pid.snap
    ;;
  *) fail "unknown case" ;;
esac
echo "ok ($case)"
