#!/usr/bin/env bash
# Command-line end-to-end cases, run by ctest (tests/e2e/CMakeLists.txt):
#   e2e_cases.sh CASE GCSNAP SAMPLE_DLL WORK_DIR [CASE ARGS...]
# Each case records the sample app (or a command that is not .NET) with the real runtime and
# checks exit codes and messages. Recordings land in WORK_DIR/<case>.snap, the app's stdout
# in WORK_DIR/<case>.out, for the Catch2 checks that ctest runs next.
set -uo pipefail
case_name=$1 gcsnap=$2 dll=$3 work=$4
shift 4
mkdir -p "$work"
snap=$work/$case_name.snap out=$work/$case_name.out err=$work/$case_name.err

fail() { echo "e2e $case_name: FAIL: $*" >&2; exit 1; }
show() { echo "--- $1:"; cat "$1"; }
require_dotnet() {
  command -v dotnet >/dev/null 2>&1 || fail "'dotnet' is not on PATH; the end-to-end tests need the .NET SDK"
  [ -f "$dll" ] || fail "$dll is missing (the e2e.build_sample_app fixture builds it)"
}
# record_app EXPECTED_RC APP_ARGS...: record the sample app (with the options in record_opts;
# on GCSNAP_E2E_RUNTIME's root when set, app_dotnet in e2e_attach_cases.sh); check the exit code
# and the facts line.
record_opts=()
record_app() {
  local expected=$1
  shift
  require_dotnet
  rm -f "$snap"
  "$gcsnap" record -o "$snap" "${record_opts[@]}" -- "${app_dotnet[@]}" "$dll" "$@" >"$out" 2>"$err" </dev/null
  local rc=$?
  show "$out"; show "$err"
  [ "$rc" -eq "$expected" ] || fail "gcsnap record exited $rc, expected $expected (the app's own exit code)"
  grep -q '^gcsnap-sample: mode=' "$out" || fail "the app printed no facts line (did it run?)"
  [ -s "$snap" ] || fail "no recording at $snap"
}
# check_cli_accepts: `gcsnap info` and `gcsnap verify` accept the recording (exit 0, some output).
check_cli_accepts() {
  local rc
  "$gcsnap" info "$snap" >"$work/$case_name.info" 2>&1; rc=$?
  show "$work/$case_name.info"
  [ "$rc" -eq 0 ] || fail "gcsnap info exited $rc"
  [ -s "$work/$case_name.info" ] || fail "gcsnap info printed nothing"
  "$gcsnap" verify "$snap" >"$work/$case_name.verify" 2>&1; rc=$?
  show "$work/$case_name.verify"
  [ "$rc" -eq 0 ] || fail "gcsnap verify exited $rc"
}

case_run() { record_app 0 run; grep -q '^gcsnap-sample: done finalized=' "$out" || fail "the app did not finish"; check_cli_accepts; }
# record --index: the analysis index of every snapshot is built at the end and the summary line
# says so; the indexes pass a whole check and answer as the recording does.
case_index() {
  record_opts=(--index)
  rm -f "$snap".*.gcidx
  record_app 0 run
  local line total
  line=$(grep '^gcsnap: recorded ' "$err") || fail "no summary line"
  total=$(sed -n 's/^gcsnap: recorded [0-9]* GCs, \([0-9]*\) snapshots.*/\1/p' <<<"$line")
  [ -n "$total" ] && [ "$total" -gt 0 ] || fail "the recording has no snapshot"
  grep -q "; analysis index of $total of $total snapshots in $snap.N.gcidx" <<<"$line" || fail "the summary does not say the indexes were built"
  [ "$(ls "$snap".*.gcidx | wc -l)" -eq "$total" ] || fail "not one index file per snapshot"
  # ... and how large the indexes are, in all and against the recording.
  local bytes kib
  bytes=$(cat "$snap".*.gcidx | wc -c); kib=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1024 }')
  grep -Eq "gcidx \(($kib KiB|[0-9.]+ MiB), [0-9]+\.[0-9]x the recording\)" <<<"$line" ||
    fail "the summary does not give the indexes' size ($bytes bytes): $line"
  "$gcsnap" index "$snap" --all --check >"$work/index.check" 2>&1 || { show "$work/index.check"; fail "an index fails --check"; }
  [ "$("$gcsnap" types "$snap" --top 20)" = "$("$gcsnap" types "$snap" --top 20 --no-cache)" ] || fail "types differs with the index"
  [ "$("$gcsnap" dominators "$snap")" = "$("$gcsnap" dominators "$snap" --no-cache)" ] || fail "dominators differs with the index"
  # diff of the real app's first and last walks from their indexes: the same bytes, with the
  # retention paths of its new objects read from the kept shortest-path tree.
  [ "$total" -ge 2 ] || fail "the run has $total snapshots: no diff to compare"
  local with without
  with=$("$gcsnap" diff "$snap" --shapes 3 --format json) || fail "diff from the indexes failed"
  without=$("$gcsnap" diff "$snap" --shapes 3 --format json --no-cache) || fail "diff --no-cache failed"
  grep -q '"path": "\[' <<<"$with" || fail "diff shows no retention path of a new object"
  [ "$with" = "$without" ] || fail "diff differs with the indexes"
}

# A heap walk at every GC of a GC-heavy loop (natural gen0/gen1 GCs as well as induced ones).
case_churn() {
  record_opts=(--policy all)
  record_app 0 churn "${1:-3000}"
  grep -q '^gcsnap: recorded .*nothing dropped' "$err" || fail "the recorder dropped data or printed no summary"
  check_cli_accepts
}

# Every object's size asked of the runtime (GCSNAP_VERIFY_SIZES=1) and compared with the
# size the shim predicts from its class (profiler-shim/class_cache.hpp): none may differ.
case_verify_sizes() {
  record_opts=(--policy all)
  GCSNAP_VERIFY_SIZES=1 record_app 0 churn "${1:-3000}"
  local line checked wrong
  line=$(grep '^gcsnap: size check: ' "$err") || fail "the shim printed no size check line"
  checked=$(sed -E 's/^gcsnap: size check: ([0-9]+) predicted sizes checked, ([0-9]+) contradicted.*/\1/' <<<"$line")
  wrong=$(sed -E 's/^gcsnap: size check: ([0-9]+) predicted sizes checked, ([0-9]+) contradicted.*/\2/' <<<"$line")
  [ "$checked" -ge 100000 ] 2>/dev/null || fail "too few predicted sizes were checked: '$line'"
  [ "$wrong" = 0 ] || fail "predicted sizes differ from the runtime's: '$line'"
  grep -q '^gcsnap: recorded .*nothing dropped' "$err" || fail "the recorder dropped data or printed no summary"
  check_cli_accepts
}

case_exit_code() {
  record_app 7 exit 7
  record_app 0 exit 0
  check_cli_accepts
}

# crash_case MODE: the app dies of SIGABRT (FailFast or an unhandled exception) after its GCs.
crash_case() {
  record_app 134 "$1" 1000  # 128 + SIGABRT, passed through
  local rc
  "$gcsnap" verify "$snap" >"$work/$case_name.verify" 2>&1; rc=$?
  show "$work/$case_name.verify"
  # The runtime died without Shutdown: verify must say where and how the file ends.
  grep -Eq 'ends (complete|no-index|truncated)' "$work/$case_name.verify" ||
    fail "gcsnap verify does not say how the file ends"
  [ "$rc" -le 1 ] || fail "gcsnap verify exited $rc: a crash-cut recording must still be readable"
  "$gcsnap" info "$snap" >/dev/null 2>&1 || fail "gcsnap info rejects the crash-cut recording"
}
case_crash() { crash_case crash; }
case_unhandled() { crash_case throw; }

case_missing_command() {
  local missing=/nonexistent/gcsnap-e2e-no-such-command rc
  "$gcsnap" record -o "$snap" -- "$missing" >"$out" 2>"$err"; rc=$?
  show "$err"
  [ "$rc" -ne 0 ] || fail "gcsnap record of a missing command exited 0"
  [ "$rc" -ne 2 ] || fail "gcsnap record of a missing command gave a usage error (exit 2)"
  [ "$(wc -l <"$err")" -eq 1 ] || fail "expected exactly one line on stderr"
  grep -q '^gcsnap: error: .*gcsnap-e2e-no-such-command' "$err" || fail "the error line does not name the command"
  grep -Eqi 'not found|no such file|cannot (run|execute|start)' "$err" || fail "the error line does not say why"
}

case_not_dotnet() {
  local rc
  "$gcsnap" record -o "$snap" -- /bin/true >"$out" 2>"$err"; rc=$?
  show "$err"
  grep -qi 'nothing was recorded\|no \.NET\|not a \.NET' "$err" || fail "gcsnap record does not say that nothing was recorded"
  [ "$rc" -eq 4 ] || fail "gcsnap record exited $rc, expected 4 (nothing could be recorded; docs/cli.md)"
  # The one error line: no process ever said it records.
  [ "$(wc -l <"$err")" -eq 1 ] || fail "expected exactly one line on stderr"
}

