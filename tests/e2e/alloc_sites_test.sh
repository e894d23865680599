#!/usr/bin/env bash
# Allocation sites against ground truth, on one runtime and one source (issue 43):
#   alloc_sites_test.sh GCSNAP APP_DLL MAJOR SOURCE WORK_DIR [attach]
# (attach: the app starts on its own, waits, and `record --pid` attaches to it.)
# gcsnap record --source SOURCE the allocation-sites app (alloc_sites_app/), which allocates
# known bytes at four sites (one kept, three dropped; one a generic method of a generic type)
# and prints how many objects each made. Then `gcsnap allocs --format json` must name the four
# sites with their types (the generic one with its type and method arguments), and:
#  - .NET 10+ (AllocationSampled): each site's estimated bytes within ±10 % of what the app
#    allocated (≥ 1,000 samples each), the kept site's live estimate within ±15 % of the kept
#    bytes, and the dropped sites none live;
#  - .NET 8, 9 (allocation ticks): the four sites attributed, the estimate labelled "ticks".
# With the profiler source the kept bytes are also checked against `types` at the final walk.
# Fails (never skips) when dotnet or the runtime is missing.
set -uo pipefail
gcsnap=$1 app=$2 major=$3 source=$4 work=$5 how=${6:-startup}
fail() { echo "alloc_sites: FAIL: $*" >&2; exit 1; }
command -v dotnet >/dev/null 2>&1 || fail "'dotnet' is not on PATH"
command -v python3 >/dev/null 2>&1 || fail "'python3' is not on PATH"
[ -f "$app" ] || fail "$app is missing (the e2e.build_alloc_sites_app fixture builds it)"
line=$("$(dirname "$0")/../../scripts/runtimes.sh" "$major" | tail -1) || fail "scripts/runtimes.sh $major failed"
read -r _ version root <<<"$line"
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
snap=$work/app.snap

if [ "$how" = attach ]; then
  # The app waits 4 s before allocating (the attach comes first) and 4 s after its GC.
  DOTNET_ROOT="$root" DOTNET_ROLL_FORWARD=Major GCSNAP_DIAGNOSTICS=1 "$root/dotnet" "$app" 128 4 </dev/null \
    >"$work/app.out" 2>&1 &
  app_pid=$!
  sleep 1
  "$gcsnap" record --pid "$app_pid" --source "$source" --policy induced --duration 60s -o "$snap" \
    >"$work/record.out" 2>&1 || { cat "$work/record.out"; kill "$app_pid"; fail "$version $source: record --pid exited non-zero"; }
  wait "$app_pid" || { cat "$work/app.out"; fail "$version $source: the app exited non-zero"; }
else
  DOTNET_ROOT="$root" DOTNET_ROLL_FORWARD=Major GCSNAP_DIAGNOSTICS=1 "$gcsnap" record --source "$source" \
    --policy induced -o "$snap" -- "$root/dotnet" "$app" 128 </dev/null >"$work/app.out" 2>&1 ||
    { cat "$work/app.out"; fail "$version $source: gcsnap record exited non-zero"; }
fi
grep -q '^generic ' "$work/app.out" || { cat "$work/app.out"; fail "$version $source: the app did not finish"; }
"$gcsnap" allocs "$snap" --top 0 --format json >"$work/allocs.json" 2>"$work/allocs.err" ||
  { cat "$work/app.out" "$work/allocs.err"; fail "$version $source: gcsnap allocs exited non-zero"; }
walk_kept=""
if [ "$source" = profiler ] && [ "$how" = startup ]; then
  walk_kept=$("$gcsnap" types "$snap" --no-retained --format csv 2>/dev/null |
    awk -F, '$1 == "Gcsnap.AllocSites.KeptNode" { print $3 }')
  [ -n "$walk_kept" ] || fail "$version $source: the final walk has no KeptNode"
fi

python3 - "$work/allocs.json" "$work/app.out" "$major" "$walk_kept" "$version $source $how" <<'EOF' || exit 1
import json, sys
allocs, out, major, walk_kept, what = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), int(sys.argv[3]), sys.argv[4], sys.argv[5]
counts = {w[0]: int(w[1]) for w in (l.split() for l in out.splitlines()) if len(w) == 2 and w[0] in ("kept", "dropped", "buffers", "generic")}
sites = {"kept": ("AllocKept", "Gcsnap.AllocSites.KeptNode", 48, True),
         "dropped": ("AllocDropped", "Gcsnap.AllocSites.DroppedNode", 40, False),
         "buffers": ("AllocBuffers", "System.Byte[]", 1024, False),
         "generic": ("Alloc<System.Int32>", "System.Int32[]", 1024, False)}
generic_function = "Gcsnap.AllocSites.Chunks<System.Int64>.Alloc<System.Int32>"
def fail(msg):
    print(f"alloc_sites: FAIL: {what}: {msg}", file=sys.stderr)
    print(json.dumps(allocs, indent=1)[:4000], file=sys.stderr)
    sys.exit(1)
if walk_kept and int(walk_kept) != counts["kept"] * 48:
    fail(f"the walk holds {walk_kept} B of KeptNode, the app kept {counts['kept'] * 48}")
expect = "sampled" if major >= 10 else "ticks"
if allocs["estimate"] != expect:
    fail(f"estimate is {allocs['estimate']}, expected {expect}")
for name, (method, type_name, size, kept) in sites.items():
    rows = [s for s in allocs["sites"] if s["function"].endswith("." + method) and s["type"] == type_name]
    if len(rows) != 1:
        fail(f"{len(rows)} rows for site {method} / {type_name}")
    row, truth = rows[0], counts[name] * size
    if name == "generic" and row["function"] != generic_function:
        fail(f"the generic site is named {row['function']}, expected {generic_function}")
    if not any(f.endswith("." + method) for f in row["stack"]):
        fail(f"site {method}: its stack does not hold it: {row['stack']}")
    line = f"{method}: {row['samples']} samples, est {row['est_bytes']} B (truth {truth}), live est {row['live_est_bytes']} B"
    if major >= 10:
        if row["samples"] < 1000:
            fail(f"{line}: fewer than 1000 samples")
        if abs(row["est_bytes"] - truth) > 0.10 * truth:
            fail(f"{line}: estimate off by more than 10 %")
        if kept and abs(row["live_est_bytes"] - truth) > 0.15 * truth:
            fail(f"{line}: live estimate off by more than 15 %")
    if not kept and row["live_est_bytes"] != 0:
        fail(f"{line}: a site whose objects all died shows bytes live")
    if kept and row["live_est_bytes"] == 0:
        fail(f"{line}: the kept site shows nothing live")
    print(f"alloc_sites: {what}: {line}")
EOF
