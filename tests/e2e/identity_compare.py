#!/usr/bin/env python3
"""The identity oracle's comparison (identity_test.sh):
identity_compare.py GCSNAP SNAP TRUTH1.tsv TRUTH2.tsv

TRUTHn.tsv: ClrMD's view of the core dump at moment n, with `tracked ADDRESS ID` lines for the
reachable Zoo.Tracked objects. An Id is the object's identity: present at both moments, it is the
same object, wherever it moved. Checks, for Zoo.Tracked, between the recording's first and last
heap walks (the snapshots of the two moments):
  - gcsnap's walks hold as many of them as ClrMD lists at each moment;
  - gcsnap diff's dead and new counts equal ClrMD's (Ids only at 1, only at 2), and the survivors
    (count at 1 - dead) equal the Ids at both;
  - gcsnap where, for every 7th object of moment 1: alive at moment 2's GC at the address ClrMD
    gives its Id there, or died between the two walks when its Id is gone.
Prints each disagreement and exits 1 if any; 2 on unusable input."""
import json
import subprocess
import sys

TYPE = "Zoo.Tracked"


def tracked(path):
    by_id = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if parts[0] == "tracked":
                by_id[int(parts[2])] = int(parts[1], 16)
    if not by_id:
        sys.exit(f"identity: {path} lists no {TYPE} object")
    return by_id


def gcsnap_json(gcsnap, *args):
    out = subprocess.run([gcsnap, *args, "--format", "json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def count_of(rows):
    return sum(r["count"] for r in rows if r["type"] == TYPE)


def main():
    if len(sys.argv) != 5:
        print("usage: identity_compare.py GCSNAP SNAP TRUTH1.tsv TRUTH2.tsv", file=sys.stderr)
        return 2
    gcsnap, snap = sys.argv[1], sys.argv[2]
    at1, at2 = tracked(sys.argv[3]), tracked(sys.argv[4])
    diff = gcsnap_json(gcsnap, "diff", snap, "--top", "0", "--filter", TYPE)
    gc_a, gc_b = (row["gc"] for row in diff["summary"])
    errors = []

    def check(what, got, want):
        if got != want:
            errors.append(f"{what}: gcsnap {got}, ClrMD {want}")

    objects = {row["category"]: row["count"] for row in diff["objects"]}
    check("objects of GC %d followed by the ranges but not in GC %d's walk" % (gc_a, gc_b), objects["missing"], 0)
    count_a = count_of(gcsnap_json(gcsnap, "types", f"{snap}:{gc_a}", "--filter", TYPE))
    count_b = count_of(gcsnap_json(gcsnap, "types", f"{snap}:{gc_b}", "--filter", TYPE))
    dead = count_of(diff["dead_objects_by_type"])
    new = count_of(diff["new_objects_by_type"])
    both = at1.keys() & at2.keys()
    check(f"{TYPE} at GC {gc_a}", count_a, len(at1))
    check(f"{TYPE} at GC {gc_b}", count_b, len(at2))
    check(f"{TYPE} dead between GC {gc_a} and GC {gc_b}", dead, len(at1.keys() - at2.keys()))
    check(f"{TYPE} new between GC {gc_a} and GC {gc_b}", new, len(at2.keys() - at1.keys()))
    check(f"{TYPE} surviving from GC {gc_a} to GC {gc_b}", count_a - dead, len(both))
    moved = followed = 0
    for ident in sorted(at1)[::7]:
        address = at1[ident]
        where = gcsnap_json(gcsnap, "where", f"{snap}:{gc_a}", hex(address))
        summary = where["summary"][0]
        name = f"where {hex(address)} (Id {ident}) from GC {gc_a}"
        followed += 1
        if ident in at2:
            step = [s for s in where["history"] if s["gc"] == gc_b]
            to = int(step[0]["to"], 16) if step and step[0]["to"] else None
            check(f"{name}: address at GC {gc_b}", hex(to) if to else summary["status"], hex(at2[ident]))
            moved += at2[ident] != address
        else:
            died = summary["died_at"]
            check(f"{name}: fate", summary["status"], "died")
            if died is not None and not gc_a < died <= gc_b:
                errors.append(f"{name}: died at GC {died}, not between the walks")
    for e in errors:
        print(f"identity: {e}", file=sys.stderr)
    print(f"identity: GC {gc_a} -> GC {gc_b}: {TYPE} {len(at1)} -> {len(at2)}, {len(both)} surviving, "
          f"{len(at1) - len(both)} dead, {len(at2) - len(both)} new (ClrMD); where followed {followed} "
          f"objects, {moved} of the survivors moved; {len(errors)} disagreements")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