# start_waiting_app: record the sample app in wait mode in the background, its stdin a FIFO
# held open on fd 3 (closing fd 3 ends the wait); sets recorder (gcsnap's pid) and pid (the
# app's) once the app says it is ready. With launcher=setsid, gcsnap leads a process group
# of its own (as a shell's foreground job does), whose id is $recorder.
launcher=
start_waiting_app() {
  require_dotnet
  local fifo=$work/$case_name.fifo
  rm -f "$snap" "$fifo"; mkfifo "$fifo"
  $launcher "$gcsnap" record -o "$snap" -- dotnet "$dll" wait 120 <"$fifo" >"$out" 2>"$err" &
  recorder=$!
  exec 3>"$fifo"
  for _ in $(seq 1 600); do
    grep -q "^gcsnap-sample: ready" "$out" 2>/dev/null && break
    kill -0 "$recorder" 2>/dev/null || break
    sleep 0.1
  done
  pid=$(sed -n 's/^gcsnap-sample: mode=wait pid=\([0-9]*\) .*/\1/p' "$out")
  if [ -z "$pid" ] || ! grep -q '^gcsnap-sample: ready' "$out"; then
    exec 3>&-; wait "$recorder"; show "$out"; show "$err"; fail "the app never became ready"
  fi
}

# The app waits on a FIFO for stdin; `gcsnap snapshot PID` asks its shim for a heap walk.
case_snapshot() {
  local pid="" rc recorder
  start_waiting_app
  "$gcsnap" snapshot "$pid" >"$work/snapshot.cmd" 2>&1; rc=$?
  exec 3>&-
  wait "$recorder"; local record_rc=$?
  show "$work/snapshot.cmd"; show "$out"; show "$err"
  [ "$rc" -eq 0 ] || fail "gcsnap snapshot $pid exited $rc"
  [ "$record_rc" -eq 0 ] || fail "gcsnap record exited $record_rc"
  check_cli_accepts
}

# Server GC (several GC threads) with many threads allocating at once; a heap walk at every GC.
case_server_gc() {
  record_opts=(--policy all)
  DOTNET_gcServer=1 record_app 0 threads 8
  grep -q 'server_gc=True' "$out" || fail "the app did not run with server GC"
  grep -q '^gcsnap: recorded .*nothing dropped' "$err" || fail "the recorder dropped data or printed no summary"
  check_cli_accepts
}

# exit_writing_case HOW CODE: the app leaves with CODE right after an induced GC that walks two
# million ExitMarkers, while the shim's writer thread is still encoding that walk. HOW: return
# from Main or Environment.Exit (the runtime calls the profiler's Shutdown), or libc's exit()
# (no Shutdown: the shim's atexit handler). Either must drain the writer thread and close the
# file: the exit code is passed through, the file ends complete, nothing is dropped.
exit_writing_case() {
  local how=$1 code=$2
  record_app "$code" exit-writing 2000000 "$code" "$how"
  grep -q "^gcsnap-sample: mode=exit-writing .* how=$how " "$out" || fail "the app did not leave by '$how'"
  grep -q '^gcsnap: recorded .*nothing dropped' "$err" || fail "the recorder dropped data or printed no summary"
  ! grep -q 'recording stopped' "$err" || fail "the shim stopped recording"
  check_cli_accepts
  grep -q 'ends complete' "$work/$case_name.verify" || fail "verify does not say the file ends complete"
  local gcs
  gcs=$("$gcsnap" info "$snap" --format csv --table gcs 2>/dev/null | tr -d '\r' | grep -c '^[0-9]')
  [ "$gcs" -ge "$(fact gc_count "$out")" ] || fail "$gcs GCs in the file; the app saw $(fact gc_count "$out")"
}
case_exit_writing_return() { exit_writing_case return 3; }
case_exit_writing_exit() { exit_writing_case exit 5; }
case_exit_writing_libc_exit() { exit_writing_case libc-exit 6; }

# The output cannot be written (its directory is a regular file): one clear line, nothing run.
case_unwritable() {
  require_dotnet
  local rc
  "$gcsnap" record -o "$dll/out.snap" -- dotnet "$dll" exit 0 >"$out" 2>"$err"; rc=$?
  show "$err"
  [ "$rc" -eq 4 ] || fail "gcsnap record exited $rc, expected 4"
  [ "$(wc -l <"$err")" -eq 1 ] || fail "expected exactly one line on stderr"
  grep -q '^gcsnap: error: .*not writable' "$err" || fail "the error does not say the output is not writable"
  [ ! -s "$out" ] || fail "the app ran although nothing could be recorded"
}

# The disk fills during the recording (a 1 MiB tmpfs): the app runs to its normal end with its
# normal exit code, stderr says so once, and the file keeps the GCs completed before.
case_disk_full() {
  require_dotnet
  local mnt=$work/small-fs rc
  mkdir -p "$mnt"
  mountpoint -q "$mnt" && umount "$mnt"
  mount -t tmpfs -o size=1m tmpfs "$mnt" || fail "cannot mount a 1 MiB tmpfs at $mnt (the test needs root)"
  "$gcsnap" record -o "$mnt/full.snap" --policy all -- dotnet "$dll" churn 3000 >"$out" 2>"$err" </dev/null; rc=$?
  show "$err"
  cp "$mnt/full.snap" "$snap" 2>/dev/null
  umount "$mnt"
  [ "$rc" -eq 0 ] || fail "the app's exit code changed to $rc when the disk filled"
  grep -q '^gcsnap-sample: mode=churn' "$out" || fail "the app did not run to its end"
  [ "$(grep -c '^gcsnap: recording stopped (.*No space left on device' "$err")" -eq 1 ] ||
    fail "the shim does not say exactly once that the disk is full"
  # The shim's writer failed, so the file had no index; record cut the partial GC (which
  # frees its space) and wrote the index of the complete ones. Should the space freed be too
  # small for the index, record says so and the file ends after its last complete GC.
  "$gcsnap" verify "$snap" >"$work/$case_name.verify" 2>&1; rc=$?
  show "$work/$case_name.verify"
  if grep -q "^gcsnap: process [0-9]* (Gcsnap.Sample) exited with code 0 but left its file unfinished: gcsnap wrote the index of its [1-9][0-9]* complete GCs" "$err"; then
    grep -q 'ends complete: OK' "$work/$case_name.verify" || fail "verify does not say the finished file ends complete"
    [ "$rc" -eq 0 ] || fail "gcsnap verify exited $rc on the finished file"
  else
    grep -q "^gcsnap: error: .*full.snap: io-error: .*No space left on device" "$err" || fail "record neither finished the file nor said why"
    grep -q 'ends no-index' "$work/$case_name.verify" || fail "the unfinishable file does not end right after its last complete GC"
    [ "$rc" -eq 1 ] || fail "gcsnap verify exited $rc: the GCs before the full disk must stay readable"
  fi
  "$gcsnap" info "$snap" --format csv | tr -d '\r' | grep '^[0-9]' >/dev/null || fail "no complete GC kept before the disk filled"
}

# record -o refuses an existing file (nothing started, the file untouched); --force replaces it.
case_force() {
  require_dotnet
  local rc
  printf 'an earlier recording\n' >"$snap"
  "$gcsnap" record -o "$snap" -- dotnet "$dll" exit 0 >"$out" 2>"$err" </dev/null; rc=$?
  show "$err"
  [ "$rc" -eq 4 ] || fail "record -o onto an existing file exited $rc, expected 4"
  [ "$(wc -l <"$err")" -eq 1 ] || fail "expected exactly one line on stderr"
  grep -q "^gcsnap: error: $snap exists; add --force to replace it$" "$err" || fail "the error does not name the file and --force"
  [ ! -s "$out" ] || fail "the app ran although the output exists"
  [ "$(cat "$snap")" = "an earlier recording" ] || fail "the existing file was changed"
  record_opts=(--force)
  record_app 0 exit 0
  grep -q "^gcsnap: recorded .* of process $(fact pid "$out") (Gcsnap.Sample) in $snap; nothing dropped" "$err" ||
    fail "the summary does not name the process the file holds"
  check_cli_accepts
}

# signal_case HOW RC: the app (in wait mode) is ended by a signal mid-run: HOW is a kill
# argument list run against the app (with \$pid) or gcsnap (\$recorder) or gcsnap's process
# group (\$group). `record` waits, finishes the file (index written from the blocks), removes
# the stale control socket, and passes the exit status on; `verify` passes; every GC the app
# completed before is in the file.
signal_case() {
  local how=$1 expected=$2 pid="" rc recorder group
  launcher=setsid start_waiting_app
  group=$recorder
  local socket=${TMPDIR:-/tmp}/gcsnap-$pid.ctl
  [ -S "$socket" ] || fail "the app has no control socket at $socket"
  sleep 0.5  # the writer thread writes the GCs the app induced
  eval "kill $how"
  wait "$recorder"; rc=$?
  exec 3>&-
  show "$out"; show "$err"
  [ "$rc" -eq "$expected" ] || fail "gcsnap record exited $rc, expected $expected (128 + the app's signal)"
  grep -Eq "^gcsnap: process $pid \(Gcsnap.Sample\) was killed by SIG[A-Z]+ before finishing its file: gcsnap wrote the index of its [0-9]+ complete GCs" "$err" ||
    fail "record does not say it finished the file"
  grep -q "^gcsnap: recorded .* of process $pid (Gcsnap.Sample) in $snap; nothing dropped$" "$err" ||
    fail "no summary line naming the process"
  [ ! -e "$socket" ] || fail "the app's control socket $socket is still there"
  check_cli_accepts
  grep -q 'ends complete: OK' "$work/$case_name.verify" || fail "verify does not say the file ends complete"
  local gcs
  gcs=$("$gcsnap" info "$snap" --format csv --table gcs 2>/dev/null | tr -d '\r' | grep -c '^[0-9]')
  [ "$gcs" -ge "$(fact induced_gcs "$out")" ] || fail "only $gcs GCs readable; the app had induced $(fact induced_gcs "$out")"
}
# SIGTERM sent to the app (how a service manager stops it).
case_sigterm() { signal_case '-TERM "$pid"' 143; }
# SIGKILL sent to the app: nothing of the app's runs any more.
case_sigkill() { signal_case '-KILL "$pid"' 137; }
# SIGINT to gcsnap's whole process group, as Ctrl+C in a terminal sends it: gcsnap itself gets
# it too, and must wait for the app and finish its file rather than die.
case_sigint_group() { signal_case '-INT -- "-$group"' 130; }
# SIGINT sent to gcsnap alone (kill -INT): forwarded to the app.
case_sigint_record() { signal_case '-INT "$recorder"' 130; }

