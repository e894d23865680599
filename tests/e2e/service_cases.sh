#!/usr/bin/env bash
# End-to-end cases on a real ASP.NET Core service (service_app/), run by ctest:
#   service_cases.sh CASE GCSNAP SERVICE_DLL WORK_DIR
# The service is started WITHOUT gcsnap (no profiler variables), listens on a loopback port
# and is driven with curl; `gcsnap snapshot PID` attaches three times with load in between.
# The service's leaks (service_app/Program.cs): Bookings held by never-disposed
# CancellationTokenSource registrations (a long CallbackNode chain entered from both ends), a
# bounded LRU of Bookings (the red herring), and AuditLog.s_trail, a static LinkedList.
set -uo pipefail
case_name=$1 gcsnap=$2 dll=$3 work=$4
mkdir -p "$work"
out=$work/$case_name.out

fail() { echo "e2e $case_name: FAIL: $*" >&2; exit 1; }
show() { echo "--- $1:"; cat "$1"; }
require_tools() {
  command -v dotnet >/dev/null 2>&1 || fail "'dotnet' is not on PATH; the end-to-end tests need the .NET SDK"
  command -v curl >/dev/null 2>&1 || fail "'curl' is not on PATH (scripts/setup.sh installs it)"
  [ -f "$dll" ] || fail "$dll is missing (the e2e.build_service_app fixture builds it)"
}

# start_service: the service on a free loopback port, no profiler; sets pid and url.
start_service() {
  require_tools
  # A previous run's output must not be read as this one's (the redirect below truncates the
  # file only once the background job runs): remove it, and wait for this pid's ready line.
  rm -f "$out"
  env -u CORECLR_ENABLE_PROFILING -u CORECLR_PROFILER -u CORECLR_PROFILER_PATH -u GCSNAP_OUTPUT \
    dotnet "$dll" 0 >"$out" 2>"$work/$case_name.app.err" &
  pid=$!
  trap 'kill "$pid" 2>/dev/null' EXIT
  for _ in $(seq 1 600); do
    url=$(sed -n "s/^gcsnap-service: ready url=\\(http:[^ ]*\\) pid=$pid\$/\\1/p" "$out" 2>/dev/null)
    [ -n "$url" ] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  show "$out"; show "$work/$case_name.app.err"; fail "the service never became ready"
}

# load N: N bookings and N audit entries, over HTTP.
load() {
  curl -sf -X POST "$url/book?n=$1" >/dev/null || fail "POST /book failed"
  curl -sf -X POST "$url/audit?n=$1" >/dev/null || fail "POST /audit failed"
}

# snap FILE: attach, snapshot into FILE, detach.
snap() {
  rm -f "$1"
  "$gcsnap" snapshot "$pid" -o "$1" >"$work/$case_name.snapshot" 2>&1 ||
    { show "$work/$case_name.snapshot"; fail "gcsnap snapshot $pid failed"; }
}

# take_snapshots: three snapshots s1..s3 with 1500 bookings and audit entries before each.
take_snapshots() {
  start_service
  s1=$work/$case_name.1.snap s2=$work/$case_name.2.snap s3=$work/$case_name.3.snap
  load 1500; snap "$s1"
  load 1500; snap "$s2"
  load 1500; snap "$s3"
  curl -sf "$url/stats" >"$work/$case_name.stats" || fail "GET /stats failed"
  grep -qx 'bookings=4500 cached=64 audit=4500' "$work/$case_name.stats" ||
    { show "$work/$case_name.stats"; fail "the service did not count what was sent"; }
}

# count_of TYPE FILE: the instance count `gcsnap types` gives for TYPE (exact name).
count_of() {
  "$gcsnap" types "$2" --format csv --top 0 | awk -F, -v t="$1" '$1 == t { print $2 }'
}

