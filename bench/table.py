#!/usr/bin/env python3
"""Tabulate bench/run.sh output: medians of REPS runs, one table, targets checked."""
import re
import statistics
import sys
from pathlib import Path

out, sizes, reps = Path(sys.argv[1]), sys.argv[2].split(), int(sys.argv[3])


def load(name):
    """Return {key: [values over reps]} for OUT/name.<rep>.txt."""
    vals = {}
    for r in range(1, reps + 1):
        p = out / f"{name}.{r}.txt"
        if not p.exists():
            continue
        for line in p.read_text().splitlines():
            for k, v in re.findall(r"(\w+)[ =]([-0-9.e+]+)(?:\s|$)", line):
                try:
                    vals.setdefault(k, []).append(float(v))
                except ValueError:
                    pass
    return vals


def med(name, key):
    v = load(name).get(key)
    return statistics.median(v) if v else None


# label, file, key, scale, format, target text, check(value) (checked at the largest size)
rows = [
    ("bytes on disk per object, refs incl. (GC 2 block)", "read", "gc_bytes_per_object", 1, "{:.2f}", "<= 8", lambda v: v <= 8),
    ("  whole file / objects of both GCs", "read", "file_bytes_per_object", 1, "{:.2f}", "", None),
    ("writer fg: M objects per CPU second", "write_fg", "write_mobj_per_cpu_s", 1, "{:.1f}", ">= 20", lambda v: v >= 20),
    ("writer fg: M objects per wall second", "write_fg", "write_mobj_per_wall_s", 1, "{:.1f}", "", None),
    ("writer fg: raw MB per CPU second", "write_fg", "write_raw_mb_per_cpu_s", 1, "{:.0f}", "", None),
    ("write one GC, fg (wall s)", "write_fg", "write_wall_s", 1, "{:.3f}", "", None),
    ("write one GC, fg (CPU s)", "write_fg", "write_cpu_s", 1, "{:.3f}", "<= 0.5 s", lambda v: v <= 0.5),
    ("write one GC, bg: caller held until end_gc (wall s)", "write_bg", "write_end_gc_wall_s", 1, "{:.3f}", "", None),
    ("write one GC, bg: until flushed (wall s)", "write_bg", "write_wall_s", 1, "{:.3f}", "", None),
    ("write one GC, bg: process CPU s (both threads)", "write_bg", "write_cpu_s", 1, "{:.3f}", "", None),
    ("open recording (ms, median of 5)", "read", "open_ms", 1, "{:.3f}", "< 10 ms", lambda v: v < 10),
    ("decode one GC objects+refs, default threads (wall s)", "read", "decode_wall_s", 1, "{:.3f}", "< 0.5 s", lambda v: v < 0.5),
    ("decode one GC objects+refs, default threads (CPU s)", "read", "decode_cpu_s", 1, "{:.3f}", "", None),
    ("decode one GC objects+refs, one thread (wall s)", "read", "decode1_wall_s", 1, "{:.3f}", "", None),
    ("load GC for analysis: objects+roots (CPU s)", "analyse", "load_cpu_s", 1, "{:.3f}", "", None),
    ("heap graph build (CPU s)", "analyse", "graph_build_cpu_s", 1, "{:.3f}", "", None),
    ("reverse CSR (CPU s)", "analyse", "graph_reverse_cpu_s", 1, "{:.3f}", "", None),
    ("retention path, forward BFS, no reverse CSR (CPU ms)", "analyse", "path_forward_cpu_ms", 1, "{:.1f}", "", None),
    ("retention path, reverse CSR built: median of 101 (CPU ms)", "analyse", "path_cpu_ms", 1, "{:.2f}", "<= 50 ms", lambda v: v <= 50),
    ("retention path, reverse CSR built: slowest of 101 (CPU ms)", "analyse", "path_max_cpu_ms", 1, "{:.2f}", "", None),
    ("dominators + retained sizes (wall s)", "analyse", "dominators_wall_s", 1, "{:.2f}", "", None),
    ("dominators + retained sizes (CPU s)", "analyse", "dominators_cpu_s", 1, "{:.2f}", "<= 7 s", lambda v: v <= 7),
    ("object diff GC1->GC2, tables loaded (wall s)", "diff", "diff_wall_s", 1, "{:.3f}", "", None),
    ("object diff (CPU s)", "diff", "diff_cpu_s", 1, "{:.3f}", "<= 1 s", lambda v: v <= 1),
    ("peak RSS / object, load+graph+path+dominators (B)", "analyse", "analysis_peak_rss_bytes_per_object", 1, "{:.0f}", "<= 100 B", lambda v: v <= 100),
    ("  of which peak after load (B)", "analyse", "peak_rss_b_per_obj_after_load", 1, "{:.0f}", "", None),
    ("  of which peak after graph build (B)", "analyse", "peak_rss_b_per_obj_after_build", 1, "{:.0f}", "", None),
    ("  of which peak after reverse CSR (B)", "analyse", "peak_rss_b_per_obj_after_reverse", 1, "{:.0f}", "", None),
    ("  of which peak after path (B)", "analyse", "peak_rss_b_per_obj_after_path", 1, "{:.0f}", "", None),
    ("peak RSS / object (A+B), diff process (B)", "diff", "diff_peak_rss_bytes_per_object", 1, "{:.0f}", "", None),
]