# Ctrl+C typed in a terminal: script(1) gives gcsnap a pty, whose line discipline sends SIGINT
# to the whole foreground process group (si_code SI_KERNEL, so gcsnap does not send it again).
# gcsnap must not die of it but wait for the app and finish its file.
case_ctrl_c() {
  require_dotnet
  command -v script >/dev/null 2>&1 || fail "script (util-linux) is not installed"
  local fifo=$work/$case_name.pty log=$work/$case_name.log pid runner
  rm -f "$snap" "$fifo"; mkfifo "$fifo"
  script -qfec "'$gcsnap' record -o '$snap' -- dotnet '$dll' wait 120; echo record-exit=\$?" /dev/null \
    <"$fifo" >"$log" 2>&1 &
  runner=$!
  exec 3>"$fifo"
  for _ in $(seq 1 600); do grep -q '^gcsnap-sample: ready' "$log" 2>/dev/null && break; sleep 0.1; done
  # The pty's output, without CRs and the terminal's escape sequences (the runtime's ESC[?1h ESC=).
  plain() { tr -d '\r' <"$log" | sed -E $'s/\x1b\\[[0-9;?]*[a-zA-Z]//g; s/\x1b[=>]//g' >"$out"; }
  plain
  pid=$(fact pid "$out")
  [ -n "$pid" ] || { exec 3>&-; show "$out"; fail "the app never became ready"; }
  printf '\003' >&3  # Ctrl+C
  for _ in $(seq 1 300); do grep -q '^record-exit=' "$log" && break; sleep 0.1; done
  exec 3>&-
  wait "$runner"
  plain
  show "$out"
  grep -q '^record-exit=130$' "$out" || fail "gcsnap record did not exit 130 (128 + SIGINT, the app's)"
  grep -q "gcsnap: process $pid (Gcsnap.Sample) was killed by SIGINT before finishing its file: gcsnap wrote the index" "$out" ||
    fail "record does not say it finished the file"
  grep -q "^gcsnap: recorded .* of process $pid (Gcsnap.Sample) in $snap; nothing dropped$" "$out" || fail "no summary line"
  [ ! -e "${TMPDIR:-/tmp}/gcsnap-$pid.ctl" ] || fail "the app's control socket is still there"
  check_cli_accepts
  grep -q 'ends complete: OK' "$work/$case_name.verify" || fail "verify does not say the file ends complete"
}

# Several .NET processes under one command: with {pid} in -o each gets its own file and its
# summary line; with one file name the first records and the second is named as not recorded.
case_several() {
  require_dotnet
  local rc pids pid
  rm -f "$work/$case_name"-*.snap "$snap"
  "$gcsnap" record -o "$work/$case_name-{name}-{pid}.snap" -- \
    bash -c 'dotnet "$1" exit 0 & dotnet "$1" exit 0; wait' _ "$dll" >"$out" 2>"$err" </dev/null; rc=$?
  show "$out"; show "$err"
  [ "$rc" -eq 0 ] || fail "gcsnap record exited $rc"
  pids=$(sed -n 's/^gcsnap-sample: mode=exit pid=\([0-9]*\) .*/\1/p' "$out")
  [ "$(wc -w <<<"$pids")" -eq 2 ] || fail "the two apps did not both run"
  for pid in $pids; do
    local file=$work/$case_name-Gcsnap.Sample-$pid.snap
    grep -q "^gcsnap: recorded 1 GCs, 1 snapshots, .* of process $pid (Gcsnap.Sample) in $file; nothing dropped$" "$err" ||
      fail "no summary line for process $pid and $file"
    "$gcsnap" verify "$file" >/dev/null 2>&1 || fail "$file does not verify"
  done
  "$gcsnap" record -o "$snap" -- bash -c 'dotnet "$1" exit 0; dotnet "$1" exit 0' _ "$dll" >"$out" 2>"$err" </dev/null; rc=$?
  show "$out"; show "$err"
  [ "$rc" -eq 0 ] || fail "gcsnap record exited $rc"
  pids=$(sed -n 's/^gcsnap-sample: mode=exit pid=\([0-9]*\) .*/\1/p' "$out" | tr '\n' ' ')
  read -r first second <<<"$pids"
  grep -q "^gcsnap: recorded .* of process $first (Gcsnap.Sample) in $snap; nothing dropped$" "$err" ||
    fail "the file does not hold the first process"
  grep -q "^gcsnap: process $second (Gcsnap.Sample) was not recorded: $snap exists already" "$err" ||
    fail "the second process is not named as not recorded"
}

# The command ends while the app it started in the background still runs: record says so,
# waits for the app (its subreaper now), and then gives its summary.
case_orphan() {
  require_dotnet
  local rc pid file
  rm -f "$work/$case_name"-*.snap
  "$gcsnap" record -o "$work/$case_name-{pid}.snap" -- bash -c 'sleep 6 | dotnet "$1" wait 30 & sleep 3' _ "$dll" \
    >"$out" 2>"$err" </dev/null; rc=$?
  show "$out"; show "$err"
  [ "$rc" -eq 0 ] || fail "gcsnap record exited $rc, expected bash's 0"
  pid=$(fact pid "$out")
  [ -n "$pid" ] && grep -q '^gcsnap-sample: wait ended by stdin' "$out" || fail "the app did not run to its end"
  grep -q "^gcsnap: bash ended; waiting for the recorded process(es) $pid to end" "$err" || fail "record does not say it waits for the app"
  file=$work/$case_name-$pid.snap
  grep -q "^gcsnap: recorded .* of process $pid (Gcsnap.Sample) in $file; nothing dropped$" "$err" || fail "no summary line for the app"
  snap=$file check_cli_accepts
}

