#!/usr/bin/env bash
# A leak beside a bounded cache, on one runtime (issue 44):
#   bounded_cache_test.sh GCSNAP APP_DLL MAJOR WORK_DIR
# gcsnap record --policy induced the bounded-cache app (bounded_cache_app/) on runtime MAJOR for
# 6 rounds: 150 LeakedOrders a round stay in a static List (the leak), a ConcurrentDictionary
# capped at 500 CachedPages gets 200 new ones a round (200, 400, then 500 at every walk), and
# Scratch objects are made and dropped. `leaks` must report exactly the leak as a suspect, with
# the count the app made at every walk, and the cache's nodes in `bounded`, held flat from the
# third walk with the count `types` gives at each walk; `leaks --series` lists both types.
# Fails (never skips) when dotnet or the runtime is missing.
set -uo pipefail
gcsnap=$1 app=$2 major=$3 work=$4
rounds=6
fail() { echo "bounded_cache: FAIL: $*" >&2; exit 1; }
command -v dotnet >/dev/null 2>&1 || fail "'dotnet' is not on PATH"
command -v python3 >/dev/null 2>&1 || fail "'python3' is not on PATH"
[ -f "$app" ] || fail "$app is missing (the e2e.build_bounded_cache_app fixture builds it)"
line=$("$(dirname "$0")/../../scripts/runtimes.sh" "$major" | tail -1) || fail "scripts/runtimes.sh $major failed"
read -r _ version root <<<"$line"
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
snap=$work/app.snap

DOTNET_ROOT="$root" DOTNET_ROLL_FORWARD=Major "$gcsnap" record --policy induced -o "$snap" -- \
  "$root/dotnet" "$app" "$rounds" </dev/null >"$work/app.out" 2>&1 ||
  { cat "$work/app.out"; fail "$version: gcsnap record exited non-zero"; }
grep -q "^leaked $((150 * rounds)) cached 500 " "$work/app.out" ||
  { cat "$work/app.out"; fail "$version: the app did not finish its rounds"; }
"$gcsnap" leaks "$snap" --top 0 --format json >"$work/leaks.json" 2>"$work/leaks.err" ||
  { cat "$work/leaks.err"; fail "$version: gcsnap leaks exited non-zero"; }
"$gcsnap" leaks "$snap" --series >"$work/leaks.txt" 2>"$work/leaks.err" ||
  { cat "$work/leaks.err"; fail "$version: gcsnap leaks --series exited non-zero"; }

# The cache's node type as `leaks` names it in bounded (none: the check below fails).
node_type=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [b["type"] for b in d["bounded"] if b["type"].startswith("System.Collections.Concurrent.ConcurrentDictionary") and "CachedPage" in b["type"] and b["type"].endswith("+Node")]
print(names[0] if names else "")' "$work/leaks.json") || fail "$version: leaks.json is not JSON"
[ -n "$node_type" ] || { cat "$work/leaks.json"; fail "$version: the cache's ConcurrentDictionary nodes are not in bounded"; }
# Each walk's `types` table, as types.GC.csv (the node type's name holds a comma: CSV-quoted).
for gc in $(python3 -c 'import json,sys; print(" ".join(str(s["gc"]) for s in json.load(open(sys.argv[1]))["bounded_series"]))' "$work/leaks.json" | tr ' ' '\n' | sort -un); do
  "$gcsnap" types "$snap:$gc" --no-retained --format csv >"$work/types.$gc.csv" 2>"$work/types.err" ||
    { cat "$work/types.err"; fail "$version: gcsnap types $snap:$gc exited non-zero"; }
done

python3 - "$work/leaks.json" "$work" "$node_type" "$version" "$rounds" <<'PY' || exit 1
import csv, json, sys
path, work, node_type, version, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
d = json.load(open(path))
def fail(msg):
    print(f"bounded_cache: FAIL: {version}: {msg}", file=sys.stderr)
    print(json.dumps({k: d[k] for k in ("suspects", "bounded")}, indent=1), file=sys.stderr)
    sys.exit(1)
suspects = [s["type"] for s in d["suspects"]]
if suspects != ["Gcsnap.BoundedCache.LeakedOrder"]:
    fail(f"the suspects are {suspects}, not exactly the leak")
series = [p["count"] for p in d["series"] if p["rank"] == 1]
if series != [150 * (i + 1) for i in range(rounds)]:
    fail(f"the leak's series is {series}")
bounded = {b["type"]: b for b in d["bounded"]}
node = bounded[node_type]
if node["why"] != "held_flat" or node["count"] != 500:
    fail(f"the cache's nodes are {node}, not held flat at 500")
rank = node["rank"]
node_series = [p["count"] for p in d["bounded_series"] if p["rank"] == rank]
if node_series != [200, 400] + [500] * (rounds - 2):
    fail(f"the cache's series is {node_series}")
gcs = [p["gc"] for p in d["bounded_series"] if p["rank"] == rank]
if node["flat_from_gc"] != gcs[2]:
    fail(f"held flat from GC {node['flat_from_gc']}, not the third walk's GC {gcs[2]}")
for gc, count in zip(gcs, node_series):
    rows = [int(r["count"]) for r in csv.DictReader(open(f"{work}/types.{gc}.csv")) if r["type"] == node_type]
    if rows != [count]:
        fail(f"types counts {rows} {node_type} at GC {gc}, bounded_series {count}")
for b in d["bounded"]:
    if "Scratch" in b["type"] or "LeakedOrder" in b["type"]:
        fail(f"{b['type']} is in bounded")
print(f"bounded_cache: {version}: one suspect (LeakedOrder {series}), the cache bounded {node_series}")
PY
grep -q '^Bounded: ' "$work/leaks.txt" || { cat "$work/leaks.txt"; fail "$version: leaks prints no Bounded section"; }
grep -q 'held flat from walk 3' "$work/leaks.txt" || { cat "$work/leaks.txt"; fail "$version: the cache is not held flat from walk 3"; }
grep -Eq '^Gcsnap\.BoundedCache\.LeakedOrder +\+750 ' "$work/leaks.txt" ||
  { cat "$work/leaks.txt"; fail "$version: leaks --series has no LeakedOrder row with +750"; }