def label_n(n):
    n = int(n)
    return f"{n // 1_000_000}M" if n % 1_000_000 == 0 else str(n)


if sizes:  # synthetic figures (bench/run.sh --sizes "")
    objs = [med(f"{n}.write_fg", "objects") for n in sizes]
    print(f"gcsnap performance (median of {reps} runs; GC 2 of a synthetic 2-GC recording; targets judged at the largest size, on CPU time where both are shown)")
    print("objects in the GC: " + ", ".join(f"{label_n(n)}: {o:.0f}" if o else f"{label_n(n)}: ?" for n, o in zip(sizes, objs)))
    head = f"| {'figure':58} | " + " | ".join(f"{label_n(n):>9}" for n in sizes) + " | target        | holds |"
    print(head)
    print("|" + "-" * 60 + "|" + "|".join("-" * 11 for _ in sizes) + "|---------------|-------|")
    for label, f, key, scale, fmt, target, check in rows:
        vals = [med(f"{n}.{f}", key) for n in sizes]
        cells = [fmt.format(v * scale) if v is not None else "-" for v in vals]
        verdict = ""
        if check and vals[-1] is not None:
            verdict = "yes" if check(vals[-1]) else "NO"
        print(f"| {label:58} | " + " | ".join(f"{c:>9}" for c in cells) + f" | {target:13} | {verdict:5} |")


app = {m: load(f"app.{m}") for m in ("off", "none", "default", "walk", "all")}
if any(app.values()):
    print()
    print("gc_heavy_app (bench/gc_heavy_app), median of runs. pause: GC.GetTotalPauseDuration, which leaves out the")
    print("profiler heap walk; GC time: the recording's GarbageCollectionStarted -> Finished summed over GCs, walk included.")
    print("| mode                          | GCs (0/1/2)    | pause ms | GC time ms | wall ms | pause / none | GC time / none | wall / off | file MB | pause <= 1.3x none | GC time <= 1.3x none |")
    print("|-------------------------------|----------------|----------|------------|---------|--------------|----------------|------------|---------|--------------------|----------------------|")
    # "walk" (GCSNAP_WALK_ONLY=1 with --policy all) is the runtime's own heap-walk cost: the
    # floor under "all" that no shim work can go below.
    m = lambda d, k: statistics.median(d[k]) if d.get(k) else None
    base_wall = m(app["off"], "wall_ms")
    none_pause, none_gc = m(app["none"], "pause_ms"), m(app["none"], "gc_start_to_finish_ms")
    names = {"off": "no profiler", "none": "shim, --policy none", "default": "shim, --policy default",
             "walk": "every GC walked, nothing kept", "all": "shim, --policy all (every GC)"}
    fmt = lambda v, f="{:.2f}": f.format(v) if v is not None else "-"
    ratio = lambda a, b: a / b if a is not None and b else None
    verdict = lambda r, mode: ("yes" if r <= 1.3 else "NO") if mode in ("default", "all") and r is not None else ""
    for mode, d in app.items():
        if not d:
            continue
        p, g, w = m(d, "pause_ms"), m(d, "gc_start_to_finish_ms"), m(d, "wall_ms")
        gcs = "/".join(f"{m(d, k):.0f}" for k in ("gen0", "gen1", "gen2")) if d.get("gen0") else "-"
        fb = m(d, "file_bytes")
        rp, rg = ratio(p, none_pause), ratio(g, none_gc)
        print(f"| {names[mode]:29} | {gcs:14} | {fmt(p, '{:.0f}'):>8} | {fmt(g, '{:.0f}'):>10} | {fmt(w, '{:.0f}'):>7} | "
              f"{fmt(rp):>12} | {fmt(rg):>14} | {fmt(ratio(w, base_wall)):>10} | {fmt(fb / 1e6 if fb else None):>7} | "
              f"{verdict(rp, mode):18} | {verdict(rg, mode):20} |")