# leaks: both leaks found, each once, with counts that agree with `types`, holders named.
case_service_leaks() {
  take_snapshots
  "$gcsnap" leaks "$s1" "$s2" "$s3" >"$work/$case_name.leaks" 2>&1 || { show "$work/$case_name.leaks"; fail "leaks failed"; }
  show "$work/$case_name.leaks"
  local csv=$work/$case_name.leaks.csv node=System.Threading.CancellationTokenSource+CallbackNode
  local audit='System.Collections.Generic.LinkedListNode<Gcsnap.Service.AuditEntry>' row growth
  "$gcsnap" leaks "$s1" "$s2" "$s3" --format csv >"$csv" 2>&1 || { show "$csv"; fail "leaks --format csv failed"; }
  # One leak is one suspect: the registrations' list is entered from its head (Registrations)
  # and its tail (the host's Task.Delay registration), yet listed once.
  [ "$(grep -c "^[0-9]*,$node," "$csv")" -eq 1 ] || { show "$csv"; fail "the registrations are not exactly one suspect"; }
  [ "$(grep -c "^[0-9]*,\"\?$audit" "$csv")" -eq 1 ] || { show "$csv"; fail "the audit trail is not exactly one suspect"; }
  # Its growth agrees with `types`: every registration made between the first and last snapshot.
  row=$(grep "^[0-9]*,$node," "$csv")
  growth=$(( $(count_of "$node" "$s3") - $(count_of "$node" "$s1") ))
  [ "$growth" -eq 3000 ] || fail "types: CallbackNode grew by $growth, expected the 3000 bookings"
  [ "$(cut -d, -f4 <<<"$row")" = "$growth" ] || fail "leaks: the suspect's growth is not the $growth types shows ($row)"
  # Its holder is named: no object dominates the list, its owner is the Registrations object.
  grep -q "CancellationTokenSource+Registrations (owner; entered from" <<<"$row" || fail "leaks: the registrations' holder is not the owner ($row)"
  grep -q "List<Gcsnap.Service.AuditEntry>,0x" <(grep "$audit" "$csv") || fail "leaks: the audit trail is not held by its LinkedList"
  # Each suspect's path with field and static names (--wide: full names, one line each): the
  # registrations reached from the host's ApplicationLifetime._stoppingSource, the audit trail
  # from the static AuditLog.s_trail.
  "$gcsnap" leaks "$s1" "$s2" "$s3" --wide >"$work/$case_name.leaks.wide" 2>&1 || fail "leaks --wide failed"
  grep -Eq '^     path     .*ApplicationLifetime\._stoppingSource -> System\.Threading\.CancellationTokenSource\._registrations -> .* 0x[0-9a-f]+$' \
    "$work/$case_name.leaks.wide" || fail "leaks: no path names ApplicationLifetime._stoppingSource and CancellationTokenSource._registrations"
  grep -Eq '^     path     Gcsnap\.Service\.AuditLog\.s_trail \(static\) -> ' "$work/$case_name.leaks.wide" ||
    fail "leaks: no path names the static AuditLog.s_trail"
  # Held by the field a developer changes (a holder pattern), with the callback's method.
  grep -Eq '^     held by  .*ApplicationLifetime\._stoppingSource \(token registration\) -> System\.Action<System\.Object> -> <lambda> in Gcsnap\.Service\.BookingService\.Book$' \
    "$work/$case_name.leaks.wide" || fail "leaks: the text does not name the token source's field and the callback"
  # It fits a screen: at most 120 columns on a pipe (the terminal's width on one), 40 lines.
  [ "$(wc -L <"$work/$case_name.leaks")" -le 120 ] || fail "leaks is wider than 120 columns"
  [ "$(wc -l <"$work/$case_name.leaks")" -le 40 ] || fail "leaks does not fit a screen"
  [ "$(GCSNAP_WIDTH=80 "$gcsnap" leaks "$s1" "$s2" "$s3" | wc -L)" -le 80 ] || fail "leaks does not fit an 80-column terminal"
  # A two-file diff (no object identity) blames the shape that grew: the registrations' chain,
  # folded, over every Booking at B; never the 64-entry LRU, as full at s1 as at s3.
  text=$("$gcsnap" diff "$s1" "$s3" --filter Gcsnap.Service.Booking --shapes 5 --wide) || fail "diff s1 s3 failed"
  row=$(awk '/^Largest growths by type/ { on = 1 } on && /^Gcsnap\.Service\.Booking / { print; exit }' <<<"$text")
  grep -Eq ' [0-9]+/4500 .*CallbackNode \.(Next|Prev) ×[0-9]{3,} -> (.* -> )?Gcsnap\.Service\.Booking$' <<<"$row" ||
    { echo "$text"; fail "diff s1 s3: the Bookings' path is not the folded registrations' chain over all 4500 ($row)"; }
  grep -q 'BookingCache' <<<"$text" && { echo "$text"; fail "diff s1 s3: the LRU, which did not grow, is blamed"; }
  # dominators --by type names the holder a developer changes: the token source whose
  # registrations keep the callbacks (a holder pattern), with the registered lambda.
  text=$("$gcsnap" dominators "$s3" --by type --top 10 --wide) || fail "dominators --by type failed"
  grep -Eq "^ *[0-9]+ +System\.Threading\.CancellationTokenSource\+CallbackNode +.*\._stoppingSource \(token registration\) -> System\.Action<System\.Object> -> <lambda> in Gcsnap\.Service\.BookingService\.Book" <<<"$text" ||
    { echo "$text"; fail "dominators --by type: CallbackNode is not held by the stopping token's registrations"; }
  grep -Eq "^ *[0-9]+ +System\.Collections\.Generic\.LinkedListNode<Gcsnap\.Service\.AuditEntry> +.*Gcsnap\.Service\.AuditLog\.s_trail \(static collection\)" <<<"$text" ||
    { echo "$text"; fail "dominators --by type: the audit trail's nodes are not held by the static AuditLog.s_trail"; }
  # Without --wide its table (the notes below it are free text) fits 120 columns on a pipe (80
  # on such a terminal; counted in characters, "…" is one), names shortened from their
  # namespaces, keeping the holder's own name.
  text=$("$gcsnap" dominators "$s3" --by type --top 10) || fail "dominators --by type failed"
  [ "$(sed '/^$/q' <<<"$text" | LC_ALL=C.UTF-8 wc -L)" -le 120 ] || { echo "$text"; fail "dominators --by type is wider than 120 columns on a pipe"; }
  grep -Eq "^ *[0-9]+ +[^ ]*CallbackNode +.*_stoppingSource \(to.*<lambda> in Book$" <<<"$text" ||
    { echo "$text"; fail "dominators --by type on a pipe: the holder's field and the lambda are not kept readable"; }
  [ "$(GCSNAP_WIDTH=80 "$gcsnap" dominators "$s3" --by type --top 10 | sed '/^$/q' | LC_ALL=C.UTF-8 wc -L)" -le 80 ] ||
    fail "dominators --by type does not fit an 80-column terminal"
  # Output that fits a screen: the path to the far end of the chain is folded.
  # The 1500th registration in address order lies ~1500 hops from either end of the list.
  local example text
  example=$("$gcsnap" objects "$s3" --type "$node" --top 0 --sort address --format csv | sed -n 1501p | cut -d, -f1)
  [ -n "$example" ] || fail "objects --type lists fewer than 1500 registrations"
  text=$("$gcsnap" path "$s3" "$example") || fail "path $example failed"
  [ "$(wc -l <<<"$text")" -lt 30 ] || fail "path to the chain's end is $(wc -l <<<"$text") lines, not folded"
  grep -Eq 'CancellationTokenSource\+CallbackNode\.(Next|Prev) ×[0-9]{3,}' <<<"$text" || { echo "$text"; fail "path does not fold the chain"; }
  [ "$("$gcsnap" path "$s3" "$example" --no-fold | wc -l)" -gt 1000 ] || fail "path --no-fold does not list every hop"
  # export --to dot folds the chain into one bold edge with its count; --no-fold draws every hop.
  text=$("$gcsnap" export "$s3" --to dot --object "$example") || fail "export --to dot failed"
  grep -Eq '\[label="(Next|Prev) ×[0-9]{3,}", style=bold\]' <<<"$text" || { echo "$text"; fail "export --to dot does not fold the chain"; }
  [ "$(wc -l <<<"$text")" -lt 60 ] || fail "export --to dot is $(wc -l <<<"$text") lines, not folded"
  [ "$("$gcsnap" export "$s3" --to dot --object "$example" --no-fold | wc -l)" -gt 1000 ] || fail "export --no-fold does not draw every hop"
  # path --type groups instances by folded retention path (the default when they are held in
  # several ways): the leaked Bookings' chain shapes come first, the 64-entry LRU (the nearest
  # instances, a red herring) after them; a screenful.
  text=$("$gcsnap" path "$s3" --type Gcsnap.Service.Booking) || fail "path --type Booking failed"
  echo "$text"
  [ "$(wc -l <<<"$text")" -lt 20 ] || fail "path --type Booking does not fit a screen"
  grep -Eq '^1 +[0-9]{4} ' <<<"$text" || fail "path --type Booking: the largest shape is not the chain's thousands"
  sed -n 3p <<<"$text" | grep -q 'CallbackNode\.\(Next\|Prev\) ×' || fail "path --type Booking: the largest shape is not the folded chain"
  grep -q 'BookingCache._byId' <<<"$text" || fail "path --type Booking: the LRU's shape is missing"
  grep -n 'BookingCache._byId' <<<"$text" | grep -q '^[34]:' && fail "path --type Booking: the LRU comes first"
  # --no-group: the nearest instances' paths, as before.
  [ "$("$gcsnap" path "$s3" --type Gcsnap.Service.Booking --no-group --limit 2 | grep -c '^note: path ')" -eq 2 ] ||
    fail "path --type --no-group --limit 2 does not list two paths"
  # The static's name is on the audit trail's path.
  "$gcsnap" path "$s3" --type AuditEntry | grep 'Gcsnap.Service.AuditLog.s_trail (static)' >/dev/null || fail "path does not name AuditLog.s_trail"
}