# A launcher that starts the app in the background and exits at once, before the app's runtime
# has loaded the shim: record gives the processes it left up to 5 s to report, then waits for
# the app and records it. A launcher that leaves only a process that is not .NET ends record
# after the grace with "nothing was recorded" (exit 4) and leaves that process running.
case_launcher() {
  require_dotnet
  local rc pid file sleeper started elapsed
  rm -f "$work/$case_name"-*.snap
  "$gcsnap" record -o "$work/$case_name-{pid}.snap" -- sh -c 'dotnet "$1" run & exit 0' _ "$dll" \
    >"$out" 2>"$err" </dev/null; rc=$?
  show "$out"; show "$err"
  [ "$rc" -eq 0 ] || fail "gcsnap record exited $rc, expected sh's 0 (the app was not recorded?)"
  grep -q '^gcsnap-sample: done finalized=' "$out" || fail "the app did not run to its end before record ended"
  pid=$(fact pid "$out")
  [ -n "$pid" ] || fail "the app printed no pid"
  # The "sh ended; waiting for ..." line is printed only when record sees the app's report
  # while it still runs; an app that reports and ends within one poll is recorded without it.
  file=$work/$case_name-$pid.snap
  grep -q "^gcsnap: recorded .* of process $pid (Gcsnap.Sample) in $file; nothing dropped$" "$err" || fail "no summary line for the app"
  snap=$file check_cli_accepts
  started=$(date +%s%N)
  "$gcsnap" record -o "$work/$case_name-{pid}.snap" -- sh -c 'sleep 120 & echo $! >"$1"' _ "$work/$case_name.sleeper" \
    >"$out" 2>"$err" </dev/null; rc=$?
  elapsed=$((($(date +%s%N) - started) / 1000000))
  show "$err"
  sleeper=$(cat "$work/$case_name.sleeper")
  local alive=0
  [ -n "$sleeper" ] && kill -0 "$sleeper" 2>/dev/null && alive=1
  [ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
  echo "record with a process that is not .NET left behind ended after $elapsed ms"
  [ "$rc" -eq 4 ] && grep -q '^gcsnap: error: nothing was recorded: sh never started the gcsnap profiler' "$err" ||
    fail "a launcher that left no .NET process: exit $rc, not 4 with 'nothing was recorded'"
  [ "$elapsed" -ge 5000 ] || fail "record ended $elapsed ms after it started, before the 5 s grace"
  [ "$elapsed" -lt 60000 ] || fail "record waited $elapsed ms for a process that never reported"
  [ "$alive" -eq 1 ] || fail "the process left behind did not run on after record ended"
}

# `gcsnap record -- dotnet run`: the SDK's own processes (the dotnet CLI, MSBuild, the compiler)
# are not recorded; the app `dotnet run` starts is, into a file named after it and its pid,
# and the summary names it. A copy of the sample app's project is built by the first run.
case_dotnet_run() {
  require_dotnet
  local project=$work/dotnet_run_app cwd=$work/dotnet_run_cwd rc pid file
  rm -rf "$project" "$cwd"; mkdir -p "$project" "$cwd"
  cp "$(dirname "$0")"/sample_app/*.cs "$(dirname "$0")"/sample_app/*.csproj "$project/" || fail "cannot copy the sample app"
  export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
  (cd "$cwd" && "$gcsnap" record -- dotnet run --project "$project" -c Release -- run) >"$out" 2>"$err" </dev/null; rc=$?
  show "$out"; show "$err"
  [ "$rc" -eq 0 ] || fail "gcsnap record -- dotnet run exited $rc"
  pid=$(fact pid "$out")
  [ -n "$pid" ] || fail "the app printed no facts line"
  file=$cwd/gcsnap-Gcsnap.Sample-$pid.snap
  [ "$(find "$cwd" -name '*.snap' | wc -l)" -eq 1 ] && [ -s "$file" ] ||
    { ls -la "$cwd"; fail "not exactly one recording, $file, in the directory"; }
  grep -q "^gcsnap: recording process $pid (Gcsnap.Sample) into $file$" "$err" || fail "record does not name the app it records"
  grep -q "^gcsnap: recorded [0-9]* GCs, [1-9][0-9]* snapshots, .* of process $pid (Gcsnap.Sample) in $file; nothing dropped$" "$err" ||
    fail "the summary does not name the app's process"
  [ "$(grep -c '^gcsnap: recording process' "$err")" -eq 1 ] || fail "more than the app was recorded"
  snap=$file check_cli_accepts
  local text
  text=$(csv types "$file" --filter Gcsnap.Sample)
  expect_line "$text" "^Gcsnap\.Sample\.LeakyItem,$(fact leaky_items "$out")," "the recording holds no LeakyItems of the app"
  # Built now: `dotnet run --no-build`, and -o naming the one file.
  rm -f "$snap"
  "$gcsnap" record -o "$snap" -- dotnet run --no-build --project "$project" -c Release -- exit 3 >"$out" 2>"$err" </dev/null; rc=$?
  show "$out"; show "$err"
  [ "$rc" -eq 3 ] || fail "gcsnap record -- dotnet run --no-build exited $rc, expected the app's 3"
  pid=$(sed -n 's/^gcsnap-sample: mode=exit pid=\([0-9]*\) .*/\1/p' "$out")
  grep -q "^gcsnap: recorded [0-9]* GCs, .* of process $pid (Gcsnap.Sample) in $snap; nothing dropped$" "$err" ||
    fail "the -o file does not hold the app"
  check_cli_accepts
  # `dotnet build` runs only SDK processes: nothing recorded, said in one line, no file left.
  (cd "$cwd" && "$gcsnap" record -- dotnet build "$project" -c Release) >"$out" 2>"$err" </dev/null; rc=$?
  show "$err"
  [ "$rc" -eq 4 ] || fail "gcsnap record -- dotnet build exited $rc, expected 4 (nothing recorded)"
  grep -q '^gcsnap: error: nothing was recorded: dotnet ran only processes of the .NET SDK' "$err" ||
    fail "record does not say that only SDK processes ran"
  [ "$(find "$cwd" -name '*.snap' | wc -l)" -eq 1 ] || { ls -la "$cwd"; fail "dotnet build left recordings"; }
}

# fact KEY FILE: a value from the sample app's facts line.
fact() { sed -n "s/^gcsnap-sample: mode=.* $1=\([0-9]*\) .*/\1/p" "$2"; }
# info_columns FILE TABLE COLUMN...: the named columns of `gcsnap info FILE --table TABLE
# --format csv`, comma-separated, one row a line without the header. Returns 1, saying why on
# stderr, when info fails, a column is not in the header or the table has no row: a check that
# selects rows by name cannot silently match nothing when a column is added.
info_columns() {
  local file=$1 table=$2 text
  shift 2
  text=$("$gcsnap" info "$file" --table "$table" --format csv 2>&1) || { echo "info $file --table $table: $text" >&2; return 1; }
  tr -d '\r' <<<"$text" | awk -F, -v want="$*" -v what="info $file --table $table" '
    NR == 1 { n = split(want, names, " "); for (i = 1; i <= NF; i++) at[$i] = i
              for (k = 1; k <= n; k++) if (!(names[k] in at)) { print what ": no column " names[k] >"/dev/stderr"; bad = 1; exit 1 }
              next }
    { line = $(at[names[1]]); for (k = 2; k <= n; k++) line = line "," $(at[names[k]]); print line; rows++ }
    END { if (bad) exit 1; if (!rows) { print what ": no row" >"/dev/stderr"; exit 1 } }'
}
# check_no_policy_walk FILE: FILE has GCs and none of them was walked by a policy (--policy none).
check_no_policy_walk() {
  local rows
  rows=$(info_columns "$1" gcs gc trigger) || fail "no GC rows to check in $1"
  ! grep -Eq ',(policy|always)$' <<<"$rows" || { printf '%s\n' "$rows"; fail "--policy none walked a GC"; }
}
# csv CMD...: run gcsnap with --format csv, without CRs; fail on a non-zero exit.
csv() {
  "$gcsnap" "$@" --format csv >"$work/analysis.csv" 2>"$work/analysis.err" ||
    { cat "$work/analysis.err"; fail "gcsnap $* exited non-zero"; }
  tr -d '\r' <"$work/analysis.csv"
}
# expect_line TEXT PATTERN WHAT: fail unless a line of TEXT matches the extended regex PATTERN.
expect_line() { grep -Eq "$2" <<<"$1" || { printf '%s\n' "$1"; fail "$3"; }; }

# The analyses answer what the sample app's code says, on the run case's recording.
case_analysis() {
  local s=$work/run.snap from to text
  [ -s "$s" ] || fail "no recording of the run case at $s"
  from=$(fact diff_from_gc "$work/run.out") to=$(fact diff_to_gc "$work/run.out")
  [ -n "$from" ] && [ -n "$to" ] || fail "no diff_from_gc/diff_to_gc in $work/run.out"
  text=$(csv roots "$s:$to" --type Gcsnap.Sample.StackHeld)
  expect_line "$text" '^0x[0-9a-f]+,Gcsnap\.Sample\.StackHeld,stack,,0x[0-9a-f]+,Gcsnap\.Sample\.Scenario\.Run$' \
    "roots: StackHeld is not held by a stack root of Scenario.Run"
  text=$(csv roots "$s:$to" --kind finalizer --type Gcsnap.Sample.Finalizable)
  expect_line "$text" "^finalizer,,$(fact finalizable "$work/run.out")," "roots: not every Finalizable is a finalizer root"
  text=$(csv roots "$s:$to" --kind handle --flags pinning)
  expect_line "$text" '^0x[0-9a-f]+,System\.Byte\[\],handle,pinning,0x[0-9a-f]+,$' "roots: no pinned handle to a byte[]"
  text=$(csv roots "$s:$to" --flags weak --type Gcsnap.Sample.WeakTarget)
  expect_line "$text" '^handle,weak,1,1,0,--flags weak --type Gcsnap\.Sample\.WeakTarget$' \
    "roots: not exactly one weak handle to WeakTarget (the summary naming its filter)"
  text=$(csv diff "$s" --from "$from" --to "$to")
  expect_line "$text" "^Gcsnap\.Sample\.Survivor2,0,$(fact survivor2 "$work/run.out"),\+?$(fact survivor2 "$work/run.out")," \
    "diff: the Survivor2 count does not grow by the number the app allocated"
  # GCSNAP_E2E_RUNTIME_NEW: types the runtime itself allocates between the two GCs (the
  # Windows runtime does, tests/e2e_windows); their growth adds to the expected new objects.
  local runtime_new
  runtime_new=$(awk -F, -v types="${GCSNAP_E2E_RUNTIME_NEW:-}" \
    'BEGIN { n = split(types, t, ";"); for (i = 1; i <= n; i++) want[t[i]] = 1 }
     /^type,/ { table++ } table == 1 && ($1 in want) { sum += $4 } END { print sum + 0 }' <<<"$text")
  expect_line "$text" "^new,$(($(fact survivor2 "$work/run.out") + runtime_new))," "diff: the new objects are not the Survivor2s"
  expect_line "$text" '^dead,0,0$' "diff: objects died although the app dropped none"
  expect_line "$text" '^missing,0,0$' "diff: objects went missing between the two GCs"
  analysis_types_and_paths "$s:$to"
}

# analysis_types_and_paths FILE:GC [FACTS [STACK_METHOD]]: the type table and the retention
# paths of the known objects (FACTS: the app's output, default the run case's; STACK_METHOD:
# the method whose frame holds the StackHeld, as a regex, default Scenario.Run).
analysis_types_and_paths() {
  local leaky text retained facts=${2:-$work/run.out} method=${3:-'Gcsnap\.Sample\.Scenario\.Run'}
  leaky=$(fact leaky_items "$facts")
  text=$(csv types "$1" --filter Gcsnap.Sample)
  # Columns: type,count,bytes,retained_bytes,unreachable, then bytes in gen0,gen1,gen2,loh,poh,frozen.
  expect_line "$text" "^Gcsnap\.Sample\.LeakyItem,$leaky,[0-9]+,[0-9]+,0(,[0-9]+){6}$" "types: not $leaky LeakyItems, all reachable"
  expect_line "$text" "^Gcsnap\.Sample\.Survivor2,$(fact survivor2 "$facts"),[0-9]+,[0-9]+,0(,[0-9]+){6}$" "types: Survivor2 count"
  expect_line "$text" '^Gcsnap\.Sample\.Outer\+Inner,1,' "types: no Outer+Inner"
  expect_line "$text" '^Gcsnap\.Sample\.Holder<System\.String>,1,' "types: no Holder<System.String>"
  # Each LeakyItem alone retains its payload array, so retained - shallow is leaky * one array.
  retained=$(awk -F, '$1 == "Gcsnap.Sample.LeakyItem" { print $4 - $3 }' <<<"$text")
  [ -n "$retained" ] && [ "$retained" -ge $((leaky * 32)) ] && [ $((retained % leaky)) -eq 0 ] ||
    fail "types: LeakyItem's retained bytes do not include exactly $leaky payload arrays ($retained)"
  text=$(csv path "$1" --type Gcsnap.Sample.LeakyItem --limit 1)
  expect_line "$text" '^1,0x[0-9a-f]+,Gcsnap\.Sample\.LeakyItem,3,strong,handle,' "path: LeakyItem not 3 hops from a handle"
  expect_line "$text" '^1,1,0x[0-9a-f]+,System\.Collections\.Generic\.List<Gcsnap\.Sample\.LeakyItem>,' "path: no List hop"
  expect_line "$text" '^1,2,0x[0-9a-f]+,Gcsnap\.Sample\.LeakyItem\[\],' "path: no LeakyItem[] hop"
  text=$(csv path "$1" --type Gcsnap.Sample.HandleHeld)
  expect_line "$text" '^1,0x[0-9a-f]+,Gcsnap\.Sample\.HandleHeld,0,strong,handle,,0x[0-9a-f]+,,$' "path: HandleHeld not held by its handle"
  text=$(csv path "$1" --type Gcsnap.Sample.StackHeld)
  expect_line "$text" "^1,0x[0-9a-f]+,Gcsnap\.Sample\.StackHeld,0,strong,stack,,0x[0-9a-f]+,$method,\$" \
    "path: StackHeld not held by the frame of $method"
  text=$(csv path "$1" --type Gcsnap.Sample.Finalizable --limit 1)
  expect_line "$text" '^1,0x[0-9a-f]+,Gcsnap\.Sample\.Finalizable,0,strong,finalizer,' "path: Finalizable not held by the finalizer queue"
  analysis_field_names "$1"
}

# analysis_field_names FILE:GC: every hop of the FieldShapes paths names its field, index or
# static (hops csv columns: path,hop,address,type,size,generation,via,field,field_kind,field_note;
# paths csv: ...,method,static). Used on recordings and on attached snapshots alike.
analysis_field_names() {
  local text
  text=$(csv path "$1" --type Gcsnap.Sample.LeakyItem --limit 1)
  expect_line "$text" '^1,1,0x[0-9a-f]+,.*,reference,Gcsnap\.Sample\.Scenario\.s_leaky,static,$' \
    "path fields: the List<LeakyItem> is not named as the static Scenario.s_leaky"
  expect_line "$text" '^1,0x[0-9a-f]+,Gcsnap\.Sample\.LeakyItem,3,strong,handle,.*,Gcsnap\.Sample\.Scenario\.s_leaky$' \
    "path fields: the path's static column does not name Scenario.s_leaky"
  expect_line "$text" '^1,2,0x[0-9a-f]+,Gcsnap\.Sample\.LeakyItem\[\],.*,_items,field,$' "path fields: List<LeakyItem> does not hold its array in _items"
  expect_line "$text" '^1,3,0x[0-9a-f]+,Gcsnap\.Sample\.LeakyItem,.*,\[[0-9]+\],element,$' "path fields: the LeakyItem is not an element of the array"
  text=$(csv path "$1" --type Gcsnap.Sample.VipCustomer)
  expect_line "$text" '^1,0x[0-9a-f]+,Gcsnap\.Sample\.VipCustomer,4,strong,handle,.*,Gcsnap\.Sample\.FieldShapes\.Orders$' \
    "path statics: the VipCustomer's path does not start at the static FieldShapes.Orders"
  expect_line "$text" '^1,1,0x[0-9a-f]+,.*,reference,Gcsnap\.Sample\.FieldShapes\.Orders,static,$' \
    "path statics: hop 1 is not the static FieldShapes.Orders"
  expect_line "$text" '^1,2,0x[0-9a-f]+,.*Entry.*\[\]",[0-9]+,[a-z0-9]+,reference,_entries,field,$' "path fields: no Dictionary._entries hop"
  expect_line "$text" '^1,3,0x[0-9a-f]+,Gcsnap\.Sample\.Order,[0-9]+,[a-z0-9]+,reference,\[17\]\.value,element,$' \
    "path fields: the Order is not _entries[17].value"
  expect_line "$text" '^1,4,0x[0-9a-f]+,Gcsnap\.Sample\.VipCustomer,[0-9]+,[a-z0-9]+,reference,Customer,field,$' \
    "path fields: the VipCustomer is not Order.Customer"
  text=$(csv path "$1" --type Gcsnap.Sample.Subscriber)
  expect_line "$text" '^1,2,0x[0-9a-f]+,System\.EventHandler,[0-9]+,[a-z0-9]+,reference,Changed,field,$' "path fields: the event is not Publisher.Changed"
  expect_line "$text" '^1,3,0x[0-9a-f]+,Gcsnap\.Sample\.Subscriber,[0-9]+,[a-z0-9]+,reference,_target,field,$' \
    "path fields: the subscriber is not the delegate's _target (a field of the base class Delegate)"
  text=$(csv path "$1" --type Gcsnap.Sample.SlotItem)
  expect_line "$text" '^1,2,0x[0-9a-f]+,Gcsnap\.Sample\.SlotItem,[0-9]+,[a-z0-9]+,reference,\[17\],element,$' "path fields: the SlotItem is not element [17]"
  # The two static Dictionary<string, Order> fields are told apart: one path each, each named.
  text=$(csv path "$1" --type 'System.Collections.Generic.Dictionary<System.String, Gcsnap.Sample.Order>' --all)
  expect_line "$text" '^[12],0x[0-9a-f]+,.*,1,strong,handle,.*,Gcsnap\.Sample\.FieldShapes\.Orders$' "path statics: no dictionary held by FieldShapes.Orders"
  expect_line "$text" '^[12],0x[0-9a-f]+,.*,1,strong,handle,.*,Gcsnap\.Sample\.FieldShapes\.Archive$' "path statics: no dictionary held by FieldShapes.Archive"
  [ "$(grep -Ec '^[0-9]+,0x[0-9a-f]+,' <<<"$text")" -eq 2 ] || { printf '%s\n' "$text"; fail "path statics: not exactly two Dictionary<String, Order>"; }
  text=$("$gcsnap" path "$1" --type Gcsnap.Sample.VipCustomer) || fail "gcsnap path --type VipCustomer exited non-zero"
  expect_line "$text" '^note: path 1: Gcsnap\.Sample\.FieldShapes\.Orders \(static\) -> ' "path statics: the one-line path does not start at the static"
  text=$("$gcsnap" path "$1" --type Gcsnap.Sample.SlotItem --format json) || fail "gcsnap path --format json exited non-zero"
  expect_line "$text" '"hop": 2, .*"type": "Gcsnap\.Sample\.SlotItem", .*"field": "\[17\]", "field_kind": "element", "field_note": null' \
    "path fields: the JSON hop has no field key naming [17]"
}

# record --every -- COMMAND: heap walks on a clock for an app started under record (--policy
# none: no other walk), an interval apart; leaks finds the planted leak from them.
case_record_every() {
  local text
  record_opts=(--policy none --every 1s)
  record_app 0 leaks 10 600
  grep -Eq "^gcsnap: recorded [0-9]+ GCs, [3-9][0-9]* snapshots, " "$err" || fail "the summary does not count at least 3 walks"
  check_cli_accepts
  check_no_policy_walk "$snap"
  check_walk_gaps "$snap" 950000000 4000000000
  text=$(csv leaks "$snap" --top 0)
  expect_line "$text" "^[0-9]+,Gcsnap\.Sample\.LeakedSession,$(fact sessions "$out"),\+?[0-9]+,[1-9][0-9]*,.*,System\.Collections\.Generic\.List<Gcsnap\.Sample\.LeakedSession> \(via Gcsnap\.Sample\.LeakedSession\[\]\),0x" \
    "leaks on the record --every recording: the sessions are not a suspect held by their List"
}

# The events source (docs/shim.md "Sources"): background GC stays on where the profiler source
# turns it off. The app counts its background GCs itself (GC.GetGCMemoryInfo); the recording
# must hold GCs marked background (`gen2 bg`), say its source, and pass verify. The sample app
# turns concurrent GC off in its runtimeconfig; DOTNET_gcConcurrent=1 turns it back on.
bgc_count() { sed -n 's/^gcsnap-sample: mode=bgc .*background_gcs=\([0-9]*\) .*/\1/p' "$1"; }
case_events_bgc() {
  local n marked
  record_opts=(--source events --every 1s)
  DOTNET_gcConcurrent=1 record_app 0 bgc 60
  n=$(bgc_count "$out")
  [ -n "$n" ] && [ "$n" -gt 0 ] || fail "no background GC ran under the events source (background_gcs=$n)"
  check_cli_accepts
  marked=$(grep -c '^ *[0-9]* *gen2 bg ' "$work/$case_name.info")
  [ "$marked" -gt 0 ] || fail "info lists no background GC"
  grep -q "recorded from the runtime's events (record --source events): background GC stays on ($marked background GC(s)" \
    "$work/$case_name.info" || fail "info does not say the source and its background GCs"
}
case_profiler_bgc() {
  local n
  record_opts=(--source profiler --policy none)
  DOTNET_gcConcurrent=1 record_app 0 bgc 40
  n=$(bgc_count "$out")
  [ "$n" = 0 ] || fail "a background GC ran under the profiler source (background_gcs=$n)"
  check_cli_accepts
  ! grep -q 'gen2 bg' "$work/$case_name.info" || fail "info lists a background GC"
}
# The events source's walks on demand find the planted leaks as the profiler source's do
# (case record_every): identity across GCs from the event ranges, names and paths from the walks.
case_events_every() {
  local text
  record_opts=(--source events --policy none --every 1s)
  record_app 0 leaks 10 600
  grep -Eq "^gcsnap: recorded [0-9]+ GCs, [3-9][0-9]* snapshots, " "$err" || fail "the summary does not count at least 3 walks"
  check_cli_accepts
  check_no_policy_walk "$snap"
  text=$(csv leaks "$snap" --top 0)
  expect_line "$text" "^[0-9]+,Gcsnap\.Sample\.LeakedSession,$(fact sessions "$out"),\+?[0-9]+,[1-9][0-9]*,.*,System\.Collections\.Generic\.List<Gcsnap\.Sample\.LeakedSession> \(via Gcsnap\.Sample\.LeakedSession\[\]\),0x" \
    "leaks on the events recording: the sessions are not a suspect held by their List"
}

# --policy gen2 with the events source (docs/shim.md "Snapshot policies"): a GC the policy picks
# is not walked itself; the shim walks a full GC it forces after it. So every policy walk is at
# an induced blocking gen2 GC with objects, and follows a gen2 GC of the app's that was not
# walked since the walk before: the walk's own forced gen2 GC never asks for the next. Background
# GC stays on meanwhile.
case_events_policy() {
  local rows walks
  record_opts=(--source events --policy gen2)
  DOTNET_gcConcurrent=1 record_app 0 bgc 60
  [ "$(bgc_count "$out")" -gt 0 ] || fail "no background GC ran under the events source with --policy gen2"
  check_cli_accepts
  rows=$(info_columns "$snap" gcs gc generation reason trigger objects) || fail "no GC rows in $snap"
  walks=$(grep -c ',policy,' <<<"$rows")
  [ "$walks" -ge 1 ] || { printf '%s\n' "$rows"; fail "--policy gen2 walked no GC under the events source"; }
  awk -F, '$4 == "policy" && !($2 == "gen2" && $3 == "induced" && $5 > 0) { print "not a forced full walk: " $0; bad = 1 }
           END { exit bad }' <<<"$rows" || fail "a policy walk is not at an induced blocking gen2 GC with objects"
  awk -F, '$4 == "policy" { if (!picked) { print "no gen2 GC picked it: " $0; bad = 1 } picked = 0; next }
           $2 ~ /^gen2/ { picked = 1 } END { exit bad }' <<<"$rows" ||
    { printf '%s\n' "$rows"; fail "a policy walk follows no gen2 GC of its own (a walk asked for another)"; }
  grep -q '^ *[0-9]* *gen2 bg ' "$work/$case_name.info" || fail "info lists no background GC"
  grep -Eq "^gcsnap: recorded [0-9]+ GCs, $walks snapshots, " "$err" || fail "the summary does not count the $walks policy walks"
}

# Planted leaks and look-alikes (sample_app/LeakRounds.cs), one heap walk per round: `leaks`
# reports the two true leaks (their series grow every round) and nothing of the bounded
# cache, the per-round churn or the startup allocation; `check` fails on them.
case_leaks() {
  local rounds=8 text counts rc
  record_opts=(--policy induced)
  record_app 0 leaks "$rounds"
  check_cli_accepts
  text=$(csv leaks "$snap" --top 0)
  expect_line "$text" "^[0-9]+,Gcsnap\.Sample\.LeakedSession,$(fact sessions "$out"),\+?$(fact sessions "$out"),$(fact sessions "$out"),.*,System\.Collections\.Generic\.List<Gcsnap\.Sample\.LeakedSession> \(via Gcsnap\.Sample\.LeakedSession\[\]\),0x[0-9a-f]+,0x[0-9a-f]+," \
    "leaks: the sessions are not a suspect held by their List, with every session new and alive"
  expect_line "$text" '^[0-9]+,[0-9]+,[0-9]+,[0-9]+,\[[a-z ]+\] -> .*System\.Collections\.Generic\.List<Gcsnap\.Sample\.LeakedSession> -> Gcsnap\.Sample\.LeakedSession\[\] -> Gcsnap\.Sample\.LeakedSession$' \
    "leaks: the sessions' path shape does not go through their List and its array"
  expect_line "$text" 'Gcsnap\.Sample\.LeakSubscriber' "leaks: the event subscribers are not reported"
  expect_line "$text" "^[0-9]+,System\.EventHandler,$(fact subscribers "$out")," "leaks: not every event handler is a suspect"
  # The suspects come before the bounded list (its CSV section starts rank,type,why): the
  # capped cache belongs there, held flat, and no look-alike among the suspects.
  local suspects bounded
  suspects=$(sed '/^rank,type,why,/,$d' <<<"$text")
  bounded=$(sed -n '/^rank,type,why,/,/^$/p' <<<"$text")
  for look_alike in CacheEntry ChurnItem StartupBlob 'Int64\[\]' 'Char\[\]'; do
    ! grep -Eq "$look_alike" <<<"$suspects" || { printf '%s\n' "$text"; fail "leaks: $look_alike reported (not a leak)"; }
  done
  expect_line "$bounded" '^[0-9]+,Gcsnap\.Sample\.CacheEntry,held_flat,' "leaks: the capped cache is not in the bounded list"
  # The sessions' series: 0 at the first walk, then strictly growing, one walk per round.
  local rank
  rank=$(sed -nE 's/^([0-9]+),Gcsnap\.Sample\.LeakedSession,.*/\1/p' <<<"$text")
  counts=$(awk -F, -v r="$rank" 'NF == 7 && $1 == r && $2 ~ /\.snap$/ { print $4 }' <<<"$text" | tr '\n' ' ')
  [ "$(wc -w <<<"$counts")" -eq $((rounds + 1)) ] || fail "leaks: the series has not $((rounds + 1)) walks: $counts"
  awk '{ if ($1 != 0) exit 1; for (i = 2; i <= NF; i++) if ($i <= $(i - 1)) exit 1 }' <<<"$counts" ||
    fail "leaks: the sessions' series does not start at 0 and grow every round: $counts"
  # check: the limits that hold pass, the leak fails with a list of what failed.
  "$gcsnap" check "$snap" --max-count "Gcsnap.Sample.CacheEntry=$(fact cache_entries "$out")" \
    --max-growth 'Gcsnap.Sample.StartupBlob=1KiB' >"$work/check.out" 2>&1; rc=$?
  show "$work/check.out"
  [ "$rc" -eq 0 ] || fail "gcsnap check exited $rc on limits that hold"
  "$gcsnap" check "$snap" >"$work/check.out" 2>&1; rc=$?
  show "$work/check.out"
  [ "$rc" -eq 1 ] || fail "gcsnap check exited $rc with leak suspects, expected 1"
  grep -q '^gcsnap: check: FAIL suspect Gcsnap.Sample.LeakedSession' "$work/check.out" || fail "check does not list the leak"
  # A second, later run of the app: both recordings are one series, in time order whatever
  # the order of the arguments (identity is followed within each recording).
  local second=$work/leaks-second.snap
  rm -f "$second"
  "$gcsnap" record -o "$second" --policy induced -- dotnet "$dll" leaks 4 >/dev/null 2>&1 </dev/null ||
    fail "recording the second run failed"
  text=$(csv leaks "$second" "$snap" --top 0)
  expect_line "$text" "^[0-9]+,Gcsnap\.Sample\.LeakedSession,$((4 * 150)),\+?$((4 * 150)),$((4 * 150))," \
    "leaks over two recordings: the second run's sessions are not a suspect"
  [ "$(sed '/^rank,type,why,/,$d' <<<"$text" | grep -Ec '^1,[^,]*\.snap,[0-9]+,')" -eq $((rounds + 1 + 5)) ] || fail "leaks over two recordings: not $((rounds + 1 + 5)) walks"
  grep -E '^1,[^,]*\.snap,' <<<"$text" | sed -n 1p | grep "^1,$snap," >/dev/null || fail "leaks over two recordings: the earlier recording is not first"
  # A recording of another app is refused with one line.
  "$gcsnap" leaks "$snap" "$(dirname "$0")/../golden/sample-valid.snap" >"$work/leaks.other" 2>&1; rc=$?
  show "$work/leaks.other"
  [ "$rc" -eq 2 ] && [ "$(wc -l <"$work/leaks.other")" -eq 1 ] && grep -q 'not a recording of the same app' "$work/leaks.other" ||
    fail "leaks accepted a recording of another app (exit $rc)"
}

# A size cap (record --max-size, format-spec.md §6.17) on the churn loop walked at every GC
# (~110 walks of 10-150 KiB, 9 MiB uncapped): the oldest walks are dropped. The file's disk usage
# stays under the cap (plus the index and trailer written at the end: 64 KiB of slack), info names
# the dropped walks, verify passes, leaks and diff use the walks that remain, and a command given
# a dropped walk says so in one line.
case_max_size() {
  local cap=$((2 * 1024 * 1024)) text disk dropped walks rc gc first
  # Without allocation sampling: its samples are kept with every GC's facts, which the cap
  # never drops, and on this churn they alone pass 2 MiB (docs/cli.md "--max-size").
  record_opts=(--policy all --max-size 2M --no-alloc-sites)
  record_app 0 churn 10000
  check_cli_accepts
  disk=$(du -B1 "$snap" | cut -f1)
  [ "$disk" -le $((cap + 65536)) ] || fail "the recording uses $disk bytes on the disk, above the cap $cap + 64 KiB"
  text=$(csv info "$snap" --table file)
  dropped=$(awk -F, 'NR == 2 { print $7 }' <<<"$text")
  walks=$(awk -F, 'NR == 2 { print $6 }' <<<"$text")
  [ -n "$dropped" ] && [ "$dropped" -ge 10 ] || { printf '%s\n' "$text"; fail "info: fewer than 10 walks dropped"; }
  [ "$walks" -ge 3 ] || { printf '%s\n' "$text"; fail "info: fewer than 3 walks kept ($walks)"; }
  grep -Eq "^note: $dropped heap walk\(s\) dropped to keep the recording under its size cap \(--max-size\): GC 1, 2, " \
    "$work/$case_name.info" || fail "info does not name the dropped walks, oldest first"
  # The oldest walks went first: every kept walk comes after every dropped one.
  text=$(info_columns "$snap" gcs gc trigger walk_dropped walk_dropped_bytes) || fail "no GC rows in info --table gcs"
  first=$(awk -F, '$2 == "always" && $3 == "false" && $4 == 0 { print $1; exit }' <<<"$text")
  gc=$(awk -F, '$3 == "true" { g = $1 } END { print g }' <<<"$text")
  [ -n "$first" ] && [ -n "$gc" ] && [ "$gc" -lt "$first" ] || fail "a dropped walk (GC $gc) is newer than a kept one (GC $first)"
  "$gcsnap" types "$snap:$gc" >"$work/types.out" 2>&1; rc=$?
  show "$work/types.out"
  [ "$rc" -eq 2 ] && [ "$(wc -l <"$work/types.out")" -eq 1 ] &&
    grep -q "GC $gc's heap walk was dropped to keep the recording under its size cap" "$work/types.out" ||
    fail "types on dropped GC $gc: exit $rc, not one line saying the walk was dropped"
  "$gcsnap" types "$snap:$first" --top 3 >"$work/types.out" 2>&1 || { show "$work/types.out"; fail "types on kept GC $first failed"; }
  # leaks and diff run over the kept walks only (first to last).
  text=$(csv leaks "$snap" --top 3)
  text=$(csv diff "$snap")
  [ -n "$text" ] || fail "diff of the first and last kept walks printed nothing"
  "$gcsnap" diff "$snap" >"$work/diff.out" 2>&1 || { show "$work/diff.out"; fail "diff failed"; }
  grep -Eq "^a +[^ ]+ +$first " "$work/diff.out" || { show "$work/diff.out"; fail "diff does not start at the first kept walk (GC $first)"; }
}

# Memory accounting (format-spec.md §6.16) on the sample app's `memory KIND MIB` mode
# (sample_app/MemoryShapes.cs): the first and the last walked GC's records (before and after the
# app took its memory) must put the difference where it is, within the tolerances below.
# memory_field ROW KEY: KEY's number in one row of `info --format json --table memory`.
memory_field() { sed -nE "s/.*\"$2\": ([0-9]+).*/\1/p" <<<"$1"; }
# memory_rows: the rows of the walked GCs (their live_object_bytes is known).
memory_rows() {
  "$gcsnap" info "$snap" --format json --table memory >"$work/$case_name.json" 2>&1 ||
    { show "$work/$case_name.json"; fail "info --format json --table memory failed"; }
  grep '"live_object_bytes": [0-9]' "$work/$case_name.json"
}
# within VALUE LOW HIGH WHAT: LOW <= VALUE <= HIGH, or fail saying WHAT.
within() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ] || fail "$4: $1 not in [$2, $3]"; }
memory_case() {
  local kind=$1 mib=$2
  record_opts=(--policy gen2)
  record_app 0 memory "$kind" "$mib"
  check_cli_accepts
  local rows first last key
  rows=$(memory_rows)
  [ "$(wc -l <<<"$rows")" -ge 2 ] || { show "$work/$case_name.json"; fail "fewer than two walked GCs with a memory record"; }
  first=$(head -1 <<<"$rows") last=$(tail -1 <<<"$rows")
  for key in rss_bytes gc_committed_bytes gc_in_use_bytes live_object_bytes native_and_other_bytes; do
    [ -n "$(memory_field "$last" "$key")" ] || fail "the memory row has no number for $key: $last"
  done
  held=$(sed -nE 's/^gcsnap-sample: mode=memory .*bytes=([0-9]+).*/\1/p' "$out")
  [ -n "$held" ] || fail "the app did not say how many bytes it holds"
  d_native=$(($(memory_field "$last" native_and_other_bytes) - $(memory_field "$first" native_and_other_bytes)))
  d_managed=$(($(memory_field "$last" gc_resident_bytes) - $(memory_field "$first" gc_resident_bytes)))
  d_live=$(($(memory_field "$last" live_object_bytes) - $(memory_field "$first" live_object_bytes)))
  free_last=$(memory_field "$last" free_or_fragmented_bytes)
  echo "memory $kind: held $held, native+other $d_native, managed $d_managed, live $d_live, free now $free_last"
}
mib=$((1 << 20))
# 256 MiB of touched AllocHGlobal: native and other grows by it (-5 %, +10 %: malloc's and the
# runtime's own growth), the managed heap by less than 16 MiB; info says that native memory
# grew, which kind, and names the tools that see it.
case_memory_native() {
  memory_case native 256
  within "$d_native" $((held * 95 / 100)) $((held * 110 / 100)) "native and other did not grow by the native leak"
  within "$d_managed" $((-16 * mib)) $((16 * mib)) "the managed heap moved with a native leak"
  grep -q 'native and other memory grew by .* from GC [0-9]* to GC [0-9]* (.*): anonymous (native allocations) +' "$work/$case_name.info" ||
    fail "info does not say that native memory grew"
  grep -q 'heaptrack' "$work/$case_name.info" || fail "info does not name a native memory tool"
  grep -Eq '^GC [0-9]+: managed heap .* of .* resident: .* live objects, .* free or fragmented; .* native and other' \
    "$work/$case_name.info" || fail "info does not open with the memory summary"
  # The report carries the same summary, the parts of its bar, the advice and the RSS series.
  "$gcsnap" report "$snap" -o "$work/$case_name.html" >/dev/null 2>&1 || fail "gcsnap report failed"
  grep -Eq '"memory":\{"gc":[0-9]+,"summary":"managed heap [^"]* native and other[^"]*","parts":\[[0-9]+,[0-9]+,[0-9]+,[0-9]+\],"advice":\["native and other memory grew by' \
    "$work/$case_name.html" || fail "the report does not carry the memory summary and advice"
  grep -Eq '"series":\[\[[0-9]+,[0-9]+,[0-9]+,-?[0-9]+\],\[' "$work/$case_name.html" || fail "the report has no RSS series"
}
# 256 MiB of 64 KiB arrays: live objects grow by it (+0..+2 %: array headers and the list),
# the managed heap's resident part by at least 95 % of it, native and other by less than 48 MiB
# (the GC's bookkeeping for the new regions, and the stacks of threads started meanwhile: up to
# 35.6 MiB seen on a loaded machine; a leak counted on the wrong side would move it by 256).
case_memory_managed() {
  memory_case managed 256
  within "$d_live" "$held" $((held * 102 / 100)) "live objects did not grow by the managed leak"
  within "$d_managed" $((held * 95 / 100)) $((held * 120 / 100)) "the managed heap did not grow by the managed leak"
  within "$d_native" $((-48 * mib)) $((48 * mib)) "native and other moved with a managed leak"
  if grep -Eq 'is not the managed heap|native and other memory grew' "$work/$case_name.info"; then
    fail "info calls a managed leak native"
  fi
}
# 128 MiB of 8 KiB arrays with one in 16 pinned: the pinned 8 MiB are live, and at least half of
# the other 120 MiB stays in the heap as free space; info names the pinned arrays' type.
case_memory_pinned() {
  memory_case pinned 128
  within "$d_live" "$held" $((held * 110 / 100 + 4 * mib)) "live objects are not the pinned arrays"
  within "$free_last" $((60 * mib)) $((200 * mib)) "the pinned arrays do not leave the heap fragmented"
  grep -q 'of the managed heap (.*) is free or fragmented; [0-9]* pinned handle(s); pinned and large objects that can hold gaps open: System.Byte\[\]' \
    "$work/$case_name.info" || fail "info does not name the pinned arrays as holding the free space"
}
# record --on-rss 128M on an app whose native memory grows by 384 MiB at 80 MiB/s (from about 60
# MiB resident): one walk each when the resident size reaches 128, 256 and 384 MiB, and no
# other (--policy none); each walk's memory record shows the size it was taken at. With
# --max-snapshots 2 the third is not taken.
case_memory_on_rss() {
  record_opts=(--policy none --on-rss 128M)
  record_app 0 memory grow 384
  check_cli_accepts
  local reached
  reached=$(sed -nE 's/^gcsnap: process [0-9]+: heap walk \(resident [0-9]+ MiB reached ([0-9]+) MiB\)$/\1/p' "$err" | tr '\n' ' ')
  [ "$reached" = "128 256 384 " ] || fail "--on-rss 128M walked at '$reached', expected at 128 256 384 MiB"
  local rows k=0 row rss
  rows=$(memory_rows)
  [ "$(wc -l <<<"$rows")" -eq 3 ] || { show "$work/$case_name.json"; fail "not 3 walked GCs with a memory record"; }
  while read -r row; do
    k=$((k + 1)) rss=$(memory_field "$row" rss_bytes)
    within "$rss" $((k * 128 * mib)) $(((k * 128 + 96) * mib)) "walk $k's resident size"
  done <<<"$rows"
  record_opts=(--policy none --on-rss 128M --max-snapshots 2)
  record_app 0 memory grow 384
  [ "$(grep -c '^gcsnap: process [0-9]*: heap walk (resident' "$err")" -eq 2 ] || fail "--max-snapshots 2 did not stop --on-rss at 2 walks"
  [ "$(memory_rows | wc -l)" -eq 2 ] || fail "--max-snapshots 2: not 2 walks in the recording"
  rm -f "$work/on-rss-bad.snap"
  "$gcsnap" record -o "$work/on-rss-bad.snap" --on-rss 12X -- dotnet "$dll" exit 0 >"$work/on-rss-bad.err" 2>&1
  local rc=$?
  show "$work/on-rss-bad.err"
  [ "$rc" -eq 2 ] && grep -q "^gcsnap: error: --on-rss '12X' is not a size" "$work/on-rss-bad.err" ||
    fail "a bad --on-rss size was not a usage error (exit $rc)"
  [ ! -e "$work/on-rss-bad.snap" ] || fail "a bad --on-rss size still recorded"
}

