# Attach cases of e2e_cases.sh (sourced by it): gcsnap snapshot / record --pid on a sample app
# started with NO profiler variables, through the runtime's diagnostics IPC (docs/shim.md
# "Attach"). The app runs in attach-wait mode with background GC on, and answers commands on
# its stdin (a FIFO held open on fd 3): "bgc" says whether a background GC can run.

# start_plain_app: the sample app in attach-wait mode, no profiler, background GC on; sets pid.
# GCSNAP_E2E_RUNTIME=MAJOR: the app runs on that runtime's root (scripts/runtimes.sh), rolled
# forward from the net8.0 build its DLL must then be (the runtime matrix's attach cases).
app_dotnet=(dotnet)
if [ -n "${GCSNAP_E2E_RUNTIME:-}" ]; then
  read -r _ runtime_version runtime_root <<<"$("$(dirname "$0")/../../scripts/runtimes.sh" "$GCSNAP_E2E_RUNTIME" | tail -1)"
  [ -n "${runtime_root:-}" ] || fail "scripts/runtimes.sh $GCSNAP_E2E_RUNTIME gave no runtime root"
  app_dotnet=(env DOTNET_ROOT="$runtime_root" DOTNET_ROLL_FORWARD=Major "$runtime_root/dotnet")
fi
start_plain_app() {
  require_dotnet
  local fifo=$work/$case_name.fifo
  # Earlier runs' files: record -o refuses to replace them.
  rm -f "$snap" "$work/$case_name".*.snap "$fifo"; mkfifo "$fifo"
  app_err=$work/$case_name.app.err
  env -u CORECLR_ENABLE_PROFILING -u CORECLR_PROFILER -u CORECLR_PROFILER_PATH -u GCSNAP_OUTPUT \
    DOTNET_gcConcurrent=1 "${app_dotnet[@]}" "$dll" attach-wait <"$fifo" >"$out" 2>"$app_err" &
  pid=$!
  exec 3>"$fifo"
  for _ in $(seq 1 600); do
    if grep -q "^gcsnap-sample: ready" "$out" 2>/dev/null; then
      [ -z "${GCSNAP_E2E_RUNTIME:-}" ] || grep -qF "$runtime_root/shared/Microsoft.NETCore.App/$runtime_version/libcoreclr.so" "/proc/$pid/maps" ||
        fail "the app does not run on the runtime $runtime_version at $runtime_root"
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  exec 3>&-; show "$out"; fail "the app never became ready"
}

# record_attached LINE ARGS...: start `gcsnap record --pid $pid -o $snap ARGS` in the background
# (its pid in recorder, its stderr in $work/$case_name.rec) and wait (up to 30 s) until it says
# it records with exactly LINE; fail when it does not.
record_attached() {
  local expected=$1
  shift
  "$gcsnap" record --pid "$pid" -o "$snap" "$@" >"$work/$case_name.rec" 2>&1 &
  recorder=$!
  for _ in $(seq 1 300); do
    grep -qxF "$expected" "$work/$case_name.rec" && return 0
    kill -0 "$recorder" 2>/dev/null || break
    sleep 0.1
  done
  grep -qxF "$expected" "$work/$case_name.rec" || { show "$work/$case_name.rec"; fail "record --pid did not say: $expected"; }
}

# app_says CMD PATTERN: send CMD to the app and wait (up to 30 s) for a new output line
# matching PATTERN; print that line.
app_says() {
  local before line
  before=$(wc -l <"$out")
  echo "$1" >&3
  for _ in $(seq 1 300); do
    line=$(tail -n +$((before + 1)) "$out" | grep -m1 "$2")
    [ -n "$line" ] && { echo "$line"; return 0; }
    sleep 0.1
  done
  show "$out"; fail "the app did not answer '$1' with a line matching '$2'"
}

# expect_bgc 0|1 WHY: ask the app for a background GC; fail unless it ran (1) or not (0).
expect_bgc() {
  local line
  line=$(app_says bgc '^gcsnap-sample: bgc=')
  grep -q "bgc=$1 " <<<"$line" || fail "$2 ($line)"
}

# expect_bgc_eventually MESSAGE: a detach the shim starts by itself (the watchdog) removes the
# control socket first; the runtime re-enables background GC only when RequestProfilerDetach
# has evacuated (>= 300 ms later, more on a loaded machine): ask again for up to 15 s.
expect_bgc_eventually() {
  local line
  for _ in $(seq 1 30); do
    line=$(app_says bgc '^gcsnap-sample: bgc=')
    grep -q "bgc=1 " <<<"$line" && return 0
    sleep 0.5
  done
  fail "$1 ($line)"
}

# stop_plain_app: quit the app; its exit code must be 0 and its stderr empty (or exactly
# app_err_lines lines, when the case made the shim speak).
stop_plain_app() {
  local rc
  echo quit >&3; exec 3>&-
  wait "$pid"; rc=$?
  show "$app_err"
  [ "$rc" -eq 0 ] || fail "the app exited $rc after the attach, expected 0"
  grep -q '^gcsnap-sample: done finalized=64 ' "$out" || fail "the app did not finish its run normally"
  [ "$(wc -l <"$app_err")" -eq "${app_err_lines:-0}" ] || fail "the app wrote to stderr (the shim said something?)"
}

# gc_count FILE: how many GCs FILE holds.
gc_count() { "$gcsnap" info "$1" --format csv --table gcs 2>/dev/null | tr -d '\r' | grep -c '^[0-9]'; }