# record --pid with a snapshot after each round of load (--policy none: those walks only, the
# first one after round 1): one recording with object identity.
# leaks names both leaks by identity; a one-file diff's path per group is the folded chain.
case_service_record() {
  local rec=$work/$case_name.snap recorder text
  start_service
  rm -f "$rec" "$work/$case_name.rec"  # a previous run's line must not pass for this one's
  "$gcsnap" record --pid "$pid" -o "$rec" --policy none --duration 300s >"$work/$case_name.rec" 2>&1 &
  recorder=$!
  for _ in $(seq 1 300); do
    grep -q "^gcsnap: recording process $pid " "$work/$case_name.rec" 2>/dev/null && break
    kill -0 "$recorder" 2>/dev/null || break
    sleep 0.1
  done
  grep -q "^gcsnap: recording process $pid " "$work/$case_name.rec" || { show "$work/$case_name.rec"; fail "record --pid did not start"; }
  for round in 1 2 3 4; do
    load 800
    "$gcsnap" snapshot "$pid" >"$work/$case_name.cmd" 2>&1 || { show "$work/$case_name.cmd"; fail "snapshot $round failed"; }
  done
  kill -INT "$recorder"
  wait "$recorder" || { show "$work/$case_name.rec"; fail "record --pid did not end cleanly"; }
  "$gcsnap" leaks "$rec" --format csv >"$work/$case_name.leaks.csv" 2>&1 || { show "$work/$case_name.leaks.csv"; fail "leaks failed"; }
  show "$work/$case_name.leaks.csv"
  [ "$(grep -c '^[0-9]*,System\.Threading\.CancellationTokenSource+CallbackNode,' "$work/$case_name.leaks.csv")" -eq 1 ] ||
    fail "leaks (identity): the registrations are not exactly one suspect"
  # Identity: the members born after the first walk are the 2400 registrations of rounds 2-4
  # (the host may hold a few request-scoped registrations of its own at a snapshot: up to 16).
  local growth accumulated
  read -r growth accumulated < <(awk -F, '$2 == "System.Threading.CancellationTokenSource+CallbackNode" { print $4, $5 }' "$work/$case_name.leaks.csv")
  [ "${growth:-0}" -ge 2400 ] && [ "$growth" -le 2416 ] && [ "${accumulated:-0}" -ge 2400 ] && [ "$accumulated" -le 2416 ] ||
    fail "leaks (identity): the registrations grew by ${growth:-?} with ${accumulated:-?} new and alive, expected 2400"
  grep -Eq '^[0-9]+,"?System\.Collections\.Generic\.LinkedListNode<Gcsnap\.Service\.AuditEntry>"?,[0-9]+,2400,2400,' "$work/$case_name.leaks.csv" ||
    fail "leaks (identity): the audit trail did not grow by 2400 new and alive"
  # A one-file diff (first and last walk): the Bookings' path is the folded chain, not the LRU.
  text=$("$gcsnap" diff "$rec" --top 12 --wide) || fail "diff failed"
  echo "$text"
  # The Booking row of the new objects' groups (the --shapes table after it lists the others).
  local row
  row=$(awk '/^Largest groups of new objects/ { on = 1 } on && /^Gcsnap\.Service\.Booking / { print; exit }' <<<"$text")
  # The chain's link field named as `leaks` names it (".Next ×N"), the Booking at its end.
  grep -Eq 'CallbackNode \.(Next|Prev) ×[0-9]{3,} -> (.* -> )?Gcsnap\.Service\.Booking$' <<<"$row" ||
    fail "diff: the Bookings' most common path is not the folded registrations' chain ($row)"
  grep -q 'BookingCache' <<<"$row" && fail "diff: the Bookings' most common path is the LRU's"
  # --no-fold lists every hop of that path; JSON lists every hop in path_hops either way.
  row=$("$gcsnap" diff "$rec" --top 12 --no-fold --wide | awk '/^Largest groups of new objects/ { on = 1 } on && /^Gcsnap\.Service\.Booking / { print; exit }')
  grep -Eq 'CallbackNode \.(Next|Prev) -> System\.Threading\.CancellationTokenSource\+CallbackNode \.(Next|Prev) -> ' <<<"$row" &&
    ! grep -q '×' <<<"$row" ||
    fail "diff --no-fold: the Bookings' path is still folded (${row:0:300})"
  local hops
  hops=$("$gcsnap" diff "$rec" --top 12 --format json --table path_hops | grep -c '"type": "Gcsnap.Service.Booking", "shape": 1,')
  [ "$hops" -gt 800 ] || fail "diff --format json: path_hops has $hops hops for the Bookings' path, not every hop of the chain"
  kill "$pid" 2>/dev/null
}