# gcs_rows: `info --format json --table gcs`, one GC a line.
gcs_rows() {
  "$gcsnap" info "$snap" --format json --table gcs >"$work/$case_name.gcs.json" 2>&1 ||
    { show "$work/$case_name.gcs.json"; fail "info --format json --table gcs failed"; }
  grep '"gc": [0-9]' "$work/$case_name.gcs.json"
}
# old_bytes GC: gen2 + LOH + POH after GC, from `info --format json --table heap`.
old_bytes() {
  local row
  row=$(grep "\"gc\": $1," "$work/$case_name.heap.json")
  echo $(($(memory_field "$row" gen2_bytes) + $(memory_field "$row" loh_bytes) + $(memory_field "$row" poh_bytes)))
}
# record --on-heap-growth 32M on an app whose large object heap grows by 144 MiB in 8 MiB steps,
# each ended by a gen0 GC (sample_app/MemoryShapes.cs heapgrow): a walk each time gen2 + LOH +
# POH have grown by 32, 64, 96 and 128 MiB since the first GC, and no other (--policy none).
# Exact: between walk k-1 and walk k there is a GC whose growth reached k*32 MiB. Tolerance: the walk's own GC holds k*32 - 4 to
# k*32 + 32 MiB more (the shim first prepares its buffers for the heap, taking up to a few
# hundred ms under load, while the app adds 8 MiB per 100 ms).
case_memory_on_heap_growth() {
  record_opts=(--policy none --on-heap-growth 32M)
  record_app 0 memory heapgrow 144
  check_cli_accepts
  local thresholds walks first k=0 gc grown crossed previous=0 g
  thresholds=$(sed -nE 's/^gcsnap: heap walk at GC [0-9]+ \(gen2 \+ LOH \+ POH grew by [0-9]+ MiB since the first GC, threshold ([0-9]+) MiB\)$/\1/p' "$err" | tr '\n' ' ')
  [ "$thresholds" = "32 64 96 128 " ] || fail "--on-heap-growth 32M walked at thresholds '$thresholds', expected 32 64 96 128 MiB"
  walks=$(gcs_rows | grep -v '"trigger": "none"' | grep -v '"trigger": "skipped"' | sed -nE 's/^ *\{"gc": ([0-9]+),.*"trigger": "([a-z-]+)".*/\1 \2/p')
  [ "$(wc -l <<<"$walks")" -eq 4 ] || fail "not 4 walked GCs in the recording: $walks"
  grep -qv ' on-demand$' <<<"$walks" && fail "a walk that is not the trigger's (on-demand): $walks"
  "$gcsnap" info "$snap" --format json --table heap >"$work/$case_name.heap.json" 2>&1 || fail "info --table heap failed"
  first=$(old_bytes 1)
  while read -r gc _; do
    k=$((k + 1)) grown=$(($(old_bytes "$gc") - first)) crossed=0
    for ((g = previous + 1; g < gc; g++)); do
      if [ $(($(old_bytes "$g") - first)) -ge $((k * 32 * mib)) ]; then crossed=$g; break; fi
    done
    [ "$crossed" -gt 0 ] || fail "walk $k (GC $gc) came before the growth reached $((k * 32)) MiB"
    echo "walk $k: GC $crossed reached $((k * 32)) MiB, walked at GC $gc, $((grown >> 20)) MiB grown then"
    within "$grown" $(((k * 32 - 4) * mib)) $(((k * 32 + 32) * mib)) "walk $k (GC $gc): old generations' growth"
    previous=$gc
  done <<<"$walks"
  record_opts=(--policy none --on-heap-growth 32M --max-snapshots 2)
  record_app 0 memory heapgrow 144
  [ "$(grep -c '^gcsnap: heap walk at GC' "$err")" -eq 2 ] || fail "--max-snapshots 2 did not stop --on-heap-growth at 2 walks"
  [ "$(gcs_rows | grep -c '"trigger": "on-demand"')" -eq 2 ] || fail "--max-snapshots 2: not 2 walks in the recording"
  rm -f "$work/growth-bad.snap"
  "$gcsnap" record -o "$work/growth-bad.snap" --on-heap-growth 12X -- dotnet "$dll" exit 0 >"$work/growth-bad.err" 2>&1
  local rc=$?
  show "$work/growth-bad.err"
  [ "$rc" -eq 2 ] && grep -q "^gcsnap: error: --on-heap-growth '12X' is not a size" "$work/growth-bad.err" ||
    fail "a bad --on-heap-growth size was not a usage error (exit $rc)"
  [ ! -e "$work/growth-bad.snap" ] || fail "a bad --on-heap-growth size still recorded"
}
# The OOM guard, with the cgroup's figures injected: GCSNAP_TEST_CGROUP_ROOT makes the shim read
# the memory cgroup files under a directory of the test's (v1 and v2 names both), here usage 512
# MiB and limit 513 MiB. Once the heap is known, no walk fits in 1 MiB of headroom: the app's last
# induced GC (--policy induced) is skipped with the reason and the figures, and info says why.
case_memory_oom_guard() {
  local root=$work/cgroup-root
  rm -rf "$root"
  mkdir -p "$root/sys/fs/cgroup/memory"
  echo $((512 * mib)) >"$root/sys/fs/cgroup/memory.current"
  echo $((513 * mib)) >"$root/sys/fs/cgroup/memory.max"
  echo $((512 * mib)) >"$root/sys/fs/cgroup/memory/memory.usage_in_bytes"
  echo $((513 * mib)) >"$root/sys/fs/cgroup/memory/memory.limit_in_bytes"
  record_opts=(--policy induced)
  GCSNAP_TEST_CGROUP_ROOT=$root record_app 0 memory managed 32
  check_cli_accepts
  local skipped
  skipped=$(gcs_rows | grep '"skip_reason": "cgroup_headroom"')
  [ -n "$skipped" ] || fail "no walk skipped for the cgroup's headroom"
  [ "$(memory_field "$(tail -1 <<<"$skipped")" skip_available_bytes)" -eq "$mib" ] ||
    fail "the skip does not record the 1 MiB of headroom: $skipped"
  [ "$(memory_field "$(tail -1 <<<"$skipped")" skip_need_bytes)" -gt "$mib" ] || fail "the skip's need is not above the headroom"
  grep -q 'skipped: cgroup headroom 1 MiB < ' "$work/$case_name.info" || fail "info's SNAPSHOT column does not say why"
  grep -q 'heap walk(s) skipped to keep the process inside its memory cgroup: the last had 1 MiB of headroom (limit 513 MiB, usage 512 MiB)' \
    "$work/$case_name.info" || fail "info has no note on the guard's skips"
  grep -q "^gcsnap: a heap walk was skipped: the memory cgroup's headroom" "$err" || fail "the shim did not say it skipped a walk"
}
# The memory cap: --max-memory 8 leaves a walk 6 MiB of buffers; 32 MiB of 64-byte arrays
# (524 288 objects, ~25 MiB to store) do not fit, so that walk is abandoned whole (no objects,
# reason memory_cap) while the app runs on, and the app's next induced GC, after it dropped the
# arrays, is walked again.
case_memory_cap() {
  record_opts=(--policy induced --max-memory 8)
  record_app 0 memory small 32
  check_cli_accepts
  local rows abandoned after
  rows=$(gcs_rows)
  abandoned=$(grep '"skip_reason": "memory_cap"' <<<"$rows")
  [ "$(wc -l <<<"$abandoned")" -eq 1 ] && [ -n "$abandoned" ] || fail "not one walk abandoned at the cap: $abandoned"
  [ "$(memory_field "$abandoned" objects)" -eq 0 ] || fail "the abandoned walk kept objects: $abandoned"
  [ "$(memory_field "$abandoned" skip_available_bytes)" -eq $((6 * mib)) ] || fail "the cap is not 6 MiB: $abandoned"
  after=$(awk -v gc="$(memory_field "$abandoned" gc)" 'match($0, /"gc": [0-9]+/) { n = substr($0, RSTART + 6, RLENGTH - 6) + 0; if (n > gc) print }' <<<"$rows" |
    grep '"trigger": "policy"')
  [ -n "$after" ] && [ "$(memory_field "$(tail -1 <<<"$after")" objects)" -gt 0 ] || fail "no walk after the abandoned one"
  grep -q 'abandoned: memory cap 6 MiB' "$work/$case_name.info" || fail "info's SNAPSHOT column does not say the walk was abandoned"
  grep -q 'heap walk(s) abandoned at the shim.s memory cap of 6 MiB' "$work/$case_name.info" || fail "info has no note on the cap"
  grep -q '^gcsnap: memory cap reached (GCSNAP_MAX_MEMORY_MB): a heap walk was abandoned' "$err" || fail "the shim did not say so"
}

source "$(dirname "$0")/e2e_attach_cases.sh"

fn=case_${case_name//-/_}
declare -F "$fn" >/dev/null || fail "unknown case"
"$fn" "$@"
echo "e2e $case_name: ok"