# Attach, snapshot, detach; background GC back and nothing recorded after; twice in a row.
case_attach_snapshot() {
  local rc before_bgc copy=$work/$case_name.copy.snap second=$work/$case_name.2.snap text
  start_plain_app
  expect_bgc 1 "no background GC before any attach: the check itself does not work"
  "$gcsnap" ps >"$work/$case_name.ps" 2>&1 || { show "$work/$case_name.ps"; fail "gcsnap ps exited non-zero"; }
  grep -Eq "^ *$pid  Gcsnap\.Sample +-  +dotnet $dll attach-wait$" "$work/$case_name.ps" ||
    { show "$work/$case_name.ps"; fail "gcsnap ps does not list the app as attachable"; }
  # A stale control socket (left by a dead process that had this pid) must not fool gcsnap.
  python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "${TMPDIR:-/tmp}/gcsnap-$pid.ctl" ||
    fail "cannot make a stale control socket"
  "$gcsnap" snapshot "$pid" -o "$snap" >"$work/$case_name.cmd" 2>&1; rc=$?
  show "$work/$case_name.cmd"
  [ "$rc" -eq 0 ] || fail "gcsnap snapshot $pid exited $rc"
  [ "$(wc -l <"$work/$case_name.cmd")" -eq 1 ] || fail "expected exactly one line from gcsnap snapshot"
  grep -Eq "^snapshot of process $pid \(Gcsnap.Sample\): GC #1, .* in $snap; detached$" "$work/$case_name.cmd" ||
    fail "the line does not say what was done"
  check_cli_accepts
  grep -q 'ends complete' "$work/$case_name.verify" || fail "the file does not end complete (index missing?)"
  [ "$(gc_count "$snap")" -eq 1 ] || fail "the file holds $(gc_count "$snap") GCs, expected the one forced GC"
  # After the detach: background GC is on again and GCs are no longer recorded.
  cp "$snap" "$copy"
  expect_bgc 1 "no background GC after the detach"
  app_says gc '^gcsnap-sample: gc ' >/dev/null
  cmp -s "$snap" "$copy" || fail "the file changed after the detach"
  # The analyses on the attached snapshot: the same types and paths as on a recording.
  analysis_types_and_paths "$snap:1" "$out" 'Gcsnap\.Sample\.AttachWait\.Run'
  text=$(csv roots "$snap:1" --kind finalizer --type Gcsnap.Sample.Finalizable)
  expect_line "$text" "^finalizer,,$(fact finalizable "$out")," "roots: not every Finalizable is a finalizer root"
  # Attach again into the same process.
  "$gcsnap" snapshot "$pid" -o "$second" >"$work/$case_name.cmd2" 2>&1; rc=$?
  show "$work/$case_name.cmd2"
  [ "$rc" -eq 0 ] || fail "the second gcsnap snapshot $pid exited $rc"
  "$gcsnap" verify "$second" >/dev/null 2>&1 || fail "the second snapshot does not verify"
  text=$(csv types "$second:1" --filter Gcsnap.Sample.LeakyItem)
  expect_line "$text" "^Gcsnap\.Sample\.LeakyItem,$(fact leaky_items "$out")," "second snapshot: LeakyItem count"
  expect_bgc 1 "no background GC after the second detach"
  # Never lose a snapshot: -o naming an existing file is refused (the file untouched, the app
  # not attached) unless --force; two plain snapshots get two time-stamped files.
  cp "$second" "$copy"
  "$gcsnap" snapshot "$pid" -o "$second" >"$work/$case_name.cmd3" 2>&1; rc=$?
  show "$work/$case_name.cmd3"
  [ "$rc" -eq 4 ] || fail "snapshot -o onto an existing file exited $rc, expected 4"
  grep -qx "gcsnap: error: $second exists; add --force to replace it" "$work/$case_name.cmd3" ||
    fail "snapshot -o onto an existing file does not say why it refused"
  cmp -s "$second" "$copy" || fail "snapshot -o changed an existing file it refused"
  "$gcsnap" snapshot "$pid" -o "$second" --force >"$work/$case_name.cmd4" 2>&1 || fail "snapshot -o --force failed"
  cmp -s "$second" "$copy" && fail "snapshot -o --force did not replace the file"
  "$gcsnap" verify "$second" >/dev/null 2>&1 || fail "the replaced snapshot does not verify"
  local cwd=$work/$case_name.cwd n
  rm -rf "$cwd"; mkdir -p "$cwd"
  for n in 1 2; do
    (cd "$cwd" && "$gcsnap" snapshot "$pid") >"$work/$case_name.plain$n" 2>&1 ||
      { show "$work/$case_name.plain$n"; fail "plain snapshot $n exited non-zero"; }
  done
  [ "$(find "$cwd" -name "gcsnap-Gcsnap.Sample-$pid-[0-9]*-[0-9]*.snap" | wc -l)" -eq 2 ] ||
    { ls -la "$cwd"; fail "two plain snapshots did not leave two time-stamped files"; }
  for f in "$cwd"/*.snap; do "$gcsnap" verify "$f" >/dev/null 2>&1 || fail "$f does not verify"; done
  expect_bgc 1 "no background GC after the plain snapshots"
  stop_plain_app
}

# record --pid: every GC while attached (no background GC then), a snapshot added by
# `gcsnap snapshot`, Ctrl+C ends it, background GC comes back.
case_attach_record() {
  local rc recorder line
  start_plain_app
  record_attached "gcsnap: recording process $pid (Gcsnap.Sample) into $snap for 300 s" --source profiler --duration 300s
  expect_bgc 0 "a background GC ran while gcsnap was attached"
  "$gcsnap" snapshot "$pid" >"$work/$case_name.cmd" 2>&1 || { show "$work/$case_name.cmd"; fail "snapshot during record --pid failed"; }
  grep -q "^snapshot taken in process $pid: GC #" "$work/$case_name.cmd" || fail "snapshot during record --pid said something else"
  kill -INT "$recorder"
  wait "$recorder"; rc=$?
  show "$work/$case_name.rec"
  [ "$rc" -eq 0 ] || fail "gcsnap record --pid exited $rc after Ctrl+C"
  grep -Eq '^gcsnap: recorded [0-9]+ GCs, [1-9][0-9]* snapshots, .* in '"$snap"'; nothing dropped$' "$work/$case_name.rec" ||
    fail "no summary line"
  check_cli_accepts
  grep -q 'ends complete' "$work/$case_name.verify" || fail "the file does not end complete"
  "$gcsnap" info "$snap" --format csv | tr -d '\r' | grep ',on-demand,' >/dev/null ||
    { "$gcsnap" info "$snap"; fail "no on-demand snapshot in the file"; }
  [ "$(gc_count "$snap")" -ge 3 ] || fail "the GCs of the bgc check (ballast + forced) were not recorded"
  expect_bgc 1 "no background GC after record --pid detached"
  # A short --duration ends by itself.
  "$gcsnap" record --pid "$pid" -o "$work/$case_name.2.snap" --duration 1s >"$work/$case_name.rec2" 2>&1; rc=$?
  show "$work/$case_name.rec2"
  [ "$rc" -eq 0 ] || fail "gcsnap record --pid --duration 1s exited $rc"
  "$gcsnap" verify "$work/$case_name.2.snap" >/dev/null 2>&1 || fail "the --duration recording does not verify"
  # gcsnap killed hard while attached: the shim's watchdog sees its pid gone, finishes the file
  # and detaches by itself.
  "$gcsnap" record --pid "$pid" -o "$work/$case_name.3.snap" >"$work/$case_name.rec3" 2>&1 &
  recorder=$!
  for _ in $(seq 1 300); do grep -q 'until Ctrl+C' "$work/$case_name.rec3" && break; sleep 0.1; done
  grep -q "until Ctrl+C" "$work/$case_name.rec3" || { show "$work/$case_name.rec3"; fail "record --pid did not start"; }
  kill -KILL "$recorder"; wait "$recorder" 2>/dev/null
  for _ in $(seq 1 100); do [ -e "${TMPDIR:-/tmp}/gcsnap-$pid.ctl" ] || break; sleep 0.1; done
  [ ! -e "${TMPDIR:-/tmp}/gcsnap-$pid.ctl" ] || fail "the shim did not notice that gcsnap was killed (control socket still there)"
  expect_bgc_eventually "no background GC after the watchdog detached"
  "$gcsnap" verify "$work/$case_name.3.snap" >"$work/$case_name.verify3" 2>&1 || { show "$work/$case_name.verify3"; fail "the watchdog's file does not verify"; }
  grep -q 'ends complete' "$work/$case_name.verify3" || fail "the watchdog did not finish the file"
  grep -q "^gcsnap: the gcsnap command that attached (pid $recorder) is gone: finishing the file and detaching$" "$app_err" ||
    { show "$app_err"; fail "the shim did not say why it detached"; }
  app_err_lines=1
  stop_plain_app
}

# Bad targets and outputs: one line, non-zero exit, and the process is unharmed.
# record --pid --source events (docs/shim.md "Sources"): background GC stays on while attached
# and after the detach; an on-demand snapshot is a walk of the heap-dump session.
case_attach_record_events() {
  local rc
  start_plain_app
  record_attached "gcsnap: recording process $pid (Gcsnap.Sample) into $snap for 300 s" --source events --policy none --duration 300s
  expect_bgc 1 "no background GC ran while gcsnap was attached with the events source"
  "$gcsnap" snapshot "$pid" >"$work/$case_name.cmd" 2>&1 || { show "$work/$case_name.cmd"; fail "snapshot during record --pid failed"; }
  grep -q "^snapshot taken in process $pid: GC #" "$work/$case_name.cmd" || fail "snapshot during record --pid said something else"
  kill -INT "$recorder"
  wait "$recorder"; rc=$?
  show "$work/$case_name.rec"
  [ "$rc" -eq 0 ] || fail "gcsnap record --pid exited $rc after Ctrl+C"
  grep -Eq '^gcsnap: recorded [0-9]+ GCs, 1 snapshots, .* in '"$snap"'; nothing dropped$' "$work/$case_name.rec" ||
    fail "no summary line with one snapshot"
  check_cli_accepts
  grep -q 'ends complete' "$work/$case_name.verify" || fail "the file does not end complete"
  grep -q "recorded from the runtime's events" "$work/$case_name.info" || fail "info does not name the events source"
  # The walk of the events source names fields and statics as the profiler source's does: the
  # reference slots read from the objects' memory, the statics table through the profiling API.
  analysis_field_names "$snap"
  [ "$(gc_count "$snap")" -ge 3 ] || fail "the GCs of the bgc check (ballast + forced) were not recorded"
  expect_bgc 1 "no background GC after record --pid --source events detached"
  stop_plain_app
}

case_attach_errors() {
  local rc sleeper missing=999999999
  start_plain_app
  expect_error() {  # expect_error PATTERN WHAT CMD...: one line on stderr matching PATTERN, exit != 0
    local pattern=$1 what=$2; shift 2
    "$@" >"$work/$case_name.cmd" 2>"$work/$case_name.cmd.err"; rc=$?
    show "$work/$case_name.cmd.err"
    [ "$rc" -ne 0 ] || fail "$what: exit 0"
    [ "$(wc -l <"$work/$case_name.cmd.err")" -eq 1 ] || fail "$what: expected exactly one line on stderr"
    grep -Eq "^gcsnap: error: $pattern" "$work/$case_name.cmd.err" || fail "$what: the line does not say why"
  }
  expect_error "no process $missing\$" "nonexistent pid" "$gcsnap" snapshot "$missing"
  sleep 60 & sleeper=$!
  # Until the forked shell has exec'd sleep, the process is still named bash.
  for _ in $(seq 1 100); do [ "$(cat "/proc/$sleeper/comm" 2>/dev/null)" = sleep ] && break; sleep 0.05; done
  expect_error "process $sleeper \(sleep\) is not a \.NET process" "sleep" "$gcsnap" snapshot "$sleeper"
  kill "$sleeper"; wait "$sleeper" 2>/dev/null
  expect_error "output path not writable: " "unwritable -o" "$gcsnap" snapshot "$pid" -o "$dll/x.snap"
  expect_error "output path not writable: " "-o in a missing directory" "$gcsnap" snapshot "$pid" -o /nonexistent/x.snap
  expect_error "record: give either --pid PID or a command" "--pid and a command" "$gcsnap" record --pid "$pid" -- true
  # Another user's process: gcsnap run as nobody against this (root's) app. Needs root, as
  # the disk_full case does.
  [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null || fail "the other-user checks need root and setpriv"
  expect_error "process $pid \(Gcsnap\.Sample\) belongs to another user" "another user's process" \
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$gcsnap" snapshot "$pid" -o /tmp/gcsnap-e2e-nobody.snap
  # A process whose environment gcsnap cannot read although it may (pid 1 here, a non-dumpable
  # process of the same user): the real reason, never "belongs to another user".
  expect_error "process 1 \([^)]*\) is not a \.NET process \(no diagnostics socket" "pid 1" "$gcsnap" snapshot 1
  local hidden hidden_out=$work/$case_name.hidden
  rm -f "$hidden_out"
  # perl (Debian's perl-base is essential): prctl(PR_SET_DUMPABLE, 0) by its syscall number.
  setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/perl -MPOSIX -e \
    '$| = 1; my $nr = {x86_64 => 157, aarch64 => 167}->{(POSIX::uname())[4]} or die "arch";
     syscall($nr, 4, 0, 0, 0, 0) == 0 or die "prctl: $!"; print "ready\n"; sleep 60' >"$hidden_out" &
  hidden=$!
  for _ in $(seq 1 100); do grep -q ready "$hidden_out" 2>/dev/null && break; sleep 0.05; done
  grep -q ready "$hidden_out" || fail "the non-dumpable process did not start"
  expect_error "process $hidden \(perl\) is not a \.NET process \(.*its environment is not readable" \
    "a non-dumpable process of the same user" setpriv --reuid=nobody --regid=nogroup --clear-groups "$gcsnap" snapshot "$hidden"
  kill "$hidden"; wait "$hidden" 2>/dev/null
  # Diagnostics disabled in the target's environment: refused, named (the runtime itself would
  # accept an attach with only _Profiler=0; gcsnap honours it anyway).
  local knob other
  for knob in DOTNET_EnableDiagnostics DOTNET_EnableDiagnostics_IPC DOTNET_EnableDiagnostics_Profiler; do
    rm -f "$work/$case_name.knob.fifo"; mkfifo "$work/$case_name.knob.fifo"
    env "$knob=0" dotnet "$dll" attach-wait <"$work/$case_name.knob.fifo" >"$work/$case_name.knob.out" 2>&1 &
    other=$!
    exec 4>"$work/$case_name.knob.fifo"
    for _ in $(seq 1 300); do grep -q '^gcsnap-sample: ready' "$work/$case_name.knob.out" && break; sleep 0.1; done
    expect_error "cannot attach to process $other \(Gcsnap\.Sample\): diagnostics are disabled in it \($knob=0\)\$" \
      "$knob=0" "$gcsnap" snapshot "$other" -o "$work/$case_name.knob.snap"
    kill -0 "$other" || fail "$knob=0: the app died"
    exec 4>&-  # end of input: the app quits
    wait "$other" || fail "$knob=0: the app exited non-zero"
  done
  # None of it touched the app: no profiler was ever loaded, background GC is on.
  expect_bgc 1 "background GC is off after the failed attempts"
  grep -q libgcsnap_profiler "/proc/$pid/maps" && fail "the shim was loaded by a failed attempt"
  stop_plain_app
}

# A process started under `gcsnap record`: snapshot uses its control socket (no attach), and
# the pid of `gcsnap record` itself is answered with the app's pid.
case_attach_recorded() {
  local pid="" rc recorder
  start_waiting_app
  "$gcsnap" snapshot "$recorder" >"$work/$case_name.cmd" 2>&1; rc=$?
  show "$work/$case_name.cmd"
  [ "$rc" -ne 0 ] || fail "gcsnap snapshot of the record process exited 0"
  grep -q "^gcsnap: error: process $recorder is 'gcsnap record' itself; the app it records is process $pid" \
    "$work/$case_name.cmd" || fail "the error does not name the app's pid"
  grep -q "^gcsnap: recording process $pid (Gcsnap.Sample) into $snap$" "$err" ||
    { show "$err"; fail "gcsnap record did not print the recorded pid"; }
  "$gcsnap" snapshot "$pid" >"$work/$case_name.cmd" 2>&1 || { show "$work/$case_name.cmd"; fail "snapshot via the control socket failed"; }
  grep -q "^snapshot taken in process $pid: GC #" "$work/$case_name.cmd" || fail "not the control-socket snapshot"
  "$gcsnap" ps >"$work/$case_name.ps" 2>&1
  grep -Eq "^ *$pid  Gcsnap\.Sample +yes " "$work/$case_name.ps" || { show "$work/$case_name.ps"; fail "gcsnap ps does not mark the recorded app"; }
  "$gcsnap" record --pid "$pid" -o "$work/$case_name.2.snap" --duration 1s >"$work/$case_name.cmd" 2>&1; rc=$?
  show "$work/$case_name.cmd"
  [ "$rc" -ne 0 ] || fail "record --pid of a recorded process exited 0"
  grep -q "already recorded by gcsnap" "$work/$case_name.cmd" || fail "record --pid does not say it is recorded already"
  exec 3>&-
  wait "$recorder"; rc=$?
  [ "$rc" -eq 0 ] || fail "gcsnap record exited $rc"
  check_cli_accepts
}

# Another profiler holds the process's one profiler slot (here: the gcsnap shim itself loaded
# at startup with its control socket off): the runtime answers ALREADY_ACTIVE; the app runs on.
case_attach_other_profiler() {
  local rc fifo=$work/$case_name.fifo shim
  require_dotnet
  shim=$(dirname "$gcsnap")/libgcsnap_profiler.so
  rm -f "$snap" "$fifo"; mkfifo "$fifo"
  app_err=$work/$case_name.app.err
  CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER='{12AFB2D9-48B7-44B1-92F2-A85820746D7E}' \
    CORECLR_PROFILER_PATH="$shim" GCSNAP_OUTPUT="$snap" GCSNAP_CONTROL=0 \
    dotnet "$dll" attach-wait <"$fifo" >"$out" 2>"$app_err" &
  pid=$!
  exec 3>"$fifo"
  for _ in $(seq 1 600); do grep -q "^gcsnap-sample: ready" "$out" 2>/dev/null && break; sleep 0.1; done
  grep -q "^gcsnap-sample: ready" "$out" || { exec 3>&-; fail "the app never became ready"; }
  "$gcsnap" snapshot "$pid" -o "$work/$case_name.2.snap" >"$work/$case_name.cmd" 2>&1; rc=$?
  show "$work/$case_name.cmd"
  [ "$rc" -eq 1 ] || fail "gcsnap snapshot exited $rc, expected 1"
  [ "$(wc -l <"$work/$case_name.cmd")" -eq 1 ] || fail "expected exactly one line"
  grep -q "^gcsnap: error: cannot attach to process $pid (Gcsnap.Sample): another profiler is already loaded" \
    "$work/$case_name.cmd" || fail "the error does not say another profiler is loaded"
  [ ! -e "$work/$case_name.2.snap" ] || fail "an output file was left behind"
  app_says gc '^gcsnap-sample: gc ' >/dev/null
  stop_plain_app
}

# record --pid while the process ends by itself: its shim finishes the file at Shutdown and
# gcsnap says so, with the summary and exit code 0.
case_attach_record_exit() {
  local rc recorder
  start_plain_app
  # The profiler source: its default policy walks the app's induced GC (the invariants need a walk).
  record_attached "gcsnap: recording process $pid (Gcsnap.Sample) into $snap until Ctrl+C" --source profiler
  app_says gc '^gcsnap-sample: gc ' >/dev/null
  stop_plain_app
  wait "$recorder"; rc=$?
  show "$work/$case_name.rec"
  [ "$rc" -eq 0 ] || fail "gcsnap record --pid exited $rc when the process ended"
  grep -q "^gcsnap: process $pid exited while recorded$" "$work/$case_name.rec" || fail "gcsnap does not say the process exited"
  grep -Eq '^gcsnap: recorded [1-9][0-9]* GCs, .*; nothing dropped$' "$work/$case_name.rec" || fail "no summary line"
  check_cli_accepts
  grep -q 'ends complete' "$work/$case_name.verify" || fail "the file does not end complete"
}

# Root snapshots a process of another user (nobody) into a directory that user cannot write:
# the shim writes through the descriptor gcsnap opened, so the file is root's.
case_attach_other_user() {
  local rc fifo=$work/$case_name.fifo dir=$work/$case_name.rootonly
  require_dotnet
  [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null || fail "this case needs root and setpriv"
  rm -rf "$dir" "$fifo"; mkdir -m 700 "$dir"; mkfifo -m 666 "$fifo"
  setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/tmp DOTNET_gcConcurrent=1 \
    dotnet "$dll" attach-wait <"$fifo" >"$out" 2>&1 &
  pid=$!
  exec 3>"$fifo"
  for _ in $(seq 1 600); do grep -q '^gcsnap-sample: ready' "$out" 2>/dev/null && break; sleep 0.1; done
  grep -q '^gcsnap-sample: ready' "$out" || { exec 3>&-; show "$out"; fail "the app (as nobody) never became ready"; }
  [ "$(stat -c %U /proc/$pid)" = nobody ] || fail "the app does not run as nobody"
  snap=$dir/other.snap
  "$gcsnap" snapshot "$pid" -o "$snap" >"$work/$case_name.cmd" 2>&1; rc=$?
  show "$work/$case_name.cmd"
  [ "$rc" -eq 0 ] || fail "root could not snapshot nobody's process (exit $rc)"
  [ "$(stat -c %U "$snap")" = root ] || fail "the file is not root's"
  check_cli_accepts
  echo quit >&3; exec 3>&-
  wait "$pid"; rc=$?
  [ "$rc" -eq 0 ] || fail "the app exited $rc"
}

# A process in its own mount and pid namespaces with a private TMPDIR (what a container gives):
# gcsnap finds its socket through /proc/PID/root/<its TMPDIR> under its namespaced pid (1),
# copies the shim in, and the file lands on this side through the descriptor. The private
# tmpfs is mounted on a directory of the work dir, not on /tmp: the build tree (and the app)
# may itself live under /tmp, which a tmpfs over /tmp would hide. Needs root and unshare.
case_attach_container() {
  local rc fifo=$work/$case_name.fifo outer inner
  require_dotnet
  [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null || fail "this case needs root and unshare"
  # A short path: /proc/PID/root + TMPDIR + the socket name must fit a unix socket address
  # (108 bytes), and a deep build tree does not.
  local nstmp
  nstmp=$(mktemp -d /var/tmp/gcsnap-ns.XXXXXX) || fail "cannot create a directory in /var/tmp"
  rm -f "$snap" "$fifo"; mkfifo "$fifo"
  unshare --mount --pid --fork --mount-proc sh -c \
    "mount -t tmpfs tmpfs '$nstmp' && TMPDIR='$nstmp' DOTNET_gcConcurrent=1 exec dotnet '$dll' attach-wait" <"$fifo" >"$out" 2>&1 &
  outer=$!
  exec 3>"$fifo"
  for _ in $(seq 1 600); do grep -q '^gcsnap-sample: ready' "$out" 2>/dev/null && break; sleep 0.1; done
  grep -q '^gcsnap-sample: ready' "$out" || { exec 3>&-; show "$out"; fail "the namespaced app never became ready"; }
  grep -q '^gcsnap-sample: mode=attach-wait pid=1 ' "$out" || fail "the app is not pid 1 of its own namespace"
  pid=$(pgrep -P "$outer")
  [ -n "$pid" ] || fail "cannot find the app's pid outside its namespace"
  ls "/proc/$pid/root$nstmp/" | grep -q '^dotnet-diagnostic-1-.*-socket$' || fail "no diagnostics socket in the app's own TMPDIR"
  [ -z "$(ls -A "$nstmp")" ] || fail "the app's TMPDIR is not private (its files are visible outside the namespace)"
  "$gcsnap" snapshot "$pid" -o "$snap" >"$work/$case_name.cmd" 2>&1; rc=$?
  show "$work/$case_name.cmd"
  [ "$rc" -eq 0 ] || fail "gcsnap snapshot of the namespaced process exited $rc"
  check_cli_accepts
  grep -q 'ends complete' "$work/$case_name.verify" || fail "the file does not end complete"
  expect_bgc 1 "no background GC after the detach in the namespaced process"
  echo quit >&3; exec 3>&-
  wait "$outer"; rc=$?
  rmdir "$nstmp" 2>/dev/null
  [ "$rc" -eq 0 ] || fail "the namespaced app exited $rc"
}

# walk_times FILE: the start time (ns) of every GC of FILE with an on-demand heap walk, one a
# line; nothing (and why on stderr) when info's gcs or heap table has no row.
walk_times() {
  local triggers times
  triggers=$(info_columns "$1" gcs gc trigger) && times=$(info_columns "$1" heap gc time_ns) || return 1
  awk -F, 'NR == FNR { if ($2 == "on-demand") walked[$1] = 1; next } $1 in walked { print $2 }' \
    <(printf '%s\n' "$triggers") <(printf '%s\n' "$times")
}

# check_walk_gaps FILE MIN_NS MAX_NS: at least 3 on-demand walks, each MIN_NS..MAX_NS after the one before.
check_walk_gaps() {
  local times
  times=$(walk_times "$1") || fail "no GC rows to read the walks' times from in $1"
  [ "$(wc -l <<<"$times")" -ge 3 ] || fail "fewer than 3 --every walks in $1: $(tr '\n' ' ' <<<"$times")"
  awk -v lo="$2" -v hi="$3" 'NR > 1 { gap = $1 - prev; if (gap < lo || gap > hi) { print "gap " gap " ns"; bad = 1 } }
                            { prev = $1 } END { exit bad }' <<<"$times" ||
    fail "the --every walks of $1 are not $2..$3 ns apart: $(tr '\n' ' ' <<<"$times")"
}

# record --pid --every: heap walks on a clock while the app leaks (--policy none: no other walk),
# an interval apart; `leaks` finds the planted leak from that recording alone. Without --every,
# a recording with no walk says so at the end, and types/leaks on it name the option; leaks on
# one `gcsnap snapshot` file suggests record --pid --every.
case_attach_every() {
  local rc recorder line="" text none=$work/$case_name.none.snap one=$work/$case_name.one.snap
  start_plain_app
  rm -f "$none" "$one"
  record_attached "gcsnap: recording process $pid (Gcsnap.Sample) into $snap until Ctrl+C, a heap walk every 1 s" \
    --policy none --every 1s
  # 14 rounds 500 ms apart (7 s); the recording stops after 5 s, while the app still leaks, as
  # a service's would (walks after the leak stopped would show a flat end, not a leak).
  echo "leak 14 500" >&3
  sleep 5
  kill -INT "$recorder"
  wait "$recorder"; rc=$?
  for _ in $(seq 1 300); do line=$(grep -m1 '^gcsnap-sample: leak ' "$out") && break; sleep 0.1; done
  [ -n "$line" ] || { show "$out"; fail "the app did not finish its leak rounds"; }
  show "$work/$case_name.rec"
  [ "$rc" -eq 0 ] || fail "gcsnap record --pid --every exited $rc after Ctrl+C"
  grep -Eq "^gcsnap: recorded [0-9]+ GCs, [3-9][0-9]* snapshots, .* in $snap; nothing dropped$" "$work/$case_name.rec" ||
    fail "the summary line does not count at least 3 walks"
  grep -q 'has no heap walk' "$work/$case_name.rec" && fail "a recording with walks was said to have none"
  check_cli_accepts
  check_no_policy_walk "$snap"
  # One interval (1 s) after the walk before ended, give or take the scheduler.
  check_walk_gaps "$snap" 950000000 4000000000
  text=$(csv leaks "$snap" --top 0)
  # The last walk saw some of the 14 rounds (150 sessions, 20 handlers each), not all.
  expect_line "$text" "^[0-9]+,Gcsnap\.Sample\.LeakedSession,[1-9][0-9]+,\+?[0-9]+,[1-9][0-9]*,.*,System\.Collections\.Generic\.List<Gcsnap\.Sample\.LeakedSession> \(via Gcsnap\.Sample\.LeakedSession\[\]\),0x" \
    "leaks on the record --pid --every recording: the sessions are not a suspect held by their List"
  expect_line "$text" "^[0-9]+,System\.EventHandler,[1-9][0-9]+," "leaks on the record --pid --every recording: the event handlers are not a suspect"
  for look_alike in CacheEntry ChurnItem; do
    ! grep -Eq "^[0-9]+,Gcsnap\.Sample\.$look_alike," <<<"$text" || { printf '%s\n' "$text"; fail "leaks: $look_alike reported"; }
  done
  # No walk: said at the end, and by types and leaks, with the option that gives walks.
  "$gcsnap" record --pid "$pid" -o "$none" --policy none --duration 1s >"$work/$case_name.rec2" 2>&1; rc=$?
  show "$work/$case_name.rec2"
  [ "$rc" -eq 0 ] || fail "record --pid --policy none --duration 1s exited $rc"
  grep -Eq "^gcsnap: $none has no heap walk: --policy none walks no GC while process $pid was recorded; .*add --every 30s" \
    "$work/$case_name.rec2" || fail "record --pid without walks does not say so at the end"
  for cmd in types leaks; do
    "$gcsnap" "$cmd" "$none" >"$work/$case_name.$cmd" 2>&1; rc=$?
    show "$work/$case_name.$cmd"
    [ "$rc" -eq 3 ] || fail "$cmd on a file without walks exited $rc, expected 3"
    grep -q "^gcsnap: error: $none: .*no heap walk.*record with --every 30s" "$work/$case_name.$cmd" ||
      fail "$cmd on a file without walks does not name --every"
  done
  # One attach snapshot: leaks points at record --pid --every, not at GC.Collect.
  app_says async '^gcsnap-sample: async started' >/dev/null
  "$gcsnap" snapshot "$pid" -o "$one" >/dev/null 2>&1 || fail "gcsnap snapshot failed"
  # The hop out of an async method's state machine box names the hoisted local, and AGE on a
  # one-GC file says it is unknown (--type in lower case: it ignores case).
  text=$(csv path "$one" --type asyncheld)
  expect_line "$text" '^1,2,0x[0-9a-f]+,Gcsnap\.Sample\.AsyncHeld,[0-9]+,[a-z0-9]+,reference,StateMachine\.<held>5__[0-9]+,field,' \
    "path: the hop from the async state machine box to its local is not named StateMachine.<held>5__N"
  "$gcsnap" objects "$one" --type asyncheld >"$work/$case_name.objects" 2>&1 || { show "$work/$case_name.objects"; fail "objects failed"; }
  grep -Eq '^0x[0-9a-f]+ +Gcsnap\.Sample\.AsyncHeld .* unknown \(one walk\)$' "$work/$case_name.objects" ||
    { show "$work/$case_name.objects"; fail "objects on one attach snapshot does not say the age is unknown"; }
  "$gcsnap" leaks "$one" --wide >"$work/$case_name.leaks1" 2>&1 || { show "$work/$case_name.leaks1"; fail "leaks on one snapshot failed"; }
  show "$work/$case_name.leaks1"
  grep -q "^note: only 1 heap walk(s), from 'gcsnap snapshot': .*'gcsnap record --pid PID --every 30s'" "$work/$case_name.leaks1" ||
    fail "leaks on one snapshot does not suggest record --pid --every"
  grep -q "GC.Collect" "$work/$case_name.leaks1" && fail "leaks on one attach snapshot still suggests GC.Collect"
  expect_bgc 1 "no background GC after record --pid --every detached"
  stop_plain_app
}

# record --pid --on-heap-growth 16M: the trigger after an attach (the attach data carries it).
# After an induced GC (the baseline), the app's large object heap grows by 56 MiB in 8 MiB steps,
# each ended by a gen0 GC: walks at 16, 32 and 48 MiB of growth, said by the shim on the app's
# stderr, and no other walk (--policy none).
case_attach_heap_growth() {
  local rc recorder thresholds
  start_plain_app
  record_attached "gcsnap: recording process $pid (Gcsnap.Sample) into $snap until Ctrl+C" --policy none --on-heap-growth 16M
  app_says gc '^gcsnap-sample: gc ' >/dev/null
  app_says "heapgrow 56" '^gcsnap-sample: heapgrow arrays=56' >/dev/null
  sleep 1
  kill -INT "$recorder"
  wait "$recorder"; rc=$?
  show "$work/$case_name.rec"
  [ "$rc" -eq 0 ] || fail "gcsnap record --pid --on-heap-growth exited $rc after Ctrl+C"
  thresholds=$(sed -nE 's/^gcsnap: heap walk at GC [0-9]+ \(gen2 \+ LOH \+ POH grew by [0-9]+ MiB since the first GC, threshold ([0-9]+) MiB\)$/\1/p' "$app_err" | tr '\n' ' ')
  [ "$thresholds" = "16 32 48 " ] || { show "$app_err"; fail "record --pid --on-heap-growth 16M walked at thresholds '$thresholds', expected 16 32 48 MiB"; }
  check_cli_accepts
  [ "$(gcs_rows | grep -c '"trigger": "on-demand"')" -eq 3 ] || fail "not 3 walks in the recording"
  [ "$(gcs_rows | grep -Ec '"trigger": "(policy|always)"')" -eq 0 ] || fail "--policy none walked a GC"
  app_err_lines=3 stop_plain_app
}

# status_kib PID FIELD: FIELD of /proc/PID/status (VmRSS, VmHWM) in KiB.
status_kib() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

# What a snapshot adds to a process whose memory is mostly native (docs/shim.md "Memory"): with
# 48 MiB of large managed arrays (a few dozen objects for their bytes) and 320 MiB of touched
# AllocHGlobal, `gcsnap snapshot PID` raises the peak RSS (VmHWM, reset to the resident size
# just before) by at most 64 MiB + half the live managed bytes; and info puts what the shim
# held in gcsnap's own figure, so "native and other" is the app's: at least the 320 MiB, at
# most what the app had outside its heap before the snapshot plus 24 MiB (the shim's library,
# threads and the runtime's profiling state).
case_attach_native_bound() {
  local rc rss0 hwm added row live bound native own managed rss held
  start_plain_app
  app_says "heapgrow 48" '^gcsnap-sample: heapgrow arrays=48' >/dev/null
  held=$(app_says "native 320" '^gcsnap-sample: native bytes=' | sed -E 's/.*bytes=([0-9]+).*/\1/')
  [ "$held" = $((320 * 1048576)) ] || fail "the app does not hold the 320 MiB of native memory ($held)"
  [ -w "/proc/$pid/clear_refs" ] || fail "cannot reset the app's peak RSS: /proc/$pid/clear_refs is not writable"
  echo 5 >"/proc/$pid/clear_refs"  # VmHWM := VmRSS
  rss0=$(status_kib "$pid" VmRSS)
  "$gcsnap" snapshot "$pid" -o "$snap" >"$work/$case_name.cmd" 2>&1; rc=$?
  hwm=$(status_kib "$pid" VmHWM)
  [ "$rc" -eq 0 ] || { show "$work/$case_name.cmd"; fail "gcsnap snapshot $pid exited $rc"; }
  added=$(((hwm - rss0) * 1024))
  "$gcsnap" info "$snap" --format json --table memory >"$work/$case_name.json" 2>&1 ||
    { show "$work/$case_name.json"; fail "info --format json --table memory failed"; }
  row=$(grep '"live_object_bytes": [0-9]' "$work/$case_name.json" | tail -1)
  [ -n "$row" ] || { show "$work/$case_name.json"; fail "the snapshot has no memory record with live bytes"; }
  live=$(memory_field "$row" live_object_bytes)
  bound=$((64 * 1048576 + live / 2))
  echo "attach_native_bound: resident $((rss0 / 1024)) MiB before, peak +$((added >> 20)) MiB (bound $((bound >> 20)) MiB, live $((live >> 20)) MiB)"
  [ "$live" -ge $((48 * 1048576)) ] || fail "the walk did not see the 48 MiB of arrays (live $live)"
  [ "$added" -le "$bound" ] || fail "the snapshot raised the peak RSS by $added bytes, over the bound $bound"
  own=$(memory_field "$row" gcsnap_bytes)
  [ -n "$own" ] && [ "$own" -gt 0 ] || fail "info has no gcsnap figure: $row"
  native=$(memory_field "$row" native_and_other_bytes)
  managed=$(memory_field "$row" gc_resident_bytes)
  rss=$(memory_field "$row" rss_bytes)
  [ "$((native + own + managed))" -eq "$rss" ] || fail "native and other + gcsnap + managed is not the resident size: $row"
  within "$native" "$held" $((rss0 * 1024 - managed + 24 * 1048576)) "native and other is not the app's own native memory"
  "$gcsnap" info "$snap" >"$work/$case_name.info" 2>&1 || fail "info failed"
  grep -Eq "^GC [0-9]+: managed heap .* native and other; .* held by gcsnap( \(cgroup .*\))?$" "$work/$case_name.info" ||
    { show "$work/$case_name.info"; fail "info's summary does not name what gcsnap held"; }
  stop_plain_app
}