# memory: a snapshot of the loaded service raises its peak RSS (VmHWM, reset to the resident size
# just before) by at most 64 MiB + half the live managed bytes (docs/shim.md "Memory"), and info
# names what the shim held as gcsnap's, apart from the service's native memory.
case_service_memory() {
  local s1=$work/$case_name.1.snap rss0 hwm added row live bound own native managed rss
  field() { sed -nE "s/.*\"$2\": ([0-9]+).*/\1/p" <<<"$1"; }
  start_service
  load 1500; load 1500
  [ -w "/proc/$pid/clear_refs" ] || fail "cannot reset the service's peak RSS: /proc/$pid/clear_refs is not writable"
  echo 5 >"/proc/$pid/clear_refs"  # VmHWM := VmRSS
  rss0=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$pid/status")
  snap "$s1"
  hwm=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$pid/status")
  added=$(((hwm - rss0) * 1024))
  "$gcsnap" info "$s1" --format json --table memory >"$work/$case_name.json" 2>&1 ||
    { show "$work/$case_name.json"; fail "info --format json --table memory failed"; }
  row=$(grep '"live_object_bytes": [0-9]' "$work/$case_name.json" | tail -1)
  [ -n "$row" ] || { show "$work/$case_name.json"; fail "the snapshot has no memory record with live bytes"; }
  live=$(field "$row" live_object_bytes)
  bound=$((64 * 1048576 + live / 2))
  echo "service_memory: resident $((rss0 / 1024)) MiB before, peak +$((added >> 20)) MiB (bound $((bound >> 20)) MiB, live $((live >> 20)) MiB)"
  [ "$live" -gt 0 ] || fail "the walk saw no live bytes"
  [ "$added" -le "$bound" ] || fail "the snapshot raised the peak RSS by $added bytes, over the bound $bound"
  own=$(field "$row" gcsnap_bytes) native=$(field "$row" native_and_other_bytes)
  managed=$(field "$row" gc_resident_bytes) rss=$(field "$row" rss_bytes)
  [ -n "$own" ] && [ "$own" -gt 0 ] || fail "info has no gcsnap figure: $row"
  [ "$((native + own + managed))" -eq "$rss" ] || fail "native and other + gcsnap + managed is not the resident size: $row"
  [ "$native" -le $((rss0 * 1024 - managed + 24 * 1048576)) ] ||
    fail "native and other ($native) is more than the service had outside its heap before the snapshot, plus 24 MiB"
  kill "$pid" 2>/dev/null
}

fn=case_${case_name//-/_}
declare -F "$fn" >/dev/null || fail "unknown case '$case_name'"
"$fn"
echo "e2e $case_name: ok"
