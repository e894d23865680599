#!/usr/bin/env bash
# The holders of the structures where services leak, named by `gcsnap leaks` (issue 44), on
# one runtime and one recording source:
#   holder_patterns_test.sh GCSNAP APP_DLL MAJOR WORK_DIR SOURCE
# SOURCE profiler: gcsnap record --policy induced runs the holder-patterns app
# (holder_patterns_app/) for 4 rounds; events: the app runs without gcsnap, `record --pid
# --source events` attaches and `gcsnap snapshot PID` walks the heap after each of 4 rounds.
# Each round leaks 100 more of ten kinds; `leaks --format json` must name, for each, the
# pattern, the holder's field, and the delegate's method or the target type the app made
# (expected.txt beside this script lists them); `inspect --format json` must list the two
# events and the timers as event-handler and timer findings (inspect_handlers_check.py).
# Fails (never skips) when dotnet or the runtime is missing.
set -uo pipefail
gcsnap=$1 app=$2 major=$3 work=$4 source=$5
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "holder_patterns: FAIL: $*" >&2; exit 1; }
command -v dotnet >/dev/null 2>&1 || fail "'dotnet' is not on PATH"
command -v python3 >/dev/null 2>&1 || fail "'python3' is not on PATH"
[ -f "$app" ] || fail "$app is missing (the e2e.build_holder_patterns_app fixture builds it)"
line=$("$here/../../scripts/runtimes.sh" --aspnet "$major" | tail -1) || fail "scripts/runtimes.sh $major failed"
read -r _ version root <<<"$line"
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
snap=$work/app.snap
export DOTNET_ROOT="$root" DOTNET_ROLL_FORWARD=Major

record_induced() {
  "$gcsnap" record --policy induced -o "$snap" -- "$root/dotnet" "$app" 4 100 </dev/null >"$work/app.out" 2>&1 ||
    { cat "$work/app.out"; fail "$version: gcsnap record exited non-zero"; }
  grep -q "^leaked 400\$" "$work/app.out" || { cat "$work/app.out"; fail "$version: the app did not finish its rounds"; }
}

# wait_for FILE PATTERN: up to 30 s for a line of FILE matching PATTERN.
wait_for() {
  for _ in $(seq 1 300); do
    grep -q "$2" "$1" && return 0
    sleep 0.1
  done
  cat "$1"; fail "$version: no line '$2' in $1"
}

record_events() {
  local pid recorder round
  mkfifo "$work/in" || fail "mkfifo failed"
  "$root/dotnet" "$app" stdin 100 <"$work/in" >"$work/app.out" 2>&1 &
  exec 3>"$work/in"
  wait_for "$work/app.out" '^ready pid='
  pid=$(sed -n 's/^ready pid=//p' "$work/app.out")
  "$gcsnap" record --pid "$pid" --source events -o "$snap" --duration 300s >"$work/record.out" 2>&1 &
  recorder=$!
  wait_for "$work/record.out" "^gcsnap: recording process $pid"
  for round in 0 1 2 3; do
    echo >&3
    wait_for "$work/app.out" "^round $round: "
    "$gcsnap" snapshot "$pid" >"$work/snapshot.$round" 2>&1 || { cat "$work/snapshot.$round"; fail "$version: snapshot failed"; }
  done
  kill -INT "$recorder"
  wait "$recorder" || { cat "$work/record.out"; fail "$version: record --pid exited non-zero after Ctrl+C"; }
  exec 3>&-
  wait
}

case $source in
  profiler) record_induced ;;
  events) record_events ;;
  *) fail "unknown source '$source'" ;;
esac
"$gcsnap" leaks "$snap" --top 0 --format json >"$work/leaks.json" 2>"$work/leaks.err" ||
  { cat "$work/leaks.err"; fail "$version $source: gcsnap leaks exited non-zero"; }
python3 "$here/holder_patterns_check.py" "$work/leaks.json" "$here/holder_patterns_expected.txt" ||
  fail "$version $source: the holders above are not what the app made"
"$gcsnap" inspect "$snap" --format json >"$work/inspect.json" 2>"$work/inspect.err" ||
  { cat "$work/inspect.err"; fail "$version $source: gcsnap inspect exited non-zero"; }
python3 "$here/inspect_handlers_check.py" "$work/inspect.json" 400 ||
  fail "$version $source: inspect's event-handler and timer findings are not what the app made"
# diff's path of the new subscribers names each link as leaks does (the static event, the
# delegate's invocation list, its target), the same decoded as from the analysis indexes.
diff_args=(diff "$snap" --filter Gcsnap.HolderPatterns.EventSubscriber --top 1 --wide)
"$gcsnap" "${diff_args[@]}" --no-cache >"$work/diff.decoded" 2>&1 || { cat "$work/diff.decoded"; fail "$version $source: diff failed"; }
grep -Eq '\(static\) -> System\.EventHandler \.(_invocationList|_helperObject) -> .* \._target -> Gcsnap\.HolderPatterns\.EventSubscriber$' \
  <(grep '^Gcsnap.HolderPatterns.EventSubscriber ' "$work/diff.decoded") ||
  { cat "$work/diff.decoded"; fail "$version $source: diff's path does not name the event's links"; }
grep -q 'ConfigWatcher.Changed (static)' "$work/diff.decoded" || fail "$version $source: diff's path does not name the event"
"$gcsnap" index "$snap" --all >/dev/null 2>&1 || fail "$version $source: gcsnap index failed"
"$gcsnap" "${diff_args[@]}" >"$work/diff.indexed" 2>&1 || fail "$version $source: diff from the indexes failed"
cmp -s "$work/diff.decoded" "$work/diff.indexed" || { diff "$work/diff.decoded" "$work/diff.indexed"; fail "$version $source: diff from the indexes differs"; }
echo "holder_patterns: $version $source: all ten holders named, inspect finds the event and timer leaks, diff names the links"
