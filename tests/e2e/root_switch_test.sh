#!/usr/bin/env bash
# A leak whose shortest path changes root between walks, on one runtime (issue 46):
#   root_switch_test.sh GCSNAP APP_DLL MAJOR WORK_DIR
# gcsnap record --policy induced the root-switch app (root_switch_app/) on runtime MAJOR, once
# per pattern: its LeakedItems are reached from a stack root at the 'k' walks and from a static
# (a handle's array) at the 's' walks, in both orders. Each LeakedItem lives to the end, so at
# every walk `leaks` must report the one suspect with the count that `types FILE:GC` gives and
# that the app made; the suspect's shape at the last walk must start at the root the pattern
# ends with (else the app did not switch roots and the test proves nothing).
# Fails (never skips) when dotnet or the runtime is missing.
set -uo pipefail
gcsnap=$1 app=$2 major=$3 work=$4
type=Gcsnap.RootSwitch.LeakedItem per_round=200
fail() { echo "root_switch: FAIL: $*" >&2; exit 1; }
command -v dotnet >/dev/null 2>&1 || fail "'dotnet' is not on PATH"
[ -f "$app" ] || fail "$app is missing (the e2e.build_root_switch_app fixture builds it)"
line=$("$(dirname "$0")/../../scripts/runtimes.sh" "$major" | tail -1) || fail "scripts/runtimes.sh $major failed"
read -r _ version root <<<"$line"
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"

# check PATTERN LAST_ROOT: record the app with PATTERN; LAST_ROOT: the shape's first word.
check() {
  local pattern=$1 last_root=$2 snap=$work/$1.snap rank gcs counts expected types_count i gc
  DOTNET_ROOT="$root" DOTNET_ROLL_FORWARD=Major "$gcsnap" record --policy induced -o "$snap" -- \
    "$root/dotnet" "$app" "$pattern" "$per_round" </dev/null >"$work/$pattern.out" 2>&1 ||
    { cat "$work/$pattern.out"; fail "$version $pattern: gcsnap record exited non-zero"; }
  grep -q "^leaked $((per_round * ${#pattern}))\$" "$work/$pattern.out" ||
    { cat "$work/$pattern.out"; fail "$version $pattern: the app did not finish its rounds"; }
  "$gcsnap" leaks "$snap" --top 0 --format csv >"$work/$pattern.csv" 2>"$work/$pattern.err" ||
    { cat "$work/$pattern.err"; fail "$version $pattern: gcsnap leaks exited non-zero"; }
  rank=$(awk -F, -v t="$type" 'NF == 20 && $2 == t { print $1 }' "$work/$pattern.csv")
  [ "$(wc -w <<<"$rank")" -eq 1 ] || { cat "$work/$pattern.csv"; fail "$version $pattern: not one $type suspect (ranks: $rank)"; }
  grep -Eq "^$rank,[0-9]+,[0-9]+,[0-9]+,\[$last_root\] -> .*Gcsnap\.RootSwitch\.Registry -> " "$work/$pattern.csv" ||
    { cat "$work/$pattern.csv"; fail "$version $pattern: the suspect's shape does not start at [$last_root] at the last walk"; }
  # The series: file,gc,count per walk, one walk per round.
  gcs=$(awk -F, -v r="$rank" 'NF == 7 && $1 == r && $2 ~ /\.snap$/ { print $3 }' "$work/$pattern.csv")
  counts=$(awk -F, -v r="$rank" 'NF == 7 && $1 == r && $2 ~ /\.snap$/ { print $4 }' "$work/$pattern.csv")
  [ "$(wc -w <<<"$gcs")" -eq "${#pattern}" ] || { cat "$work/$pattern.csv"; fail "$version $pattern: the series has not ${#pattern} walks"; }
  read -r -a gc_list <<<"$(tr '\n' ' ' <<<"$gcs")"
  read -r -a count_list <<<"$(tr '\n' ' ' <<<"$counts")"
  for i in "${!gc_list[@]}"; do
    gc=${gc_list[$i]}
    types_count=$("$gcsnap" types "$snap:$gc" --no-retained --format csv 2>"$work/types.err" |
      awk -F, -v t="$type" '$1 == t { print $2 }')
    [ -n "$types_count" ] || { cat "$work/types.err"; fail "$version $pattern: types $snap:$gc has no $type"; }
    expected=$((per_round * (i + 1)))
    [ "$types_count" -eq "$expected" ] || fail "$version $pattern: types counts $types_count ${type}s at GC $gc, the app made $expected"
    [ "${count_list[$i]}" -eq "$types_count" ] ||
      fail "$version $pattern: leaks counts ${count_list[$i]} at GC $gc (walk $((i + 1)), root '${pattern:$i:1}'), types counts $types_count; series: ${count_list[*]}"
  done
  echo "root_switch: $version $pattern: the series ${count_list[*]} equals types at every walk"
}

check kksskkss handle
check sskksskk stack
