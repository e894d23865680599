#!/usr/bin/env python3
"""The allocation-sites app's ground truth against `gcsnap allocs --format json` (issue 43):
alloc_sites_check.py ALLOCS_JSON APP_OUT MAJOR WALK_KEPT WHAT
APP_OUT: the app's output (its "kept/dropped/buffers/generic COUNT" lines); MAJOR: the runtime's
major version (10+: estimates within ±10 %, 8 and 9: ticks); WALK_KEPT: the KeptNode bytes of the
final walk, or "" when not checked; WHAT: the case, for messages. Used by alloc_sites_test.sh
(Linux) and tests/e2e_windows/wine_cases.sh (Windows under Wine)."""
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
if any(k not in counts for k in sites):
    fail(f"the app's output lacks a count: {sorted(counts)}")
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
